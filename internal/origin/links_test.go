package origin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/internal/origin"
	"github.com/papermem/papermem/internal/testutil"
)

func graphClient(g *testutil.Graph, cache origin.Cache) *origin.Client {
	return origin.New(origin.Options{OpenAlexURL: g.OpenAlexURL(), CrossrefURL: g.CrossrefURL(), UnpaywallURL: g.UnpaywallURL(),
		Contact: contact, Retries: -1, Cache: cache})
}

func TestLinksOpenAlex(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	c := graphClient(g, nil)
	l, err := c.Links(context.Background(), "doi:10.1000/A", origin.LinkLimits{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := &origin.Links{
		References: []origin.LinkedWork{
			{DOI: "10.1000/g3", OpenAlexID: "W3", Title: "The much-cited trial", Year: 2010},
			{DOI: "10.1000/g4", OpenAlexID: "W4", Title: "A cohort study", Year: 2012},
			{DOI: "10.1000/g5", OpenAlexID: "W5", Title: "A small study", Year: 2013},
			{OpenAlexID: "W9", Title: "A report without a DOI", Year: 2001},
		},
		Citers:         []origin.LinkedWork{{DOI: "10.1000/d", OpenAlexID: "W8", Title: "Paper D, a review", Year: 2023}},
		ReferencesFrom: "openalex", CitersFrom: "openalex", ReferencesTotal: 4, CitersTotal: 1,
	}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("links of A (-want +got):\n%s", d)
	}
	for _, r := range g.Requests() {
		if !strings.Contains(r, "mailto=team%40example.org") {
			t.Errorf("request without the contact address: %s", r)
		}
	}
	var batch, cites bool
	for _, r := range g.Requests() {
		batch = batch || strings.Contains(r, "filter=openalex%3AW3%7CW4%7CW5%7CW9")
		cites = cites || strings.Contains(r, "filter=cites%3AW1") && strings.Contains(r, "cursor=%2A")
	}
	if !batch || !cites {
		t.Errorf("no batched openalex: filter (%v) or cursor-paged cites: filter (%v) in %q", batch, cites, g.Requests())
	}
}

func TestLinksCrossrefFallback(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	l, err := graphClient(g, nil).Links(context.Background(), "10.1000/e", origin.LinkLimits{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := &origin.Links{
		References: []origin.LinkedWork{
			{DOI: "10.1000/g3", OpenAlexID: "W3", Title: "The much-cited trial", Year: 2010},
			{DOI: "10.1000/g4", OpenAlexID: "W4", Title: "A cohort study", Year: 2012},
			{Text: "Smith J. An old book on bones. Oxford, 1970."},
		},
		ReferencesFrom: "crossref", ReferencesTotal: 3,
	}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("links of E (-want +got):\n%s", d)
	}
	if _, err := graphClient(g, nil).Links(context.Background(), "10.1000/nobody", origin.LinkLimits{}, false); !errors.Is(err, origin.ErrNotFound) {
		t.Errorf("unknown DOI: %v, want ErrNotFound", err)
	}
	if _, err := graphClient(g, nil).Links(context.Background(), "not a doi", origin.LinkLimits{}, false); !errors.Is(err, origin.ErrInvalid) {
		t.Errorf("not a DOI: %v, want ErrInvalid", err)
	}
	g.Fail(500)
	if _, err := graphClient(g, nil).Links(context.Background(), "10.1000/a", origin.LinkLimits{}, false); !errors.Is(err, origin.ErrUpstream) {
		t.Errorf("failing OpenAlex: %v, want ErrUpstream", err)
	}
}

// TestLinksPaging reads 250 citing works through cursor pages of 100 and
// stops at the bound.
func TestLinksPaging(t *testing.T) {
	works := []testutil.GraphWork{{ID: "W1", DOI: "10.1000/hub", Title: "Hub"}}
	for i := range 250 {
		works = append(works, testutil.GraphWork{ID: fmt.Sprintf("W%d", 100+i), DOI: fmt.Sprintf("10.1000/c%d", i), Title: "Citer", Cites: []string{"W1"}})
	}
	g := testutil.FakeGraph(t, works...)
	cache := &memCache{}
	l, err := graphClient(g, cache).Links(context.Background(), "10.1000/hub", origin.LinkLimits{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Citers) != 250 || l.CitersTotal != 250 || l.Citers[249].DOI != "10.1000/c249" {
		t.Fatalf("read %d citers of %d, last %+v; want 250", len(l.Citers), l.CitersTotal, l.Citers[len(l.Citers)-1])
	}
	before := len(g.Requests())
	l, err = graphClient(g, cache).Links(context.Background(), "10.1000/hub", origin.LinkLimits{MaxCiters: 120}, false)
	if err != nil || len(l.Citers) != 120 || l.CitersTotal != 250 {
		t.Fatalf("bounded to 120: %d citers of %d, %v", len(l.Citers), l.CitersTotal, err)
	}
	if n := len(g.Requests()) - before; n != 1 {
		// The first page of 100 is in the cache; the second, of 20, is not.
		t.Errorf("bounded read made %d requests, want 1", n)
	}
}

// FuzzLinks serves one body to every request Links makes (OpenAlex's
// work and lists, Crossref's record) and checks that any answer gives
// links or an error, never a panic, and no work without a key of some
// kind or more links than the bounds.
func FuzzLinks(f *testing.F) {
	for _, seed := range []string{
		`{"id":"https://openalex.org/W1","referenced_works":["https://openalex.org/W2","W3","x"],"cited_by_count":2}`,
		`{"meta":{"count":3,"next_cursor":"abc"},"results":[{"id":"https://openalex.org/W2","doi":"https://doi.org/10.1/x","display_name":"T","publication_year":2020}]}`,
		`{"status":"ok","message":{"DOI":"10.1/e","reference":[{"DOI":"10.1/A","year":"20x"},{"unstructured":"  Smith  1970 "},{"article-title":"<i>T</i>"}]}}`,
		`{"id":"W1","results":[],"meta":{"next_cursor":null}}`, `null`, `[]`, `{"id":""}`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, body)
		}))
		defer srv.Close()
		c := origin.New(origin.Options{OpenAlexURL: srv.URL, CrossrefURL: srv.URL, UnpaywallURL: srv.URL, Retries: -1})
		l, err := c.Links(context.Background(), "10.1/fuzz", origin.LinkLimits{MaxReferences: 5, MaxCiters: 5}, false)
		if err != nil {
			return
		}
		if len(l.References) > 5 || len(l.Citers) > 5 {
			t.Fatalf("over the bounds: %d references, %d citers", len(l.References), len(l.Citers))
		}
		for _, w := range append(l.References, l.Citers...) {
			if w.DOI == "" && w.OpenAlexID == "" && w.Title == "" && w.Text == "" {
				t.Fatalf("a work with nothing to show: %+v", w)
			}
		}
	})
}

