package testutil

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// GraphWork is a work of a made-up citation graph.
type GraphWork struct {
	ID    string // OpenAlex short id, "W1"; "" for a work OpenAlex does not know
	DOI   string // "" for a work without one
	Title string
	Year  int
	// Cites are the works it references, by ID (OpenAlex) or, for a work
	// only Crossref knows, by DOI.
	Cites []string
	// CrossrefOnly: OpenAlex does not know the work (404); Crossref
	// serves it, with its references as a reference list.
	CrossrefOnly bool
	// Unstructured are references without a DOI, in Crossref's list only.
	Unstructured []string
}

// Graph is a stand-in for OpenAlex (under /openalex) and Crossref (under
// /crossref) serving a made-up citation graph in their documented
// formats: OpenAlex works by DOI with referenced_works and cited_by_count,
// /works lists filtered by cites:, openalex: and doi: (values joined by
// "|"), paged with per-page and cursor; Crossref works with their
// reference list. Unpaywall (/unpaywall) answers 404. Fail makes every
// answer a status.
type Graph struct {
	URL string // the server's root

	mu       sync.Mutex
	works    []GraphWork
	fail     int
	delay    time.Duration
	requests []string
}

// FakeGraph starts the stand-in; it closes when the test ends.
func FakeGraph(tb testing.TB, works ...GraphWork) *Graph {
	tb.Helper()
	g := &Graph{works: works}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	tb.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// OpenAlexURL, CrossrefURL and UnpaywallURL are the services' bases.
func (g *Graph) OpenAlexURL() string  { return g.URL + "/openalex" }
func (g *Graph) CrossrefURL() string  { return g.URL + "/crossref" }
func (g *Graph) UnpaywallURL() string { return g.URL + "/unpaywall" }

// Fail makes every later answer status (0: answer normally).
func (g *Graph) Fail(status int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fail = status
}

// SetDelay makes every later answer wait d first, as a distant service's
// would.
func (g *Graph) SetDelay(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.delay = d
}

// SetWork adds a work or replaces the one with its ID and DOI.
func (g *Graph) SetWork(w GraphWork) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, o := range g.works {
		if o.ID == w.ID && strings.EqualFold(o.DOI, w.DOI) {
			g.works[i] = w
			return
		}
	}
	g.works = append(g.works, w)
}

// Requests returns the requests made so far, as "path?query".
func (g *Graph) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

func (g *Graph) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	delay := g.delay
	g.mu.Unlock()
	time.Sleep(delay)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	if g.fail != 0 {
		w.Header().Set("Retry-After", "0")
		http.Error(w, "failing", g.fail)
		return
	}
	path, _ := url.PathUnescape(r.URL.EscapedPath())
	switch {
	case strings.HasPrefix(path, "/openalex/works/doi:"):
		wk, ok := g.byDOI(strings.TrimPrefix(path, "/openalex/works/doi:"), false)
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, g.openalex(wk))
	case path == "/openalex/works":
		g.list(w, r)
	case strings.HasPrefix(path, "/crossref/works/"):
		wk, ok := g.byDOI(strings.TrimPrefix(path, "/crossref/works/"), true)
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": g.crossref(wk)})
	default:
		http.NotFound(w, r)
	}
}

func (g *Graph) byDOI(doi string, crossref bool) (GraphWork, bool) {
	doi = strings.TrimPrefix(strings.ToLower(doi), "https://doi.org/")
	for _, wk := range g.works {
		if wk.DOI != "" && strings.EqualFold(wk.DOI, doi) && (crossref || !wk.CrossrefOnly) {
			return wk, true
		}
	}
	return GraphWork{}, false
}

func (g *Graph) cites(wk GraphWork, id string) bool {
	return id != "" && slices.Contains(wk.Cites, id)
}

func (g *Graph) openalex(wk GraphWork) map[string]any {
	refs := []string{}
	for _, c := range wk.Cites {
		if strings.HasPrefix(c, "W") {
			refs = append(refs, "https://openalex.org/"+c)
		}
	}
	n := 0
	for _, o := range g.works {
		if g.cites(o, wk.ID) && !o.CrossrefOnly {
			n++
		}
	}
	var doi any
	if wk.DOI != "" {
		doi = "https://doi.org/" + wk.DOI
	}
	return map[string]any{"id": "https://openalex.org/" + wk.ID, "doi": doi, "title": wk.Title, "display_name": wk.Title,
		"publication_year": wk.Year, "referenced_works": refs, "referenced_works_count": len(refs), "cited_by_count": n,
		"cited_by_api_url": "https://api.openalex.org/works?filter=cites:" + wk.ID, "type": "article", "type_crossref": "journal-article",
		"open_access": map[string]any{"is_oa": false}}
}

