package papermem_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

var ctx = context.Background()

func mustOpen(tb testing.TB) *papermem.Memory {
	tb.Helper()
	return testutil.Open(tb, nil)
}

// The tests' paper and how they store one (internal/testutil).
var (
	mustStore = testutil.MustStore
	vitaminD  = testutil.VitaminD
)

func TestOpenReopenKeepsData(t *testing.T) {
	path := testdb.Path(t)
	if !testdb.Postgres() {
		path = filepath.Join(filepath.Dir(path), "sub", "pm.db") // Open makes the directory
	}
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustStore(t, m, vitaminD)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m2, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	ok, err := m2.PaperExists(ctx, "10.1000/vitd")
	if err != nil || !ok {
		t.Fatalf("PaperExists after reopen = %v, %v", ok, err)
	}
	res, err := m2.Recall(ctx, papermem.RecallRequest{Question: "does vitamin D prevent fractures"})
	if err != nil || len(res.Spans) == 0 {
		t.Fatalf("Recall after reopen = %+v, %v", res, err)
	}
}

func TestOpenRefusesOtherEmbedder(t *testing.T) {
	path := testdb.Path(t)
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustStore(t, m, vitaminD)
	m.Close()

	other := papermem.NewHashEmbedder(256)
	if _, err := papermem.Open(ctx, path, &papermem.Options{Embedder: other}); papermem.ErrorCode(err) != papermem.ECONFLICT {
		t.Fatalf("Open with another embedder: err = %v, want ECONFLICT", err)
	}
	m2, err := papermem.Open(ctx, path, &papermem.Options{Embedder: other, Reindex: true})
	if err != nil {
		t.Fatalf("Open with Reindex: %v", err)
	}
	defer m2.Close()
	res, err := m2.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture", Retrieval: papermem.RetrievalVector})
	if err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != papermem.NormalizeDOI(vitaminD.DOI) {
		t.Fatalf("vector recall after reindex = %+v, %v; want the vitamin D paper's spans", res, err)
	}
}

// TestWriteAfterReindexElsewhere opens a second Memory on the same
// database with another embedder and Options.Reindex while the first is
// still open (a rolling change of embedder across servers): the first's
// writes are then refused with EUNAVAILABLE and store nothing, so that no
// workspace holds vectors of two embedders, the second's succeed, and once
// it has stored a vector the first's searches fail with EUNAVAILABLE too.
func TestWriteAfterReindexElsewhere(t *testing.T) {
	path := testdb.Path(t)
	old, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	mustStore(t, old, vitaminD)
	other := papermem.NewHashEmbedder(256)
	m, err := papermem.Open(ctx, path, &papermem.Options{Embedder: other, Reindex: true})
	if err != nil {
		t.Fatalf("Open with Reindex: %v", err)
	}
	defer m.Close()

	late := papermem.PaperInput{DOI: "10.1000/late", Title: "Sleep and memory", Text: "Sleep consolidated memory in adults over 70 years."}
	_, _, err = old.StorePaper(ctx, late)
	if papermem.ErrorCode(err) != papermem.EUNAVAILABLE || !strings.Contains(err.Error(), other.Name()) {
		t.Fatalf("StorePaper on the server with the old embedder: err = %v, want EUNAVAILABLE naming %s", err, other.Name())
	}
	if _, err := old.Remember(ctx, "ada", papermem.NoteInput{Text: "Prefers short summaries."}); papermem.ErrorCode(err) != papermem.EUNAVAILABLE {
		t.Fatalf("Remember on the server with the old embedder: err = %v, want EUNAVAILABLE", err)
	}
	if ok, err := m.PaperExists(ctx, late.DOI); err != nil || ok {
		t.Fatalf("PaperExists(%s) after the refused write = %v, %v; want false", late.DOI, ok, err)
	}
	mustStore(t, m, late)
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "sleep memory consolidation", Retrieval: papermem.RetrievalVector, Label: papermem.LabelAny})
	if err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != late.DOI {
		t.Fatalf("vector recall after reindex = %+v, %v; want %s's spans first", res, err, late.DOI)
	}
	// The old server cannot search the new vectors: it says so rather than
	// failing as an internal error.
	if _, err := old.Recall(ctx, papermem.RecallRequest{Question: "sleep memory"}); papermem.ErrorCode(err) != papermem.EUNAVAILABLE {
		t.Fatalf("Recall on the server with the old embedder: err = %v, want EUNAVAILABLE", err)
	}
	if _, err := old.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "sleep memory"}); papermem.ErrorCode(err) != papermem.EUNAVAILABLE {
		t.Fatalf("RecallPapers on the server with the old embedder: err = %v, want EUNAVAILABLE", err)
	}
}

func TestInMemoryDatabase(t *testing.T) {
	m, err := papermem.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.StorageMode() != "memory" {
		t.Errorf("StorageMode = %q", m.StorageMode())
	}
	mustStore(t, m, vitaminD)
	if ok, _ := m.PaperExists(ctx, vitaminD.DOI); !ok {
		t.Error("paper not found in memory database")
	}
}

// TestSync checks that Health reports Options.Sync (the store's
// TestOpenSync checks the pragma on every connection) and that another
// value is refused.
func TestSync(t *testing.T) {
	for _, tc := range []struct {
		sync, want string
	}{{"", "normal"}, {papermem.SyncNormal, "normal"}, {papermem.SyncFull, "full"}} {
		t.Run(tc.want, func(t *testing.T) {
			m := testutil.Open(t, &papermem.Options{Sync: tc.sync})
			var storage string
			for _, c := range m.Health(ctx).Components {
				if c.Name == "storage" {
					storage = c.Detail
				}
			}
			if !strings.Contains(storage, "synchronous "+tc.want) {
				t.Errorf("storage health %q, want synchronous %s", storage, tc.want)
			}
		})
	}
	t.Run("ErrInvalid", func(t *testing.T) {
		_, err := papermem.Open(ctx, testdb.Path(t), &papermem.Options{Sync: "off"})
		if papermem.ErrorCode(err) != papermem.EINVALID {
			t.Fatalf("err %v, want EINVALID", err)
		}
	})
}

// TestTextWithNUL stores and looks up text with a NUL character: SQLite
// keeps it; PostgreSQL cannot, and both a write and a read carrying it are
// EINVALID, never internal, leaving the workspace usable.
func TestTextWithNUL(t *testing.T) {
	w := mustOpen(t).Workspace("lab")
	_, _, err := w.StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/nul", Title: "a\x00b"})
	_, lookupErr := w.Graph(ctx, "s\x00", 1)
	if testdb.Postgres() {
		for _, err := range []error{err, lookupErr} {
			if papermem.ErrorCode(err) != papermem.EINVALID || !strings.Contains(papermem.ErrorMessage(err), "NUL") {
				t.Fatalf("PostgreSQL: %v (%s), want EINVALID naming NUL", err, papermem.ErrorCode(err))
			}
		}
	} else if err != nil || papermem.ErrorCode(lookupErr) != papermem.ENOTFOUND {
		t.Fatalf("SQLite: store %v, lookup %v", err, lookupErr)
	}
	mustStore(t, w, vitaminD)
}
