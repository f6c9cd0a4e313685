package store

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

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
