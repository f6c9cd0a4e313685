package nodeindex_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/scifact"
)

// results are what searches of a part answer for some questions: BM25 and
// vector hits, and cosines read back one by one.
type results struct {
	Lexical, Nearest [][]nodeindex.Hit
	Cosines          []float64
	Size, Live       int // entries, and those not dead
}

// searcher returns a function giving the results of part p for the first
// claims.
func searcher(t *testing.T, claims []scifact.Query) func(p *nodeindex.Part) results {
	t.Helper()
	var qs []string
	for _, c := range claims[:20] {
		qs = append(qs, c.Text)
	}
	qvs, err := papermem.NewOfflineEmbedder().Embed(ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	return func(p *nodeindex.Part) results {
		r := results{Size: p.Size(), Live: p.Size() - p.Dead()}
		for i, q := range qs {
			lex := p.Lexical(shared(30), q)
			r.Lexical = append(r.Lexical, lex)
			r.Nearest = append(r.Nearest, nearest(t, p, shared(30), qvs[i]))
			for _, h := range lex[:min(3, len(lex))] {
				c, ok, err := p.Cosine(h.ID, qvs[i])
				if err != nil || !ok {
					t.Fatalf("cosine of %d: %v %v", h.ID, ok, err)
				}
				r.Cosines = append(r.Cosines, c)
			}
		}
		return r
	}
}

// storeDocs stores abstracts docs[from:to] as papers 10.1/d<i>.
func storeDocs(t *testing.T, m *papermem.Memory, docs []scifact.Doc, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: fmt.Sprintf("10.1/d%d", i), Title: docs[i].Title, Text: docs[i].Text}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPersistedIndex checks that a part written to its files by Close is
// read back whole by the next index over the same directory, with the
// same answers, and that one read back after papers were added and
// deleted catches up to the answers of an index loaded from the database.
func TestPersistedIndex(t *testing.T) {
	m, path, docs, claims := scifactMemory(t, 150)
	db := openDB(t, path)
	dir := t.TempDir()
	search := searcher(t, claims)
	org := papermem.DefaultWorkspace

	first := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	p := part(t, first, org)
	want := search(p)
	if p.Read() != 0 {
		t.Fatalf("a first index read %d entries from files", p.Read())
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{org + ".idx", org + ".vec"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	second := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	p = part(t, second, org)
	if p.Read() != want.Size {
		t.Fatalf("read %d entries from the files, want %d", p.Read(), want.Size)
	}
	if got := search(p); !cmp.Equal(want, got) {
		t.Fatalf("after a restart (-before +after):\n%s", cmp.Diff(want, got))
	}
	second.Close()

	storeDocs(t, m, docs, 150, 180)
	for _, doi := range []string{"10.1/d3", "10.1/d160"} {
		if err := m.DeletePaper(ctx, doi); err != nil {
			t.Fatal(err)
		}
	}
	third := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	p = part(t, third, org)
	if p.Read() != want.Size {
		t.Fatalf("read %d entries from the files, want %d", p.Read(), want.Size)
	}
	fresh := search(part(t, newIndex(t, db, papermem.DefaultIndexMaxBytes), org))
	if got := search(p); !cmp.Equal(fresh, got, cmpopts.IgnoreFields(results{}, "Size")) {
		t.Fatalf("caught up (-from the database +from the files):\n%s", cmp.Diff(fresh, got))
	}
}

// TestPersistedIndexAfterCrash checks a process that appended vectors and
// died before writing a snapshot: the next one cuts the vector file back
// to the last snapshot and catches up.
func TestPersistedIndexAfterCrash(t *testing.T) {
	m, path, docs, claims := scifactMemory(t, 100)
	db := openDB(t, path)
	dir := t.TempDir()
	search := searcher(t, claims)
	org := papermem.DefaultWorkspace

	first := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	saved := part(t, first, org).Size()
	first.Close()
	storeDocs(t, m, docs, 100, 140)
	crashed := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	part(t, crashed, org) // appends the new entries' vectors
	crashed.Abandon()
	storeDocs(t, m, docs, 140, 150)
	if err := m.DeletePaper(ctx, "10.1/d120"); err != nil {
		t.Fatal(err)
	}

	next := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	p := part(t, next, org)
	if p.Read() != saved {
		t.Fatalf("read %d entries from the files, want the %d of the last snapshot", p.Read(), saved)
	}
	fresh := search(part(t, newIndex(t, db, papermem.DefaultIndexMaxBytes), org))
	if got := search(p); !cmp.Equal(fresh, got, cmpopts.IgnoreFields(results{}, "Size")) {
		t.Fatalf("after a crash (-from the database +from the files):\n%s", cmp.Diff(fresh, got))
	}
}

// TestDamagedIndexFiles checks that files an index cannot trust are
// ignored, the part loaded from the database with the same answers: a
// flipped byte, a cut .idx or .vec file, an empty one, and a snapshot of a
// database further along than this one (restored from an older copy).
func TestDamagedIndexFiles(t *testing.T) {
	_, path, _, claims := scifactMemory(t, 60)
	db := openDB(t, path)
	search := searcher(t, claims)
	org := papermem.DefaultWorkspace
	good := t.TempDir()
	x := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, good)
	want := search(part(t, x, org))
	x.Close()

	// ahead is a snapshot of another database of the same workspace with
	// more writes.
	_, bigger, _, _ := scifactMemory(t, 80)
	ahead := t.TempDir()
	x = newIndexIn(t, openDB(t, bigger), papermem.DefaultIndexMaxBytes, ahead)
	part(t, x, org)
	x.Close()

	idx, vec := org+".idx", org+".vec"
	for name, c := range map[string]struct {
		from, file string
		damage     func(b []byte) []byte
	}{
		"flipped byte": {good, idx, func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }},
		"flipped sum":  {good, idx, func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
		"cut index":    {good, idx, func(b []byte) []byte { return b[:len(b)*2/3] }},
		"empty index":  {good, idx, func([]byte) []byte { return nil }},
		"cut vectors":  {good, vec, func(b []byte) []byte { return b[:len(b)-1] }},
		"newer":        {ahead, "", nil},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{idx, vec} {
				b, err := os.ReadFile(filepath.Join(c.from, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == c.file {
					b = c.damage(b)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p := part(t, newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir), org)
			if p.Read() != 0 {
				t.Fatalf("read %d entries from damaged files", p.Read())
			}
			if got := search(p); !cmp.Equal(want, got) {
				t.Fatalf("(-undamaged +damaged):\n%s", cmp.Diff(want, got))
			}
		})
	}
}

// TestIndexFilesOfAnotherEmbedder checks that a part's files are not read
// by an index of another embedder's vectors of the same dimensions (a
// database re-embedded keeps its node ids).
func TestIndexFilesOfAnotherEmbedder(t *testing.T) {
	_, path, _, claims := scifactMemory(t, 30)
	db := openDB(t, path)
	dir := t.TempDir()
	org := papermem.DefaultWorkspace
	x := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	want := searcher(t, claims)(part(t, x, org))
	x.Close()
	p := part(t, newIndexOf(t, db, papermem.DefaultIndexMaxBytes, dir, "another"), org)
	if p.Read() != 0 {
		t.Fatalf("read %d entries of another embedder's files", p.Read())
	}
	if got := searcher(t, claims)(p); !cmp.Equal(want, got) {
		t.Fatalf("(-first +second):\n%s", cmp.Diff(want, got))
	}
}

// TestIndexDirectoryLock checks that one index at a time owns a
// directory: another keeps its parts in memory, with the same answers, and
// leaves the files alone.
func TestIndexDirectoryLock(t *testing.T) {
	_, path, _, claims := scifactMemory(t, 40)
	db := openDB(t, path)
	dir := t.TempDir()
	search := searcher(t, claims)
	org := papermem.DefaultWorkspace
	owner := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	want := search(part(t, owner, org))
	other := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	if got := search(part(t, other, org)); !cmp.Equal(want, got) {
		t.Fatalf("second index (-owner +other):\n%s", cmp.Diff(want, got))
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, org+".idx")); err == nil {
		t.Fatal("the index that does not own the directory wrote a snapshot")
	}
	owner.Close()
	if p := part(t, newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir), org); p.Read() != want.Size {
		t.Fatalf("read %d entries after the owner closed, want %d", p.Read(), want.Size)
	}
}

// TestSnapshotWhileGrowing checks that a part which gained enough entries
// writes its snapshot in the background, without Close.
func TestSnapshotWhileGrowing(t *testing.T) {
	defer nodeindex.SetSnapshotMin(50)()
	m, path, docs, claims := scifactMemory(t, 30)
	db := openDB(t, path)
	dir := t.TempDir()
	org := papermem.DefaultWorkspace
	x := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	part(t, x, org)
	x.WaitSnapshots()
	before := snapshotSize(dir, org)
	storeDocs(t, m, docs, 30, 60)
	p := part(t, x, org)
	x.WaitSnapshots()
	if after := snapshotSize(dir, org); after <= before {
		t.Fatalf("snapshot of %d bytes, %d before %d more entries", after, before, p.Size())
	}
	want := searcher(t, claims)(p)
	x.Abandon()
	next := part(t, newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir), org)
	if next.Read() != want.Size {
		t.Fatalf("read %d entries, want %d", next.Read(), want.Size)
	}
	if got := searcher(t, claims)(next); !cmp.Equal(want, got) {
		t.Fatalf("(-written +read):\n%s", cmp.Diff(want, got))
	}
}

