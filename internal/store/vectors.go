package store

// The stored format of a node's vector, on both engines
// (node_vectors.embedding, since migration 0013 on SQLite and 0005 on
// PostgreSQL): the vector quantised to int8 with one scale, as the
// in-process search index (internal/nodeindex) quantises it (AppendInt8),
// 4+dim bytes:
//
//	bytes 0–3      the scale s, a float32, little-endian: max|v[i]|/127
//	               (0 for a zero vector)
//	bytes 4…4+dim  q[i], one int8 a component: v[i]·(127/max|v[i]|)
//	               rounded half away from zero, in float32, so |q[i]| ≤ 127;
//	               except that a component above zero that rounds to 0 is
//	               -128 (0x80), a value the rounding never gives
//
// It decodes to s·q[i], and a -128 to s/4. The index ranks with the int8
// components, their scale and the vector's sign bits (v[i] > 0, its
// Hamming prefilter): the decoded vector quantises again to the same q[i]
// and the same scale, and -128 keeps the sign of a small positive
// component that the int8 value alone would lose (about 1% of the offline
// embedder's components on SciFact abstracts); s/4 is positive, and inside
// (0, s/2), where the component was. So the index holds exactly what it
// held of the float vector.
//
// Before, the format was the float32 components little-endian (sqlite-vec's
// float32 format), 4·dim bytes; migration 0013 (0005) rewrote every row
// (compactVectors). Callers hand this package []float32 and get []float32
// back.

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
)

// positiveZero is the stored value of a component above zero that rounds
// to 0: the int8 quantisation never gives -128.
const positiveZero = -128

// vectorBlob is v in the stored format: its int8 quantisation and scale.
func vectorBlob(v []float32) []byte {
	b := make([]byte, 4+len(v))
	q, scale := AppendInt8(nil, v)
	binary.LittleEndian.PutUint32(b, math.Float32bits(scale))
	for i, x := range q {
		if x == 0 && v[i] > 0 {
			x = positiveZero
		}
		b[4+i] = byte(x)
	}
	return b
}

// StoredVector is a node's vector in the stored format, as the search
// index reads it: its int8 components, their scale and their signs, with
// no float32 decoding (blobVector) for the index to quantise again.
type StoredVector []byte

// Dim returns the number of components.
func (v StoredVector) Dim() int { return max(len(v)-4, 0) }

// Scale returns s, with component i ≈ s·q[i].
func (v StoredVector) Scale() float32 {
	if len(v) < 4 {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(v))
}

// Component returns component i as AppendInt8 quantised it, and whether it
// is above zero (which a component that rounds to 0 no longer says).
func (v StoredVector) Component(i int) (q int8, positive bool) {
	if q = int8(v[4+i]); q == positiveZero {
		return 0, true
	}
	return q, q > 0
}

// blobVector decodes a vectorBlob.
func blobVector(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	scale := math.Float32frombits(binary.LittleEndian.Uint32(b))
	v := make([]float32, len(b)-4)
	for i, x := range b[4:] {
		if q := int8(x); q == positiveZero {
			v[i] = scale / 4
		} else {
			v[i] = scale * float32(q)
		}
	}
	return v
}

// AppendInt8 appends v quantised to int8 and returns the scale s with
// v[i] ≈ s·q[i]: s = max|v[i]|/127 (0 for a zero vector), and each
// component rounded half away from zero, as math.Round, in float32. It is
// the one quantisation of the stored format and of the in-process search
// index (internal/nodeindex), so the store keeps exactly what the index
// takes from a vector.
func AppendInt8(dst []int8, v []float32) ([]int8, float32) {
	var top float32
	for _, x := range v {
		top = max(top, x, -x)
	}
	if top == 0 {
		return append(dst, make([]int8, len(v))...), 0
	}
	f := 127 / top
	n := len(dst)
	dst = append(dst, make([]int8, len(v))...)
	out := dst[n:]
	for i, x := range v {
		// |x·f| ≤ 127, so adding ½ is exact.
		y := x * f
		if y < 0 {
			y -= 0.5
		} else {
			y += 0.5
		}
		out[i] = int8(y)
	}
	return dst, top / 127
}

// float32Blob is v in sqlite-vec's float32 format: its components
// little-endian, the format vectors were stored in before migration 0013
// (0005).
func float32Blob(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// blobFloat32 decodes a float32Blob.
func blobFloat32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// compactBatch is how many rows compactVectors reads a statement.
const compactBatch = 1024

// compactVectors copies every row of node_vectors, whose vectors are in the
// float32 format, into node_vectors_compact in the stored format
// (vectors.go), in node id order, a batch at a time, many rows a
// statement: the Go step of SQLite's migration 0013 and PostgreSQL's 0005.
// It copies every workspace's rows, each with its own org_id. A row whose
// length is not a multiple of 4 is not a float32 vector: the migration
// fails, naming its node.
func compactVectors(ctx context.Context, tx *sql.Tx, _ Engine) error {
	type row struct {
		id   int64
		org  string
		blob []byte
	}
	last := int64(math.MinInt64)
	for {
		rows, err := tx.QueryContext(ctx, `SELECT node_id, org_id, embedding FROM node_vectors WHERE node_id > ? ORDER BY node_id LIMIT ?`, last, compactBatch)
		batch, err := collect(rows, err, func(rows *sql.Rows, r *row) error { return rows.Scan(&r.id, &r.org, &r.blob) })
		if err != nil {
			return fmt.Errorf("compact node vectors: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		last = batch[len(batch)-1].id
		for len(batch) > 0 {
			k := min(len(batch), rowsPerInsert)
			args := make([]any, 0, 3*k)
			for _, r := range batch[:k] {
				if len(r.blob)%4 != 0 {
					return fmt.Errorf("compact node vectors: node %d has a vector of %d bytes, not float32 components", r.id, len(r.blob))
				}
				args = append(args, r.id, r.org, vectorBlob(blobFloat32(r.blob)))
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO node_vectors_compact (node_id, org_id, embedding) VALUES `+valueRows(k, 3), args...); err != nil {
				return fmt.Errorf("compact node vectors: %w", err)
			}
			batch = batch[k:]
		}
	}
}
