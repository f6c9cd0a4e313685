package httpapi_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/internal/zotero/zoterotest"
)

const zoteroKey = "zk-Qm7Hc2Lx9Tq4Vb8N"

// waitImport polls GET /v1/imports/{id} until the import is over.
func (e *env) waitImport(hdr []string, id int64) papermem.Import {
	e.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		r := e.do("GET", fmt.Sprintf("/v1/imports/%d", id), nil, hdr...)
		want(e.t, r, http.StatusOK, "")
		var im papermem.Import
		r.json(e.t, &im)
		if im.Status != papermem.ImportRunning {
			return im
		}
	}
	e.t.Fatal("the import did not end")
	return papermem.Import{}
}

func TestImports(t *testing.T) {
	lib := zoterotest.New("users/4242", zoteroKey)
	srv := lib.Start()
	t.Cleanup(srv.Close)
	lib.Put("COLL0001", map[string]any{"itemType": "collection", "name": "Reading group"})
	lib.Put("ART00001", map[string]any{"itemType": "journalArticle", "title": "Sea ice albedo feedback", "DOI": "10.1000/seaice",
		"date": "2022", "tags": []map[string]any{{"tag": "arctic"}}, "collections": []string{"COLL0001"}})
	lib.PutFile("PDF00001", testutil.PDF("Sea ice albedo feedback", "Melting sea ice darkens the Arctic Ocean, which absorbs more sunlight and warms further."),
		map[string]any{"parentItem": "ART00001"})
	lib.Put("ART00002", map[string]any{"itemType": "report", "title": "Fjord circulation survey", "date": "2019"})
	lib.Put("NOTE0001", map[string]any{"itemType": "note", "note": "todo"})

	e := newEnv(t, httpapi.Config{}, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: srv.URL}})
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	lib.Throttle(2)
	r := e.do("POST", "/v1/imports", map[string]any{"source": "zotero", "library": "users/4242", "api_key": zoteroKey}, a.auth()...)
	want(t, r, http.StatusAccepted, "")
	var started papermem.Import
	r.json(t, &started)
	if started.ID == 0 || started.Status != papermem.ImportRunning {
		t.Fatalf("started %s", r.body)
	}
	im := e.waitImport(a.auth(), started.ID)
	if im.Status != papermem.ImportDone || im.Papers != 2 || im.Documents != 1 || im.Items != 4 || im.Skipped != 2 || len(im.Errors) != 0 {
		t.Fatalf("import %+v", im)
	}

	t.Run("Papers", func(t *testing.T) {
		r := e.do("GET", "/v1/papers/10.1000/seaice", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var p api.PaperResponse
		r.json(t, &p)
		if p.Title != "Sea ice albedo feedback" || p.Year != 2022 || len(p.Tags) != 1 || p.Tags[0] != "arctic" ||
			len(p.Collections) != 1 || p.Collections[0] != "Reading group" || p.Source != "zotero:users/4242" {
			t.Errorf("paper %s", r.body)
		}
		r = e.do("GET", "/v1/papers?collection=Reading+group", nil, a.auth()...)
		var page api.PapersResponse
		r.json(t, &page)
		if len(page.Papers) != 1 {
			t.Errorf("papers of the collection: %s", r.body)
		}
		q := map[string]any{"question": "Why does melting sea ice warm the Arctic further?", "label": "Passage", "collections": []string{"Reading group"}}
		r = e.do("POST", "/v1/recall", q, a.auth()...)
		want(t, r, http.StatusOK, "")
		var res papermem.RecallResult
		r.json(t, &res)
		if len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/seaice" {
			t.Errorf("recall %s", r.body)
		}
		q["tags"] = []string{"nowhere"}
		r = e.do("POST", "/v1/recall", q, a.auth()...)
		r.json(t, &res)
		if len(res.Spans) != 0 {
			t.Errorf("recall scoped to an unknown tag: %s", r.body)
		}
		want(t, e.do("POST", "/v1/recall", map[string]any{"question": "x", "tags": []string{" "}}, a.auth()...), http.StatusBadRequest, "invalid_input")
		r = e.do("GET", "/v1/papers/recall?q=sea+ice+albedo&tags=arctic", nil, a.auth()...)
		var ps []papermem.Paper
		r.json(t, &ps)
		if len(ps) != 1 {
			t.Errorf("papers recalled within tag arctic: %s", r.body)
		}
	})
	t.Run("OtherWorkspace", func(t *testing.T) {
		want(t, e.do("GET", fmt.Sprintf("/v1/imports/%d", im.ID), nil, b.auth()...), http.StatusNotFound, "not_found")
		r := e.do("GET", "/v1/imports", nil, b.auth()...)
		var list api.ImportsResponse
		r.json(t, &list)
		if len(list.Imports) != 0 {
			t.Errorf("another workspace lists %s", r.body)
		}
		want(t, e.do("GET", "/v1/papers/10.1000/seaice", nil, b.auth()...), http.StatusNotFound, "not_found")
	})
	t.Run("Deleted", func(t *testing.T) {
		lib.Delete("ART00001")
		r := e.do("POST", "/v1/imports", map[string]any{"source": "zotero", "library": "users/4242", "api_key": zoteroKey}, a.auth()...)
		want(t, r, http.StatusAccepted, "")
		var st papermem.Import
		r.json(t, &st)
		if im := e.waitImport(a.auth(), st.ID); im.Deleted != 1 || im.Items != 0 {
			t.Errorf("import after a deletion %+v", im)
		}
		want(t, e.do("GET", "/v1/papers/10.1000/seaice", nil, a.auth()...), http.StatusNotFound, "not_found")
	})
	t.Run("ErrWrongKey", func(t *testing.T) {
		r := e.do("POST", "/v1/imports", map[string]any{"source": "zotero", "library": "users/4242", "api_key": "zk-wrong-wrong-wrong"}, b.auth()...)
		want(t, r, http.StatusBadRequest, "invalid_input")
		if !strings.Contains(string(r.body), "refused the API key") {
			t.Errorf("message %s", r.body)
		}
		r = e.do("GET", "/v1/imports", nil, b.auth()...)
		var list api.ImportsResponse
		r.json(t, &list)
		r = e.do("GET", "/v1/papers", nil, b.auth()...)
		var page api.PapersResponse
		r.json(t, &page)
		if len(list.Imports) != 0 || len(page.Papers) != 0 {
			t.Errorf("a refused key left imports %v, papers %v", list.Imports, page.Papers)
		}
	})
	t.Run("ErrBadRequest", func(t *testing.T) {
		want(t, e.do("POST", "/v1/imports", map[string]any{"source": "zotero-local"}, a.auth()...), http.StatusBadRequest, "invalid_input")
		want(t, e.do("POST", "/v1/imports", map[string]any{"source": "zotero", "library": "me", "api_key": "k"}, a.auth()...), http.StatusBadRequest, "invalid_input")
		want(t, e.do("GET", "/v1/imports/x", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
		want(t, e.do("GET", "/v1/imports/99999", nil, a.auth()...), http.StatusNotFound, "not_found")
		want(t, e.do("GET", "/v1/imports", nil), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("Upload", func(t *testing.T) {
		bib := "@article{k1, title = {Fjord circulation survey}, year = {2019}, keywords = {fjords}, file = {files/1/f.pdf}}\n" +
			"@article{k2, title = {Tidal glaciers}, doi = {10.1000/tidal}}\n"
		r := e.importFile(b.auth(), "My Library.bib", []byte(bib))
		want(t, r, http.StatusAccepted, "")
		var st papermem.Import
		r.json(t, &st)
		im := e.waitImport(b.auth(), st.ID)
		if im.Status != papermem.ImportDone || im.Papers != 2 || im.Documents != 0 || im.Source != "bibtex" || im.Library != "My Library.bib" {
			t.Errorf("upload import %+v", im)
		}
		want(t, e.importFile(b.auth(), "lib.bib", []byte("@article{x, title = {open")), http.StatusBadRequest, "invalid_input")
		want(t, e.importFile(b.auth(), "lib.pdf", []byte("%PDF")), http.StatusUnsupportedMediaType, "unsupported_format")
	})

	// The key is in no answer and not in the log.
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, body := range append(e.bodies, e.log.String()) {
		if strings.Contains(body, zoteroKey) || strings.Contains(body, "zk-wrong") {
			t.Errorf("a Zotero key in an answer or the log: %.300s", body)
		}
	}
}

// importFile uploads an export file to POST /v1/imports.
func (e *env) importFile(hdr []string, name string, data []byte) resp {
	e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, err := mw.CreateFormFile("file", name)
	if err != nil {
		e.t.Fatal(err)
	}
	w.Write(data)
	mw.Close()
	return e.post("/v1/imports", mw.FormDataContentType(), &body, hdr)
}
