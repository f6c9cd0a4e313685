package nodeindex

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// scanPart returns a part of size random vectors of dim dimensions whose
// coarse words begin at coarseAt, labelled 0 to 2 in turn, every 11th dead.
func scanPart(dim, coarseAt, size int, rng *rand.Rand) *Part {
	words := (dim + 63) / 64
	p := newPart(dim, words, coarseAt)
	v := make([]float32, dim)
	for i := range size {
		for j := range v {
			v[j] = rng.Float32() - 0.5
		}
		p.ids = append(p.ids, int64(i+1))
		p.owners = append(p.owners, 1)
		p.copies = append(p.copies, uint64(i))
		p.meta = append(p.meta, nodeMeta{label: int32(i % 3)})
		p.dead = append(p.dead, i%11 == 0)
		signs := appendSigns(nil, v, words)
		p.coarse = append(p.coarse, signs[coarseAt:coarseAt+p.coarseN]...)
		p.bits = append(append(p.bits, signs[:coarseAt]...), signs[coarseAt+p.coarseN:]...)
	}
	return p
}

// TestHammingWorkers checks that the Hamming scan split among goroutines
// selects exactly what one goroutine does, ties at the cut-off included,
// with a filter that leaves some entries out, in one pass (one word) and
// in two (a coarse pass first).
func TestHammingWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := entryFilter{label: 1, notLabel: anyName, kind: anyName, domain: anyName}
	for _, dim := range []int{64, 256} {
		p := scanPart(dim, 1%((dim+63)/64), 3*scanChunk+17, rng)
		for _, n := range []int{1, 100, 5000} {
			query := appendSigns(nil, randomVector(rng, dim), p.words)
			one := p.hammingBy(query, &f, n, 1)
			if len(one) != n {
				t.Fatalf("dim %d: one goroutine selected %d entries, want %d", dim, len(one), n)
			}
			for _, workers := range []int{2, 3, 5} {
				if got := p.hammingBy(query, &f, n, workers); !slices.Equal(got, one) {
					t.Fatalf("dim %d, n=%d: %d goroutines selected %d entries, one %d, or others", dim, n, workers, len(got), len(one))
				}
			}
			for _, e := range one {
				if p.dead[e] || p.meta[e].label != 1 {
					t.Fatalf("selected entry %d, which the filter leaves out", e)
				}
			}
		}
	}
}

// TestHammingCoarse checks both passes against a sort: a part of at most
// coarseFactor·n entries is ranked by all its sign bits; a larger one's n
// entries are the nearest by all bits among the coarseFactor·n nearest by
// the coarse words (the first ones among equals, each time); with a
// filter that admits a third of the entries, and one that admits all.
func TestHammingCoarse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim, n = 320, 50 // five words, the fourth and fifth coarse
	for _, c := range []struct{ size, label int }{{coarseFactor * n, 1}, {30 * coarseFactor * n, 1}, {30 * coarseFactor * n, anyName}} {
		size, f := c.size, entryFilter{label: int32(c.label), notLabel: anyName, kind: anyName, domain: anyName}
		p := scanPart(dim, 3, size, rng)
		if c.label == anyName {
			clear(p.dead)
		}
		signs := func(e int) []uint64 { // all of entry e's words, in order
			return slices.Concat(p.bits[e*3:e*3+3], p.coarse[e*2:e*2+2])
		}
		query := appendSigns(nil, randomVector(rng, dim), p.words)
		dist := func(e int, words []int) int {
			d, s := 0, signs(e)
			for _, w := range words {
				d += bits.OnesCount64(query[w] ^ s[w])
			}
			return d
		}
		nearestBy := func(es []int, words []int, k int) []int {
			es = slices.Clone(es)
			slices.SortStableFunc(es, func(a, b int) int { return cmp.Compare(dist(a, words), dist(b, words)) })
			es = es[:min(k, len(es))]
			slices.Sort(es)
			return es
		}
		var admitted []int
		for e := range size {
			if p.admits(e, &f) {
				admitted = append(admitted, e)
			}
		}
		all := []int{0, 1, 2, 3, 4}
		want := nearestBy(admitted, all, n)
		if size > coarseFactor*n {
			want = nearestBy(nearestBy(admitted, []int{3, 4}, coarseFactor*n), all, n)
		}
		if got := p.hammingBy(query, &f, n, 1); !slices.Equal(got, want) {
			t.Errorf("%d entries, label %d: selected %v, want %v", size, c.label, got, want)
		}
	}
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = rng.Float32() - 0.5
	}
	return v
}

// BenchmarkHamming times the Hamming scan of a million entries of the
// offline embedder's dimensions (a third admitted) for 800 candidates:
// the two passes a search makes, beside one pass over all the sign bits.
func BenchmarkHamming(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim, coarseAt, n = 640, 8, 800
	p := scanPart(dim, coarseAt, 1<<20, rng)
	f := entryFilter{label: 1, notLabel: anyName, kind: anyName, domain: anyName}
	query := appendSigns(nil, randomVector(rng, dim), p.words)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(p.ids)/scanChunk))
	b.Run("two-pass", func(b *testing.B) {
		for b.Loop() {
			p.hammingBy(query, &f, n, workers)
		}
	})
	b.Run("one-pass", func(b *testing.B) {
		qr := slices.Concat(query[:coarseAt], query[coarseAt+coarseWords:])
		for b.Loop() {
			p.scan(query[coarseAt:coarseAt+coarseWords], qr, &f, n, workers)
		}
	})
}
