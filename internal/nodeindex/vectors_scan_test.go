package nodeindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHammingWorkers checks that the Hamming scan split among goroutines
// selects exactly what one goroutine does, ties at the cut-off included,
// with a filter that leaves some entries out.
func TestHammingWorkers(t *testing.T) {
	const dim, size = 64, 3*scanChunk + 17
	p := newPart(dim, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, dim)
	for i := range size {
		for j := range v {
			v[j] = rng.Float32() - 0.5
		}
		p.ids = append(p.ids, int64(i+1))
		p.owners = append(p.owners, 1)
		p.meta = append(p.meta, nodeMeta{label: int32(i % 3)})
		p.dead = append(p.dead, i%11 == 0)
		p.bits = appendSigns(p.bits, v, 1)
	}
	f := entryFilter{label: 1, notLabel: anyName, kind: anyName, domain: anyName}
	for _, n := range []int{1, 100, 5000} {
		query := []uint64{rng.Uint64()}
		one := p.hammingBy(query, &f, n, 1)
		if len(one) != n {
			t.Fatalf("one goroutine selected %d entries, want %d", len(one), n)
		}
		for _, workers := range []int{2, 3, 5} {
			if got := p.hammingBy(query, &f, n, workers); !slices.Equal(got, one) {
				t.Fatalf("n=%d: %d goroutines selected %d entries, one %d, or others", n, workers, len(got), len(one))
			}
		}
		for _, e := range one {
			if p.dead[e] || p.meta[e].label != 1 {
				t.Fatalf("selected entry %d, which the filter leaves out", e)
			}
		}
	}
}
