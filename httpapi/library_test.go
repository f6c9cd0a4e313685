package httpapi_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/httpapi"
)

func TestPaperResource(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	for _, p := range []map[string]any{
		{"doi": "10.1000/one", "title": "Glacier retreat in the Alps", "authors": []string{"Ada Lovelace"}, "year": 2020},
		{"doi": "10.1000/two", "title": "Sea ice and albedo", "year": 2021},
		{"doi": "10.1000/three", "title": "Permafrost carbon", "year": 2022},
	} {
		want(t, e.do("POST", "/v1/papers", p, a.auth()...), http.StatusCreated, "")
	}

	t.Run("Get", func(t *testing.T) {
		r := e.do("GET", "/v1/papers/10.1000%2Fone", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var p api.PaperResponse
		r.json(t, &p)
		if p.DOI != "10.1000/one" || p.Title != "Glacier retreat in the Alps" || p.Year != 2020 || len(p.Authors) != 1 ||
			p.Tags == nil || p.Collections == nil || p.Source != "" {
			t.Errorf("paper %s", r.body)
		}
		want(t, e.do("GET", "/v1/papers/10.1000/one", nil, b.auth()...), http.StatusNotFound, "not_found")
		want(t, e.do("GET", "/v1/papers/not-a-doi", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("List", func(t *testing.T) {
		var got []string
		cursor := ""
		for range 3 {
			r := e.do("GET", "/v1/papers?limit=2&cursor="+cursor, nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			var page api.PapersResponse
			r.json(t, &page)
			for _, p := range page.Papers {
				got = append(got, p.DOI)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if len(got) != 3 || got[0] != "10.1000/three" || got[2] != "10.1000/one" {
			t.Errorf("pages hold %v, want the three papers newest first", got)
		}
		r := e.do("GET", "/v1/papers", nil, b.auth()...)
		var page api.PapersResponse
		r.json(t, &page)
		if len(page.Papers) != 0 {
			t.Errorf("another workspace lists %s", r.body)
		}
		want(t, e.do("GET", "/v1/papers?tag=none", nil, a.auth()...), http.StatusOK, "")
		want(t, e.do("GET", "/v1/papers?cursor=x", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
		want(t, e.do("GET", "/v1/papers?limit=101", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("Delete", func(t *testing.T) {
		want(t, e.do("DELETE", "/v1/papers/10.1000/two", nil, b.auth()...), http.StatusNotFound, "not_found")
		want(t, e.do("DELETE", "/v1/papers/10.1000/two", nil, a.auth()...), http.StatusOK, "")
		want(t, e.do("GET", "/v1/papers/10.1000/two", nil, a.auth()...), http.StatusNotFound, "not_found")
	})
}

func TestDeleteDocument(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	// bob's document first: ada's is doc:1 of her workspace, not its row's id.
	want(t, e.upload(b.auth(), filePart(t, filepath.Join(fixtures, "sample.csv"))), http.StatusCreated, "")
	r := e.upload(a.auth(), filePart(t, filepath.Join(fixtures, "sample.xlsx")))
	want(t, r, http.StatusCreated, "")
	var rep papermem.IngestReport
	r.json(t, &rep)
	recall := func() int {
		r := e.do("POST", "/v1/recall", map[string]any{"question": "alpine glacier survey", "label": "Any"}, a.auth()...)
		want(t, r, http.StatusOK, "")
		var res papermem.RecallResult
		r.json(t, &res)
		return len(res.Spans)
	}
	if recall() == 0 {
		t.Fatal("the document is not recalled before its deletion")
	}
	if rep.DocID != "doc:1" {
		t.Fatalf("ada's first document is %s, want doc:1", rep.DocID)
	}
	// doc:2 is the row id of ada's document, not its number: not found.
	want(t, e.do("DELETE", "/v1/documents/doc:2", nil, a.auth()...), http.StatusNotFound, "not_found")
	want(t, e.do("DELETE", "/v1/documents/doc:x", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	// Its number with a leading zero: the answer names it as documents lists it.
	r = e.do("DELETE", "/v1/documents/"+strings.Replace(rep.DocID, "doc:", "doc:0", 1), nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	var del api.DeletedResponse
	r.json(t, &del)
	if del.Deleted != rep.DocID {
		t.Errorf("deleted %q, want %q", del.Deleted, rep.DocID)
	}
	if n := recall(); n != 0 {
		t.Errorf("%d spans recalled after the deletion", n)
	}
	want(t, e.do("DELETE", "/v1/documents/"+rep.DocID, nil, a.auth()...), http.StatusNotFound, "not_found")
	r = e.do("GET", "/v1/documents", nil, b.auth()...)
	var docs api.DocumentsResponse
	r.json(t, &docs)
	if docs.Count != 1 {
		t.Errorf("bob's documents after ada's deletion: %s", r.body)
	}
}
