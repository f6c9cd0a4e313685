package nodeindex

import (
	"bytes"
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem/internal/store"
)

// FuzzDecode feeds decode snapshots with bytes changed: it must fail or
// give a part whose arrays agree, never panic or allocate beyond the
// input's size.
func FuzzDecode(f *testing.F) {
	const dim = 256 // four words of sign bits, the second and third coarse
	p := newPart(dim, 4, 1)
	p.vecs = newVecStore(dim, nil, 0)
	var q []int8
	for i, text := range []string{"Sleep loss lowers recall.", "Naps restore memory within a week.", "Vitamin D and bone density."} {
		v := binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.01)) // the stored format: scale, components
		for j := range dim {
			v = append(v, byte(int8((i+1)*(j%5)-4)))
		}
		q = p.add(store.IndexedNode{ID: int64(10 + i), Owner: int64(i / 2), Label: "Claim", Kind: "paper", Text: text,
			Title: "Sleep", Section: "Results", Vector: v}, i == 0, q)
	}
	p.dead[1], p.ndead = true, 1
	var b bytes.Buffer
	if err := p.encode(&b, "offline"); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		got := newPart(dim, 4, 1)
		if got.decode(bytes.NewReader(data), int64(len(data)), "offline") != nil {
			return
		}
		n := len(got.ids)
		if len(got.owners) != n || len(got.copies) != n || len(got.meta) != n || len(got.dead) != n || len(got.scales) != n ||
			len(got.coarse) != n*coarseWords || len(got.bits) != n*(got.words-coarseWords) || len(got.lex.length) != n {
			t.Fatalf("decoded arrays of different lengths from %q", data)
		}
	})
}

// TestPartFiles checks that every workspace id names files inside the
// index's directory, and distinct ids distinct files.
func TestPartFiles(t *testing.T) {
	seen := map[string]string{}
	for _, org := range []string{"default", "lab-a", "../etc/passwd", "..", ".", "a/b", "A", "_41", "lab_a", ""} {
		idx, vec := partFiles("/idx", org)
		if filepath.Dir(idx) != "/idx" || filepath.Dir(vec) != "/idx" {
			t.Errorf("workspace %q: files %s, %s outside the directory", org, idx, vec)
		}
		if other, ok := seen[idx]; ok {
			t.Errorf("workspaces %q and %q share %s", org, other, idx)
		}
		seen[idx] = org
	}
}