// snapshotSize returns the size of org's .idx file in dir, 0 for none.
func snapshotSize(dir, org string) int64 {
	st, err := os.Stat(filepath.Join(dir, org+".idx"))
	if err != nil {
		return 0
	}
	return st.Size()
}

// TestSnapshotsUnderLoad searches a persisted part from several
// goroutines while papers are stored and snapshots are written in the
// background (run it with -race), then checks that what the files hold
// reads back as the database says.
func TestSnapshotsUnderLoad(t *testing.T) {
	defer nodeindex.SetSnapshotMin(20)()
	m, path, docs, claims := scifactMemory(t, 20)
	db := openDB(t, path)
	dir := t.TempDir()
	org := papermem.DefaultWorkspace
	x := newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir)
	qv, err := papermem.NewOfflineEmbedder().Embed(ctx, []string{claims[0].Text})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				p, err := x.Part(ctx, org)
				if err == nil {
					p.Lexical(shared(20), claims[0].Text)
					_, err = p.Nearest(shared(20), qv[0])
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	storeDocs(t, m, docs, 20, 80)
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	search := searcher(t, claims)
	p := part(t, newIndexIn(t, db, papermem.DefaultIndexMaxBytes, dir), org)
	if p.Read() == 0 {
		t.Fatal("nothing read from the files")
	}
	fresh := search(part(t, newIndex(t, db, papermem.DefaultIndexMaxBytes), org))
	if got := search(p); !cmp.Equal(fresh, got) {
		t.Fatalf("(-from the database +from the files):\n%s", cmp.Diff(fresh, got))
	}
}
