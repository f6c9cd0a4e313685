package store

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestVectorBlob checks the stored format's layout: the scale, then one
// int8 a component, rounded half away from zero, with -128 for a positive
// component that rounds to 0, and how it decodes.
func TestVectorBlob(t *testing.T) {
	v := []float32{1, -0.5, 0.5 / 127, 0, 0.001, -0.001}
	b := vectorBlob(v)
	scale := binaryFloat32(float32(1) / 127)
	want := append(scale, 127, 0xc0 /* -64 */, 1, 0, 0x80 /* positive zero */, 0)
	if !bytes.Equal(b, want) {
		t.Errorf("vectorBlob(%v) = % x, want % x", v, b, want)
	}
	s := float32(1) / 127
	if got, want := blobVector(b), []float32{127 * s, -64 * s, s, 0, s / 4, 0}; !slices.Equal(got, want) {
		t.Errorf("blobVector = %v, want %v", got, want)
	}
	if got := blobVector(vectorBlob(make([]float32, 3))); !slices.Equal(got, make([]float32, 3)) {
		t.Errorf("zero vector decoded as %v", got)
	}
}

// binaryFloat32 is x little-endian.
func binaryFloat32(x float32) []byte {
	return float32Blob([]float32{x})
}

// TestVectorRoundTrip checks, on random vectors (unit length, as the root
// stores them; dense, sparse, tiny and huge) and on zero vectors, that a
// stored vector decodes to one that quantises to the same int8 components
// and the same scale, with the same sign bits (what the search index
// takes from it, internal/nodeindex), and lies within half a step of the
// original in each component.
func TestVectorRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 616))
	var cases [][]float32
	for _, dim := range []int{1, 2, 7, 616, 1536} {
		cases = append(cases, make([]float32, dim)) // zero
		for range 200 {
			v := make([]float32, dim)
			sparse := r.IntN(3) == 0
			for i := range v {
				if !sparse || r.IntN(10) == 0 {
					v[i] = float32(r.NormFloat64())
				}
			}
			unit(v)
			if k := r.IntN(4); k > 0 { // scaled far from unit length too
				for i := range v {
					v[i] *= float32(math.Pow(10, float64(3*k-6)))
				}
			}
			cases = append(cases, v)
		}
	}
	positiveZeros := 0
	for _, v := range cases {
		b := vectorBlob(v)
		if len(b) != 4+len(v) {
			t.Fatalf("%d dimensions stored in %d bytes", len(v), len(b))
		}
		got := blobVector(b)
		q, scale := AppendInt8(nil, v)
		gotQ, gotScale := AppendInt8(nil, got)
		if !slices.Equal(gotQ, q) || gotScale != scale {
			t.Fatalf("quantised again: %v × %g, want %v × %g", gotQ, gotScale, q, scale)
		}
		for i, x := range v {
			if (got[i] > 0) != (x > 0) {
				t.Fatalf("component %d: %g decoded as %g, another sign bit", i, x, got[i])
			}
			if d := math.Abs(float64(got[i] - x)); d > float64(scale)*0.5001 {
				t.Fatalf("component %d: %g decoded as %g, more than half a step (%g) off", i, x, got[i], scale)
			}
			if q[i] == 0 && x > 0 {
				positiveZeros++
			}
		}
	}
	if positiveZeros == 0 {
		t.Error("no positive component rounded to 0: the case is not tested")
	}
}

// unit scales v to unit length.
func unit(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(s))
	}
}

// TestAppendInt8Rounds checks the int8 quantisation against math.Round on
// random unit vectors, and that the scale restores each component within
// half a step.
func TestAppendInt8Rounds(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		v := make([]float32, 64)
		for i := range v {
			v[i] = float32(rnd.NormFloat64())
		}
		unit(v)
		q, scale := AppendInt8(nil, v)
		var top float32
		for _, x := range v {
			top = max(top, x, -x)
		}
		for i, x := range v {
			if want := int8(math.Round(float64(x * (127 / top)))); q[i] != want {
				t.Fatalf("component %d = %v: got %d, want %d", i, x, q[i], want)
			}
			if d := math.Abs(float64(float32(q[i])*scale - x)); d > float64(scale)/2+1e-7 {
				t.Fatalf("component %d = %v restored as %v", i, x, float32(q[i])*scale)
			}
		}
	}
}
