package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// TestCitationGraph follows the done-when of the citation graph through
// the API, against stand-in OpenAlex and Crossref serving a made-up graph:
// references and citers with titles and in_memory flags, Crossref's list
// for a paper OpenAlex does not know, related and gaps in order, another
// workspace seeing nothing, and the contact address reaching OpenAlex.
func TestCitationGraph(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	e := newEnv(t, httpapi.Config{}, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: g.CrossrefURL(),
		UnpaywallURL: g.UnpaywallURL(), OpenAlexURL: g.OpenAlexURL(), Contact: "ops@example.org"}})
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	for _, d := range []string{"10.1000/a", "10.1000/b", "10.1000/c", "10.1000/e", "10.1000/g3"} {
		want(t, e.do("POST", "/v1/papers", map[string]any{"doi": d}, a.auth()...), http.StatusCreated, "")
	}

	var refs papermem.CitationList
	r := e.do("GET", "/v1/papers/10.1000/a/references", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	r.json(t, &refs)
	if len(refs.Works) != 4 || refs.Works[0].DOI != "10.1000/g3" || !refs.Works[0].InMemory || refs.Works[1].InMemory ||
		refs.Works[1].Title != "A cohort study" || refs.Works[3].DOI != "" || refs.Works[3].Title != "A report without a DOI" {
		t.Errorf("references of A: %+v", refs)
	}
	for _, k := range []string{`"doi":`, `"title":`, `"year":`, `"in_memory":`} {
		if !strings.Contains(string(r.body), k) {
			t.Errorf("references lack %s: %s", k, r.body)
		}
	}
	var cites papermem.CitationList
	r = e.do("GET", "/v1/papers/10.1000%2Fa/citations", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	if r.json(t, &cites); len(cites.Works) != 1 || cites.Works[0].DOI != "10.1000/d" || cites.Works[0].InMemory {
		t.Errorf("citers of A: %+v", cites)
	}
	r = e.do("GET", "/v1/papers/10.1000/e/references", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	if r.json(t, &refs); refs.Source != "crossref" || len(refs.Works) != 3 || refs.Works[2].Text == "" {
		t.Errorf("references of E (Crossref): %+v", refs)
	}
	for _, d := range []string{"10.1000/b", "10.1000/c"} {
		want(t, e.do("GET", "/v1/papers/"+d+"/references", nil, a.auth()...), http.StatusOK, "")
	}

	var rel []papermem.CitationRelated
	r = e.do("GET", "/v1/papers/10.1000/a/related?limit=2", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	if r.json(t, &rel); len(rel) != 2 || rel[0].DOI != "10.1000/b" || rel[0].Coupling != 2 || rel[0].CoCitation != 1 || rel[0].Score != 3 || rel[1].DOI != "10.1000/e" {
		t.Errorf("related to A: %+v", rel)
	}
	var gaps []papermem.CitationGap
	r = e.do("GET", "/v1/graph/gaps?limit=3", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	if r.json(t, &gaps); len(gaps) != 3 || gaps[0].DOI != "10.1000/g4" || gaps[0].Count != 3 {
		t.Errorf("gaps: %+v; want G4 (cited by A, B and E; G3 is in memory) first", gaps)
	}

	// Another workspace sees nothing of lab-one's.
	want(t, e.do("GET", "/v1/papers/10.1000/a/references", nil, b.auth()...), http.StatusNotFound, "not_found")
	want(t, e.do("GET", "/v1/papers/10.1000/a/related", nil, b.auth()...), http.StatusNotFound, "not_found")
	r = e.do("GET", "/v1/graph/gaps", nil, b.auth()...)
	want(t, r, http.StatusOK, "")
	if strings.TrimSpace(string(r.body)) != "[]" {
		t.Errorf("gaps of an empty workspace: %s", r.body)
	}

	// Bad input is 400 and changes nothing.
	want(t, e.do("GET", "/v1/papers/10.1000/a/references?refresh=maybe", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	want(t, e.do("GET", "/v1/papers/10.1000/a/related?limit=0", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	want(t, e.do("GET", "/v1/graph/gaps?limit=x", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	want(t, e.do("GET", "/v1/papers/not-a-doi/citations", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	g.Fail(500)
	want(t, e.do("GET", "/v1/papers/10.1000/a/references?refresh=true", nil, a.auth()...), http.StatusBadGateway, "upstream_failed")
	g.Fail(0)
	r = e.do("GET", "/v1/papers/10.1000/a/references", nil, a.auth()...)
	if r.json(t, &refs); len(refs.Works) != 4 {
		t.Errorf("a failed refresh changed the links: %+v", refs)
	}

	// The graph gains citation edges: A cites G3, both in memory.
	var sg papermem.Subgraph
	r = e.do("GET", "/v1/graph/neighborhood/paper:10.1000/a", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	r.json(t, &sg)
	found := false
	for _, ed := range sg.Edges {
		found = found || ed.Type == "citation" && ed.Source == "paper:10.1000/a" && ed.Target == "paper:10.1000/g3"
	}
	if !found {
		t.Errorf("no citation edge A → G3 in %+v", sg.Edges)
	}

	var mailto bool
	for _, q := range g.Requests() {
		mailto = mailto || strings.HasPrefix(q, "/openalex/works?") && strings.Contains(q, "mailto=ops%40example.org")
	}
	if !mailto {
		t.Errorf("the contact address did not reach OpenAlex's lists: %q", g.Requests())
	}
	e.checkNoLeaks()
}