// TestLinksPagingFails checks that a page of citing works after the
// first that fails ends the paging with what was read, and the count
// OpenAlex gave, instead of failing the links.
func TestLinksPagingFails(t *testing.T) {
	f := newFake(t)
	f.handle("openalex", func(w http.ResponseWriter, r *http.Request) {
		switch q := r.URL.Query(); {
		case strings.HasPrefix(r.URL.Path, "/works/doi:"):
			answer(`{"id":"https://openalex.org/W1","doi":"https://doi.org/10.1000/hub","display_name":"Hub"}`)(w, r)
		case q.Get("filter") == "cites:W1" && q.Get("cursor") == "*":
			answer(`{"meta":{"count":150,"next_cursor":"page2"},"results":[{"id":"https://openalex.org/W2","doi":"https://doi.org/10.1000/c2","display_name":"Citer","publication_year":2020}]}`)(w, r)
		default:
			status(http.StatusInternalServerError)(w, r)
		}
	})
	o := f.options()
	o.Retries = -1
	var logs testutil.Buffer
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c := origin.New(o)
	// Read twice (fresh, past the cache): the second failure, the same
	// while it lasts, is not logged again.
	for _, fresh := range []bool{false, true} {
		l, err := c.Links(context.Background(), "10.1000/hub", origin.LinkLimits{}, fresh)
		if err != nil {
			t.Fatal(err)
		}
		want := []origin.LinkedWork{{DOI: "10.1000/c2", OpenAlexID: "W2", Title: "Citer", Year: 2020}}
		if d := cmp.Diff(want, l.Citers); d != "" || l.CitersTotal != 150 || l.CitersFrom != "openalex" {
			t.Errorf("citers when the second page fails (-want +got):\n%s\ntotal %d, from %q", d, l.CitersTotal, l.CitersFrom)
		}
	}
	if n := strings.Count(logs.String(), "paging citing works ended early"); n != 1 {
		t.Errorf("%d warnings for the same failure, want one:\n%s", n, logs.String())
	}
	var second bool
	for _, r := range f.requests("openalex") {
		second = second || r.URL.Query().Get("cursor") == "page2"
	}
	if !second {
		t.Error("the second page was never asked for")
	}
}
