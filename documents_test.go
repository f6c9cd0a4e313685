package papermem_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
)

func TestDocuments(t *testing.T) {
	m := mustOpen(t)
	ws := m.Workspace("lab")
	var ids []string
	for _, f := range []struct{ name, text, domain string }{
		{"notes.md", "# Lab notes\n\nThe centrifuge runs at 4 °C.", "lab"},
		{"plan.txt", "Order reagents on Monday.", ""},
	} {
		rep, err := ws.IngestFile(ctx, f.name, strings.NewReader(f.text), papermem.IngestOptions{Domain: f.domain})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rep.DocID)
	}
	// A file with a DOI is a paper, not a document.
	if _, err := ws.IngestFile(ctx, "paper.md", strings.NewReader("# A trial\n\nVitamin D did not prevent fractures."),
		papermem.IngestOptions{DOI: "10.1000/trial"}); err != nil {
		t.Fatal(err)
	}
	mustStore(t, m.Workspace("other"), papermem.PaperInput{DOI: "10.1000/x", Title: "X", Text: "X."})
	if _, err := m.Workspace("other").IngestFile(ctx, "other.md", strings.NewReader("Another workspace's file."), papermem.IngestOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("OK", func(t *testing.T) {
		docs, err := ws.Documents(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range docs {
			if docs[i].CreatedAt == "" {
				t.Errorf("%s has no created_at", docs[i].ID)
			}
			docs[i].CreatedAt = ""
		}
		want := []papermem.Document{
			{ID: ids[1], Name: "plan.txt", Title: "Order reagents on Monday.", Format: "text", Bytes: 25},
			{ID: ids[0], Name: "notes.md", Title: "Lab notes", Format: "markdown", Domain: "lab", Bytes: 42},
		}
		if diff := cmp.Diff(want, docs); diff != "" {
			t.Errorf("documents (-want +got):\n%s", diff)
		}
	})
	t.Run("Limit", func(t *testing.T) {
		docs, err := ws.Documents(ctx, 1)
		if err != nil || len(docs) != 1 || docs[0].ID != ids[1] {
			t.Errorf("limit 1: %+v, %v", docs, err)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		docs, err := m.Workspace("empty").Documents(ctx, 0)
		if err != nil || docs == nil || len(docs) != 0 {
			t.Errorf("a workspace without documents: %#v, %v; want an empty list", docs, err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		if _, err := ws.Documents(ctx, papermem.MaxPaperLimit+1); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("limit over the maximum: %v, want EINVALID", err)
		}
	})
}
