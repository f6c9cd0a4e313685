package nodeindex

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem/internal/ftsterm"
)

// TestMaxScoreExact checks that MaxScore finds exactly the entries and
// scores of scoring every posting, on texts drawn from a small vocabulary
// with a skewed frequency (so that some words are common, others rare),
// for queries of one to eight words, several k, with a filter and without,
// in one search and split among goroutines.
func TestMaxScoreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dq", i)
	}
	word := func() string { return vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64()*rng.Float64())] }
	p := newPart(8, 1, 0)
	const size = 5000
	for e := range size {
		var text []byte
		for range 3 + rng.IntN(40) {
			text = fmt.Appendf(text, "%s ", word())
		}
		p.lex.add(int32(e), "", string(text), "", "")
	}
	avgdl := float64(p.lex.stats[""].tokens) / float64(size)
	filtered := make([]uint64, (size+63)/64)
	for e := range size {
		if e%7 != 3 {
			filtered[e/64] |= 1 << (e % 64)
		}
	}
	defer func(chunk, procs int) { lexChunk = chunk; runtime.GOMAXPROCS(procs) }(lexChunk, runtime.GOMAXPROCS(4))
	for q := range 600 {
		admitted := filtered
		lexChunk = size
		if q%3 != 0 {
			lexChunk = 1000 // four goroutines
		}
		if q%4 == 1 {
			admitted = nil // every entry, as admitted gives it
		}
		var cs []cursor
		for range 1 + q%8 {
			id, ok := p.lex.terms[ftsterm.Term(word())]
			if !ok {
				continue
			}
			idf := 0.1 + rng.Float64()*3
			b := p.lex.bounds[id]
			cs = append(cs, cursor{ps: p.lex.postings[id], idf: idf, ub: idf * saturation(b.maxTF, b.minLen, avgdl)})
		}
		k := []int{1, 10, 200}[q/3%3]
		want := make(map[int32]float64)
		for _, c := range cs {
			for _, x := range c.ps {
				want[x.entry] += c.idf * p.lex.saturation(x, avgdl)
			}
		}
		ref := make(topHits, 0, k)
		for e, s := range want {
			if has(admitted, int(e)) {
				ref.push(hit{e, s}, k)
			}
		}
		got := p.maxScore(slices.Clone(cs), k, avgdl, admitted)
		sortHits := func(h topHits) []hit {
			out := slices.Clone(h)
			slices.SortFunc(out, func(a, b hit) int { return cmpHits(b, a) })
			return out
		}
		if !cmp.Equal(sortHits(ref), sortHits(got), cmp.AllowUnexported(hit{})) {
			t.Fatalf("query %d (%d words, k %d, %d entries a goroutine):\n%s", q, len(cs), k, lexChunk, cmp.Diff(sortHits(ref), sortHits(got), cmp.AllowUnexported(hit{})))
		}
	}
}

// TestSeek checks seek against a linear scan.
func TestSeek(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		var ps []posting
		e := int32(0)
		for range rng.IntN(50) {
			e += 1 + int32(rng.IntN(5))
			ps = append(ps, posting{entry: e})
		}
		from := rng.IntN(len(ps) + 1)
		d := int32(rng.IntN(int(e) + 3))
		want := from
		for want < len(ps) && ps[want].entry < d {
			want++
		}
		if got := seek(ps, from, d); got != want {
			t.Fatalf("seek(%v, %d, %d) = %d, want %d", ps, from, d, got, want)
		}
	}
}
