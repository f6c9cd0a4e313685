package nodeindex

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestVecStoreWriteFails checks that once a write to the vector file
// fails (here a file opened read-only; in production a full disk), the
// entries not on disk stay in memory and read back, and the store is no
// longer durable, so that no snapshot counts on them.
func TestVecStoreWriteFails(t *testing.T) {
	const dim = 8
	path := filepath.Join(t.TempDir(), "w.vec")
	if err := os.WriteFile(path, make([]byte, 2*dim), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path) // read-only: writes fail
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v := newVecStore(dim, f, 2)
	var want [][]int8
	for i := range 3 {
		q := make([]int8, dim)
		for j := range q {
			q[j] = int8(i*dim + j)
		}
		want = append(want, q)
		v.add(q)
	}
	if err := v.flush(); err == nil {
		t.Fatal("a write to a read-only file succeeded")
	}
	if v.durable() {
		t.Fatal("durable after a failed write")
	}
	buf := newVecBuf(dim)
	for i, q := range want {
		got, err := v.read(2+i, buf)
		if err != nil || !slices.Equal(got, q) {
			t.Fatalf("entry %d: %v, %v; want %v", 2+i, got, err, q)
		}
	}
	if got, err := v.read(1, buf); err != nil || !slices.Equal(got, make([]int8, dim)) {
		t.Fatalf("entry 1 on disk: %v, %v", got, err)
	}
	v.add(want[0]) // later entries stay in memory too
	if err := v.flush(); err != nil || v.durable() {
		t.Fatalf("flush after the failure: %v, durable %v", err, v.durable())
	}
	if got, _ := v.read(5, buf); !slices.Equal(got, want[0]) {
		t.Fatalf("entry 5: %v", got)
	}
}
