package nodeindex

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/papermem/papermem/internal/store"
)

// randomUnit returns a random unit vector of n dimensions.
func randomUnit(rnd *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	var s float64
	for i := range v {
		v[i] = float32(rnd.NormFloat64())
		s += float64(v[i]) * float64(v[i])
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// TestAppendSigns checks the sign bits of vectors whose dimensions fill
// their words or not: bit i%64 of word i/64 is set when component i is
// positive, and the words after the last component are zero.
func TestAppendSigns(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{8, 64, 72, 616} {
		words := (dim + 63) / 64
		prefix := []uint64{7}
		for range 50 {
			v := randomUnit(rnd, dim)
			v[rnd.IntN(dim)] = 0 // zero is not positive
			got := appendSigns(prefix, v, words)
			if len(got) != 1+words || got[0] != 7 {
				t.Fatalf("dim %d: appended %d words to %v", dim, len(got)-1, got[:1])
			}
			for i := range 64 * words {
				set := got[1+i/64]>>(i%64)&1 == 1
				if want := i < dim && v[i] > 0; set != want {
					t.Fatalf("dim %d: bit %d set %v, component %v", dim, i, set, v[min(i, dim-1)])
				}
			}
		}
	}
}

// TestNearestShares checks that rescoring the candidates in shares, as
// Nearest does with several CPUs, finds what one share does, in the same
// order.
func TestNearestShares(t *testing.T) {
	const dim = 64
	rnd := rand.New(rand.NewPCG(7, 8))
	p := newPart(dim, 1, 0)
	p.vecs = newVecStore(dim, nil, 0)
	var q []int8
	for i := range 2000 {
		blob := binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.0/127)) // the stored format: scale, components
		for _, x := range randomUnit(rnd, dim) {
			blob = append(blob, byte(int8(x*127)))
		}
		q = p.add(store.IndexedNode{ID: int64(i + 1), Owner: 1, Label: "Claim", Kind: "paper", Text: "x", Vector: blob}, false, q)
	}
	query := Query{K: 150} // 600 candidates: more than one share
	qv := randomUnit(rnd, dim)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, err := p.Nearest(query, qv)
	if err != nil || len(one) != query.K {
		t.Fatalf("one share: %d hits, %v", len(one), err)
	}
	for _, procs := range []int{2, 3} {
		runtime.GOMAXPROCS(procs)
		if got, err := p.Nearest(query, qv); err != nil || !reflect.DeepEqual(got, one) {
			t.Fatalf("%d shares found other hits than one (%v)", procs, err)
		}
	}
}