func (g *Graph) crossref(wk GraphWork) map[string]any {
	refs := []map[string]any{}
	for i, c := range wk.Cites {
		ref := map[string]any{"key": "ref" + strconv.Itoa(i+1)}
		for _, o := range g.works {
			if o.ID == c && o.ID != "" || strings.EqualFold(o.DOI, c) && o.DOI != "" {
				if o.DOI != "" {
					ref["DOI"], ref["doi-asserted-by"] = o.DOI, "crossref"
				}
				ref["year"] = strconv.Itoa(o.Year)
				ref["unstructured"] = o.Title + ", " + strconv.Itoa(o.Year) + "."
			}
		}
		refs = append(refs, ref)
	}
	for i, u := range wk.Unstructured {
		refs = append(refs, map[string]any{"key": "u" + strconv.Itoa(i+1), "unstructured": u})
	}
	return map[string]any{"DOI": strings.ToUpper(wk.DOI), "title": []string{wk.Title}, "type": "journal-article",
		"issued": map[string]any{"date-parts": [][]int{{wk.Year}}}, "reference-count": len(refs), "references-count": len(refs),
		"reference": refs}
}

// list answers /works?filter=…: one filter of cites:, openalex: or doi:,
// with per-page (default 25, at most 100) and either page or cursor.
func (g *Graph) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	key, val, ok := strings.Cut(q.Get("filter"), ":")
	if !ok {
		writeError(w, http.StatusBadRequest, "Invalid query parameters error.", "filter must be key:value")
		return
	}
	values := strings.Split(val, "|")
	var hits []GraphWork
	for _, wk := range g.works {
		if wk.CrossrefOnly || wk.ID == "" {
			continue
		}
		switch key {
		case "cites":
			if g.cites(wk, val) {
				hits = append(hits, wk)
			}
		case "openalex", "ids.openalex":
			if slices.ContainsFunc(values, func(v string) bool { return strings.EqualFold(strings.TrimPrefix(v, "https://openalex.org/"), wk.ID) }) {
				hits = append(hits, wk)
			}
		case "doi":
			if slices.ContainsFunc(values, func(v string) bool {
				return wk.DOI != "" && strings.EqualFold(strings.TrimPrefix(strings.ToLower(v), "https://doi.org/"), wk.DOI)
			}) {
				hits = append(hits, wk)
			}
		default:
			writeError(w, http.StatusBadRequest, "Invalid query parameters error.", key+" is not a valid field")
			return
		}
	}
	per := 25
	if v := q.Get("per-page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeError(w, http.StatusBadRequest, "Invalid query parameters error.", "per-page must be between 1 and 100")
			return
		}
		per = n
	}
	start := 0
	cursor := q.Get("cursor")
	if cursor != "" && cursor != "*" {
		b, err := base64.StdEncoding.DecodeString(cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "Invalid query parameters error.", "cursor is not valid")
			return
		}
		start = n
	} else if p := q.Get("page"); p != "" {
		n, _ := strconv.Atoi(p)
		start = max(n-1, 0) * per
	}
	end := min(start+per, len(hits))
	results := []map[string]any{}
	for _, wk := range hits[min(start, len(hits)):end] {
		results = append(results, g.openalex(wk))
	}
	meta := map[string]any{"count": len(hits), "db_response_time_ms": 3, "page": nil, "per_page": per, "groups_count": nil}
	if cursor != "" {
		meta["next_cursor"] = nil
		if len(results) > 0 {
			meta["next_cursor"] = base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(end)))
		}
	} else {
		meta["page"] = start/per + 1
	}
	writeJSON(w, map[string]any{"meta": meta, "results": results, "group_by": []any{}})
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	writeJSON(w, map[string]any{"error": kind, "message": msg})
}

// SmallGraph is a made-up citation graph for tests. A (10.1000/a) cites
// G3, G4, G5 and W9 (a work without a DOI); B (10.1000/b) cites G3, G4
// and G6; C (10.1000/c) cites G3; D (10.1000/d) cites A and B; E
// (10.1000/e) is known to Crossref only and cites G3, G4 and an old book
// without a DOI. Among A, B, C and E: B shares two references with A and
// is cited with it by D; G3 is cited by A, B, C and E.
func SmallGraph() []GraphWork {
	return []GraphWork{
		{ID: "W1", DOI: "10.1000/a", Title: "Paper A on vitamin D", Year: 2020, Cites: []string{"W3", "W4", "W5", "W9"}},
		{ID: "W2", DOI: "10.1000/b", Title: "Paper B on vitamin D and falls", Year: 2021, Cites: []string{"W3", "W4", "W6"}},
		{ID: "W7", DOI: "10.1000/c", Title: "Paper C on bones", Year: 2022, Cites: []string{"W3"}},
		{ID: "W8", DOI: "10.1000/d", Title: "Paper D, a review", Year: 2023, Cites: []string{"W1", "W2"}},
		{ID: "W3", DOI: "10.1000/g3", Title: "The much-cited trial", Year: 2010},
		{ID: "W4", DOI: "10.1000/g4", Title: "A cohort study", Year: 2012},
		{ID: "W5", DOI: "10.1000/g5", Title: "A small study", Year: 2013},
		{ID: "W6", DOI: "10.1000/g6", Title: "A meta-analysis", Year: 2014},
		{ID: "W9", Title: "A report without a DOI", Year: 2001},
		{DOI: "10.1000/e", Title: "Paper E, known to Crossref only", Year: 2024, CrossrefOnly: true,
			Cites: []string{"W3", "10.1000/g4"}, Unstructured: []string{"Smith J. An old book on bones. Oxford, 1970."}},
	}
}
