package dashboard_test

import (
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestImportsPage(t *testing.T) {
	s := newSite(t, false)
	if _, body := s.get("/dashboard/imports"); !strings.Contains(section(body, "imports"), "No imports yet.") {
		t.Fatalf("empty imports table: %.500s", section(body, "imports"))
	}
	var body strings.Builder
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", s.csrf())
	fw, _ := mw.CreateFormFile("file", "My Library.bib")
	io.WriteString(fw, "@article{k1, title = {Fjord circulation survey}, doi = {10.1000/fjord}, keywords = {fjords}}\n@book{k2, title = {Tidal glaciers}}\n")
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/dashboard/imports", strings.NewReader(body.String()))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", s.srv.URL)
	res := s.do(req)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/imports?started=") {
		t.Fatalf("import: %d to %q", res.StatusCode, loc)
	}
	var table string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, page := s.get(loc)
		if table = section(page, "imports"); strings.Contains(table, "done") {
			break
		}
	}
	for _, want := range []string{"My Library.bib", "bibtex", "done", `class="new"`, `<progress value="2" max="2">`} {
		if !strings.Contains(table, want) {
			t.Errorf("imports table lacks %q: %s", want, table)
		}
	}
	// A Zotero form without a key is refused.
	res = s.post("/dashboard/imports", url.Values{"csrf": {s.csrf()}, "library": {"users/1"}}, "")
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a Zotero import without a key: %d", res.StatusCode)
	}
	if res := s.post("/dashboard/imports", url.Values{"library": {"users/1"}, "api_key": {"k"}}, ""); res.StatusCode != http.StatusForbidden {
		t.Errorf("a form without its CSRF token: %d", res.StatusCode)
	}
}
