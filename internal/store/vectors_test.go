package store

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

// TestBitsBlob checks the sign bits stored with each vector: bit i is set
// when component i is greater than zero.
func TestBitsBlob(t *testing.T) {
	v := []float32{0.5, -0.5, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-30, -1e-30}
	want := []byte{0b1001_0001, 0b0000_0000}
	if got := bitsBlob(v); !bytes.Equal(got, want) {
		t.Errorf("bitsBlob = %08b, want %08b", got, want)
	}
}

// TestVectorBlob checks that a vector comes back from its blob as it went
// in, in sqlite-vec's little-endian float32 layout.
func TestVectorBlob(t *testing.T) {
	v := []float32{1, -0.5, 0, float32(math.Inf(1)), 1e-30}
	b := vectorBlob(v)
	if want := []byte{0, 0, 0x80, 0x3f}; !bytes.Equal(b[:4], want) {
		t.Errorf("vectorBlob(1) = % x, want % x", b[:4], want)
	}
	if got := blobVector(b); !slices.Equal(got, v) {
		t.Errorf("blobVector(vectorBlob(%v)) = %v", v, got)
	}
}
