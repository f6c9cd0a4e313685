package store

// The stored format of a node's vector, on both engines: its float32
// components little-endian (sqlite-vec's float32 format) in
// node_vectors.embedding. Callers hand this package []float32 and get
// []float32 back.

import (
	"encoding/binary"
	"math"
)

// vectorBlob is v in sqlite-vec's float32 little-endian format.
func vectorBlob(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// blobVector decodes a vectorBlob.
func blobVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
