package nodeindex

import (
	"bufio"
	"fmt"
	"os"
)

// vecStore holds the int8 components of a part's vectors, entry after
// entry: in memory, or, for a part of a persisted index (persist.go), in
// its vector file, appended as entries are loaded and read back (pread)
// when a search scores a candidate, so that they stay out of the heap and
// the kernel's page cache keeps those in use.
type vecStore struct {
	dim int
	ram []int8        // the components, when f is nil
	f   *os.File      // the vector file, when persisted
	w   *bufio.Writer // appends to f; flushed before any read
	raw []byte        // scratch of one vector's bytes
	n   int           // entries held
}

// newVecStore returns a store of vectors of dim components, in memory
// when f is nil, else in f, which already holds n of them.
func newVecStore(dim int, f *os.File, n int) *vecStore {
	v := &vecStore{dim: dim, f: f, n: n, raw: make([]byte, dim)}
	if f != nil {
		v.w = bufio.NewWriterSize(f, 1<<20)
	}
	return v
}

// add appends the components q of the next entry.
func (v *vecStore) add(q []int8) error {
	v.n++
	if v.f == nil {
		v.ram = append(v.ram, q...)
		return nil
	}
	for i, x := range q {
		v.raw[i] = byte(x)
	}
	if _, err := v.w.Write(v.raw); err != nil {
		return fmt.Errorf("index vector file: %w", err)
	}
	return nil
}

// flush writes what add buffered to the file, so that read sees it.
func (v *vecStore) flush() error {
	if v.w == nil {
		return nil
	}
	if err := v.w.Flush(); err != nil {
		return fmt.Errorf("index vector file: %w", err)
	}
	return nil
}

// vecBuf is where read puts a vector it reads from disk.
type vecBuf struct {
	q   []int8
	raw []byte
}

// newVecBuf returns a vecBuf for vectors of dim components.
func newVecBuf(dim int) *vecBuf {
	return &vecBuf{make([]int8, dim), make([]byte, dim)}
}

// read returns the components of entry e, read into buf when they are on
// disk. The caller must not change them.
func (v *vecStore) read(e int, buf *vecBuf) ([]int8, error) {
	if v.f == nil {
		return v.ram[e*v.dim : (e+1)*v.dim], nil
	}
	if _, err := v.f.ReadAt(buf.raw, int64(e)*int64(v.dim)); err != nil {
		return nil, fmt.Errorf("index vector file: entry %d: %w", e, err)
	}
	for i, b := range buf.raw {
		buf.q[i] = int8(b)
	}
	return buf.q, nil
}

// reset drops every entry.
func (v *vecStore) reset() error {
	v.n, v.ram = 0, nil
	if v.f == nil {
		return nil
	}
	v.w.Reset(v.f)
	if err := v.f.Truncate(0); err != nil {
		return fmt.Errorf("index vector file: %w", err)
	}
	_, err := v.f.Seek(0, 0)
	return err
}

// heapBytes returns the bytes the store keeps in memory.
func (v *vecStore) heapBytes() int64 {
	if v.f == nil {
		return int64(cap(v.ram))
	}
	return int64(v.w.Size() + len(v.raw))
}
