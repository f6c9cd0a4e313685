package testutil

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
)

// OriginWork is a work the fake origins know of.
type OriginWork struct {
	DOI, Title, Journal string
	Authors             []string // "Given Family"
	Year                int
	OA                  bool
	PDF                 string // path of the open-access PDF under the fake's /files/, "" for none
	RetractedBy         string // DOI of a retraction notice, "" for none
}

// Origins is a fake of Crossref, Unpaywall, OpenAlex and arXiv on one
// httptest server, answering in the services' documented formats. Fail,
// when set to a status, makes every answer that status. Requests records
// each request's path and query.
type Origins struct {
	URL string

	mu       sync.Mutex
	works    map[string]OriginWork
	files    map[string][]byte
	fail     int
	failPath string // Fail applies to paths with this prefix only ("": all)
	requests []string
}

// FakeOrigins starts the fake with works; PDFs named in them are read
// from files (path under /files/ → file on disk). It closes when the test
// ends.
func FakeOrigins(tb testing.TB, files map[string]string, works ...OriginWork) *Origins {
	tb.Helper()
	o := &Origins{works: map[string]OriginWork{}, files: map[string][]byte{}}
	for _, w := range works {
		o.works[strings.ToLower(w.DOI)] = w
	}
	for name, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		o.files[name] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(o.serve))
	tb.Cleanup(srv.Close)
	o.URL = srv.URL
	return o
}

// Fail makes every later answer status (0: answer normally), with
// Retry-After: 0.
func (o *Origins) Fail(status int) { o.FailPath("", status) }

// FailPath is Fail for the requests whose path begins with prefix alone
// ("/works" is Crossref and OpenAlex, "/v2/" Unpaywall).
func (o *Origins) FailPath(prefix string, status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fail, o.failPath = status, prefix
}

// SetWork adds or replaces a work.
func (o *Origins) SetWork(w OriginWork) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.works[strings.ToLower(w.DOI)] = w
}

// Requests returns the requests made so far, as "path?query".
func (o *Origins) Requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.requests...)
}

func (o *Origins) serve(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.requests = append(o.requests, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	fail := o.fail
	if !strings.HasPrefix(r.URL.Path, o.failPath) {
		fail = 0
	}
	o.mu.Unlock()
	if fail != 0 {
		w.Header().Set("Retry-After", "0") // retried at once: tests do not wait out backoffs
		http.Error(w, "failing", fail)
		return
	}
	path, _ := url.PathUnescape(r.URL.EscapedPath())
	switch {
	case strings.HasPrefix(path, "/files/"), strings.HasPrefix(path, "/pdf/"):
		body, ok := o.files[strings.TrimPrefix(strings.TrimPrefix(path, "/files/"), "/pdf/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(body)
	case path == "/works":
		o.search(w, r.URL.Query().Get("query.bibliographic"))
	case strings.HasPrefix(path, "/works/doi:"):
		o.openAlex(w, r, strings.TrimPrefix(path, "/works/doi:"))
	case strings.HasPrefix(path, "/works/"):
		o.crossref(w, r, strings.TrimPrefix(path, "/works/"))
	case strings.HasPrefix(path, "/v2/"):
		o.unpaywall(w, r, strings.TrimPrefix(path, "/v2/"))
	default:
		http.NotFound(w, r)
	}
}

func (o *Origins) work(doi string) (OriginWork, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	wk, ok := o.works[strings.ToLower(doi)]
	return wk, ok
}

func crossrefItem(wk OriginWork, score float64) map[string]any {
	var authors []map[string]string
	for _, a := range wk.Authors {
		given, family, _ := strings.Cut(a, " ")
		authors = append(authors, map[string]string{"given": given, "family": family})
	}
	item := map[string]any{"DOI": wk.DOI, "title": []string{wk.Title}, "author": authors,
		"issued": map[string]any{"date-parts": [][]int{{wk.Year, 3, 1}}}, "container-title": []string{wk.Journal},
		"type": "journal-article", "score": score}
	if wk.RetractedBy != "" {
		item["updated-by"] = []map[string]any{{"DOI": wk.RetractedBy, "type": "retraction", "label": "Retraction",
			"updated": map[string]any{"date-parts": [][]int{{wk.Year + 1, 2, 3}}}}}
	}
	return item
}

func (o *Origins) crossref(w http.ResponseWriter, r *http.Request, doi string) {
	wk, ok := o.work(doi)
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, map[string]any{"status": "ok", "message-type": "work", "message": crossrefItem(wk, 1)})
}

func (o *Origins) search(w http.ResponseWriter, title string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	items := []map[string]any{}
	for _, wk := range o.works {
		if strings.EqualFold(wk.Title, title) {
			items = append(items, crossrefItem(wk, 90))
		}
	}
	writeJSON(w, map[string]any{"status": "ok", "message-type": "work-list", "message": map[string]any{"items": items}})
}

func (o *Origins) unpaywall(w http.ResponseWriter, r *http.Request, doi string) {
	wk, ok := o.work(doi)
	if !ok {
		http.NotFound(w, r)
		return
	}
	out := map[string]any{"doi": wk.DOI, "is_oa": wk.OA, "best_oa_location": nil, "oa_locations": []any{}}
	if wk.PDF != "" {
		loc := map[string]any{"url_for_pdf": o.URL + "/files/" + wk.PDF, "url": o.URL + "/files/" + wk.PDF}
		out["best_oa_location"], out["oa_locations"] = loc, []any{loc}
	}
	writeJSON(w, out)
}

func (o *Origins) openAlex(w http.ResponseWriter, r *http.Request, doi string) {
	wk, ok := o.work(doi)
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, map[string]any{"id": "https://openalex.org/W1", "doi": "https://doi.org/" + wk.DOI, "title": wk.Title,
		"display_name": wk.Title, "publication_year": wk.Year, "is_retracted": wk.RetractedBy != "",
		"open_access": map[string]any{"is_oa": wk.OA}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		panic(fmt.Sprint("fake origins: ", err))
	}
}

// BlackHole is a loopback origin that accepts connections and never
// answers (a firewall that drops): its base URL, "http://127.0.0.1:port".
// It and the connections it holds are closed when the test ends.
func BlackHole(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	tb.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	return "http://" + l.Addr().String()
}
