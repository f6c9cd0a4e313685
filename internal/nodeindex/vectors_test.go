package nodeindex

import (
	"math"
	"math/rand/v2"
	"testing"
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
