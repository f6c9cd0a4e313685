package httpapi_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/httpapi"
)

func TestDocuments(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	r := e.upload(a.auth(), field("domain", "glaciology"), filePart(t, filepath.Join(fixtures, "sample.xlsx")))
	want(t, r, http.StatusCreated, "")
	var rep papermem.IngestReport
	r.json(t, &rep)
	// A file with a DOI is a paper, not a document.
	want(t, e.upload(a.auth(), filePart(t, filepath.Join(fixtures, "sample.pdf")), field("doi", "10.1000/glacier")), http.StatusCreated, "")

	t.Run("OK", func(t *testing.T) {
		r := e.do("GET", "/v1/documents", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var got api.DocumentsResponse
		r.json(t, &got)
		if got.Count != 1 || len(got.Documents) != 1 {
			t.Fatalf("documents %s", r.body)
		}
		d := got.Documents[0]
		if d.ID != rep.DocID || d.Name != "sample.xlsx" || d.Format != "xlsx" || d.Domain != "glaciology" || d.Title != "Alpine glacier survey" || d.Bytes == 0 {
			t.Errorf("document %+v, report %+v", d, rep)
		}
	})
	t.Run("OtherWorkspace", func(t *testing.T) {
		r := e.do("GET", "/v1/documents?limit=5", nil, b.auth()...)
		want(t, r, http.StatusOK, "")
		var got api.DocumentsResponse
		r.json(t, &got)
		if got.Count != 0 || got.Documents == nil {
			t.Errorf("another workspace's documents: %s, want an empty list", r.body)
		}
	})
	t.Run("ErrLimit", func(t *testing.T) {
		want(t, e.do("GET", "/v1/documents?limit=0", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("ErrUnauthorized", func(t *testing.T) {
		want(t, e.do("GET", "/v1/documents", nil), http.StatusUnauthorized, "unauthorized")
	})
}
