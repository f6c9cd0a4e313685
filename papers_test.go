package papermem_test

import (
	"testing"

	"github.com/papermem/papermem"
)

func TestPapers(t *testing.T) {
	m := mustOpen(t)
	w, other := m.Workspace("lab-a"), m.Workspace("lab-b")
	mustStore(t, w, vitaminD)
	mustStore(t, w, papermem.PaperInput{DOI: "10.1000/stub", Title: "A stub"})
	mustStore(t, other, papermem.PaperInput{DOI: "10.1000/elsewhere", Title: "Another workspace's"})

	t.Run("OK", func(t *testing.T) {
		ps, err := w.Papers(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 2 || ps[0].DOI != "10.1000/stub" || ps[1].DOI != "10.1000/vitd" || ps[0].Cached || !ps[1].Cached {
			t.Fatalf("papers %+v", ps)
		}
	})
	t.Run("Limit", func(t *testing.T) {
		if ps, err := w.Papers(ctx, 1); err != nil || len(ps) != 1 {
			t.Fatalf("%+v, %v", ps, err)
		}
	})
	t.Run("ErrLimit", func(t *testing.T) {
		if _, err := w.Papers(ctx, papermem.MaxPaperLimit+1); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Fatalf("err %v", err)
		}
	})
}

func TestPaperSections(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("lab-a")
	mustStore(t, w, vitaminD)

	t.Run("OK", func(t *testing.T) {
		ss, err := w.PaperSections(ctx, "10.1000/VITD")
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]bool{}
		claims := 0
		for _, s := range ss {
			types[s.Type] = true
			claims += len(s.Claims)
			if len(s.Passages) == 0 {
				t.Errorf("section %q has no passages", s.Title)
			}
		}
		if !types["abstract"] || !types["methods"] || !types["results"] || claims == 0 {
			t.Fatalf("sections %+v", ss)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := m.Workspace("lab-b").PaperSections(ctx, "10.1000/vitd"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		if _, err := w.PaperSections(ctx, "not a doi"); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Fatalf("err %v", err)
		}
	})
}
