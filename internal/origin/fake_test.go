package origin_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/origin"
)

const contact = "team@example.org"

// Answers of the three services for the DOI 10.1000/xyz.1, in their
// documented shapes.
const (
	crossrefXYZ = `{"status":"ok","message-type":"work","message-version":"1.0.0","message":{
		"DOI":"10.1000/XYZ.1",
		"title":["Deep <i>learning</i> for  cats &amp; dogs"],
		"author":[{"given":"Ada","family":"Lovelace","sequence":"first"},{"name":"The Cat Consortium","sequence":"additional"}],
		"issued":{"date-parts":[[2020,5,1]]},
		"published-print":{"date-parts":[[2019]]},
		"container-title":["Journal of Cats"],
		"type":"journal-article",
		"license":[{"URL":"http://tdm.example/am","content-version":"am"},{"URL":"https://creativecommons.org/licenses/by/4.0/","content-version":"vor"}],
		"score":1}}`
	unpaywallXYZ = `{"doi":"10.1000/xyz.1","is_oa":true,
		"best_oa_location":{"url":"https://repo.example/xyz","url_for_pdf":"https://repo.example/xyz.pdf","license":"cc-by"},
		"oa_locations":[{"url_for_pdf":"https://repo.example/xyz.pdf"},{"url":"https://other.example/landing","url_for_pdf":null},{"url_for_pdf":"https://mirror.example/xyz.pdf"}],
		"title":"Deep learning for cats and dogs (Unpaywall)","year":2021,"journal_name":"J. Cats","genre":"journal-article",
		"z_authors":[{"given":"Ada","family":"Lovelace"},{"raw_author_name":"Cat Consortium"}]}`
	openalexXYZ = `{"id":"https://openalex.org/W1","doi":"https://doi.org/10.1000/xyz.1",
		"title":"Deep learning for cats and dogs (OpenAlex)","display_name":"Deep learning for cats and dogs (OpenAlex)",
		"publication_year":2020,"authorships":[{"author":{"display_name":"Ada Lovelace"}},{"author":{"display_name":"Cat Consortium"}}],
		"primary_location":{"source":{"display_name":"Journal of Cats"},"license":null},
		"open_access":{"is_oa":true,"oa_url":"https://landing.example/xyz"},
		"best_oa_location":{"pdf_url":"https://oa.example/xyz.pdf","license":"cc-by-nc"},
		"is_retracted":true,"type":"article","type_crossref":"journal-article"}`
)

// fake serves the three services under /crossref, /unpaywall and
// /openalex of one httptest server, counts and records their requests,
// and answers 404 for a service without a handler.
type fake struct {
	srv *httptest.Server

	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	reqs     map[string][]*http.Request
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{handlers: map[string]http.HandlerFunc{}, reqs: map[string][]*http.Request{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		r.URL.Path = "/" + rest
		r.URL.RawPath = ""
		f.mu.Lock()
		f.reqs[name] = append(f.reqs[name], r.Clone(context.Background()))
		h := f.handlers[name]
		f.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// handle sets service's handler.
func (f *fake) handle(service string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[service] = h
}

// hits is how many requests service received.
func (f *fake) hits(service string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs[service])
}

// requests are the requests service received.
func (f *fake) requests(service string) []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs[service]...)
}

// options are the tests' defaults: the fake's services, the contact
// address, and short waits.
func (f *fake) options() origin.Options {
	return origin.Options{
		CrossrefURL:  f.srv.URL + "/crossref",
		UnpaywallURL: f.srv.URL + "/unpaywall/", // the trailing slash is trimmed
		OpenAlexURL:  f.srv.URL + "/openalex",
		ArxivURL:     "https://arxiv.example",
		Contact:      contact,
		Timeout:      2 * time.Second,
		Retries:      2,
		Backoff:      time.Millisecond,
		Logger:       slog.New(slog.DiscardHandler),
	}
}

// answer returns a handler writing body with status 200.
func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}
}

// status returns a handler answering code.
func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}
}

// then returns a handler answering with the first handler the first n
// times and the second afterwards.
func then(n int, first, second http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	calls := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		c := calls
		mu.Unlock()
		if c <= n {
			first(w, r)
			return
		}
		second(w, r)
	}
}

// memCache is an in-memory origin.Cache.
type memCache struct {
	mu   sync.Mutex
	m    map[string][]byte
	gets int
	fail bool // Get and Put fail
}

func (c *memCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	if c.fail {
		return nil, false, errors.New("cache down")
	}
	b, ok := c.m[key]
	return b, ok, nil
}

func (c *memCache) Put(_ context.Context, key string, body []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail {
		return errors.New("cache down")
	}
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[key] = append([]byte(nil), body...)
	return nil
}

func (c *memCache) keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var k []string
	for key := range c.m {
		k = append(k, key)
	}
	return k
}
