package nodeindex

import (
	"fmt"
	"os"
)

// vecStore holds the int8 components of a part's vectors, entry after
// entry: in memory, or, for a part of a persisted index (persist.go), in
// its vector file, written a batch at a time as entries are loaded and
// read back (pread) when a search scores a candidate, so that they stay
// out of the heap and the kernel's page cache keeps those in use. Once a
// write to the file fails (a full disk), the entries after those on disk
// stay in memory, so that searches go on; the part is then not written to
// its files again until it is rebuilt.
type vecStore struct {
	dim    int
	f      *os.File // the vector file, when persisted
	onDisk int      // entries 0…onDisk-1 are in f
	ram    []int8   // the components of the entries after them
	failed error    // the write to f that failed, if one did
}

// flushBytes is how many bytes of components add keeps in memory before
// it writes them to the file.
const flushBytes = 1 << 20

// newVecStore returns a store of vectors of dim components, in memory
// when f is nil, else in f, which already holds n of them.
func newVecStore(dim int, f *os.File, n int) *vecStore {
	return &vecStore{dim: dim, f: f, onDisk: n}
}

// add appends the components q of the next entry.
func (v *vecStore) add(q []int8) {
	v.ram = append(v.ram, q...)
	if len(v.ram) >= flushBytes {
		v.flush()
	}
}

// flush writes the entries held in memory to the file, when there is one
// and no write has failed; it returns the error of a write that fails
// now.
func (v *vecStore) flush() error {
	if v.f == nil || v.failed != nil || len(v.ram) == 0 {
		return nil
	}
	b := make([]byte, len(v.ram))
	for i, x := range v.ram {
		b[i] = byte(x)
	}
	if _, err := v.f.WriteAt(b, int64(v.onDisk)*int64(v.dim)); err != nil {
		v.failed = fmt.Errorf("index vector file: %w", err)
		return v.failed
	}
	v.onDisk += len(v.ram) / v.dim
	v.ram = nil
	return nil
}

// durable reports whether every entry is in the file, which holds only
// them: what a snapshot (.idx) may count on.
func (v *vecStore) durable() bool {
	return v.f != nil && v.failed == nil && len(v.ram) == 0
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
	if e >= v.onDisk {
		e -= v.onDisk
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

// reset drops every entry, and forgets a failed write.
func (v *vecStore) reset() {
	v.onDisk, v.ram, v.failed = 0, nil, nil
	if v.f == nil {
		return
	}
	if err := v.f.Truncate(0); err != nil {
		v.failed = fmt.Errorf("index vector file: %w", err) // the entries stay in memory
	}
}

// heapBytes returns the bytes the store keeps in memory.
func (v *vecStore) heapBytes() int64 { return int64(cap(v.ram)) }
