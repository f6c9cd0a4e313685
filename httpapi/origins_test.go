package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// TestOrigins follows a paper from its DOI alone to a recalled span and a
// citation, through the API, with the four origins faked: metadata from
// Crossref and Unpaywall, the open-access PDF downloaded on fetch and then
// served from memory, a retraction carried into recall's provenance, and
// a failing origin refusing a DOI-only paper with nothing stored.
func TestOrigins(t *testing.T) {
	pdf := "../testdata/tour/vitamin-d-falls.pdf"
	o := testutil.FakeOrigins(t, map[string]string{"falls.pdf": pdf},
		testutil.OriginWork{DOI: "10.1000/falls.2021", Title: "Vitamin D supplementation and falls in older adults",
			Journal: "Journal of Bone Research", Authors: []string{"Ada Lovelace"}, Year: 2021, OA: true, PDF: "falls.pdf"},
		testutil.OriginWork{DOI: "10.1000/retracted.1", Title: "Vitamin D cures every fall", Year: 2019, RetractedBy: "10.1000/notice.1"})
	e := newEnv(t, httpapi.Config{}, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: o.URL,
		UnpaywallURL: o.URL, OpenAlexURL: o.URL, ArxivURL: o.URL, Contact: "ops@example.org"}})
	a := e.signup("ada@example.org", "lab-one")

	r := e.do("POST", "/v1/papers", map[string]any{"doi": "10.1000/falls.2021"}, a.auth()...)
	want(t, r, http.StatusCreated, "")
	var p papermem.Paper
	r.json(t, &p)
	if p.Title != "Vitamin D supplementation and falls in older adults" || p.Year != 2021 || !p.OA || p.Cached || p.Retracted {
		t.Errorf("DOI-only paper = %+v", p)
	}

	var f papermem.FetchResult
	r = e.do("POST", "/v1/papers/10.1000/falls.2021/fetch", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	if r.json(t, &f); f.Source != "origin" || f.Warm {
		t.Errorf("first fetch = %+v", f)
	}
	r = e.do("POST", "/v1/papers/10.1000%2Ffalls.2021/fetch", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	if r.json(t, &f); f.Source != "memory" || f.BytesSaved == 0 {
		t.Errorf("second fetch = %+v", f)
	}

	// A paper with its text is stored at once, pending; the background
	// job fills it and finds the retraction.
	r = e.do("POST", "/v1/papers", map[string]any{"doi": "10.1000/retracted.1",
		"text": "Vitamin D supplementation prevented every fall in older adults."}, a.auth()...)
	want(t, r, http.StatusCreated, "")
	if r.json(t, &p); p.Metadata != papermem.MetadataPending || p.Retracted {
		t.Errorf("paper with its text, as stored = %+v, want pending", p)
	}
	for start := time.Now(); p.Metadata == papermem.MetadataPending && time.Since(start) < 30*time.Second; time.Sleep(10 * time.Millisecond) {
		r = e.do("GET", "/v1/papers/10.1000/retracted.1", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		r.json(t, &p)
	}
	if p.Metadata != papermem.MetadataComplete || !p.Retracted || len(p.Notices) != 1 || p.Notices[0].DOI != "10.1000/notice.1" || p.Title != "Vitamin D cures every fall" {
		t.Errorf("retracted paper, filled in the background = %+v", p)
	}
	var res papermem.RecallResult
	r = e.do("POST", "/v1/recall", map[string]any{"question": "Does vitamin D prevent falls in older adults?", "budget_tokens": 4000, "fill": true}, a.auth()...)
	want(t, r, http.StatusOK, "")
	r.json(t, &res)
	seen := map[string]bool{}
	for _, s := range res.Spans {
		seen[s.Provenance.DOI] = true
		if s.Provenance.Retracted != (s.Provenance.DOI == "10.1000/retracted.1") {
			t.Errorf("span of %s: provenance.retracted = %v", s.Provenance.DOI, s.Provenance.Retracted)
		}
	}
	if !seen["10.1000/falls.2021"] || !seen["10.1000/retracted.1"] || res.Spans[0].Provenance.Retracted {
		t.Errorf("recall: papers %v, first span %+v; want both, a sound one first", seen, res.Spans[0].Provenance)
	}
	if !strings.Contains(string(r.body), `"retracted":true`) {
		t.Errorf("recall body has no provenance.retracted: %s", r.body)
	}

	r = e.do("GET", "/v1/papers/10.1000/falls.2021/cite?format=bibtex", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	for _, s := range []string{"@article{lovelace2021vitamin,", "journal = {Journal of Bone Research}", "doi = {10.1000/falls.2021}"} {
		if !strings.Contains(string(r.body), s) {
			t.Errorf("citation lacks %q:\n%s", s, r.body)
		}
	}

	o.Fail(http.StatusInternalServerError)
	want(t, e.do("POST", "/v1/papers", map[string]any{"doi": "10.1000/other"}, a.auth()...), http.StatusBadGateway, "upstream_failed")
	r = e.do("GET", "/v1/papers/10.1000/other/exists", nil, a.auth()...)
	if want(t, r, http.StatusOK, ""); !strings.Contains(string(r.body), `"exists":false`) {
		t.Errorf("a refused paper was stored: %s", r.body)
	}
	// In a batch the DOI-only paper is refused alone; one with a title is
	// stored though the origins fail.
	r = e.do("POST", "/v1/papers/batch", map[string]any{"papers": []map[string]any{{"doi": "10.1000/other"},
		{"doi": "10.1000/titled", "title": "A paper with its own title"}}}, a.auth()...)
	want(t, r, http.StatusOK, "")
	var rep api.BatchReport
	if r.json(t, &rep); rep.Ingested != 1 || rep.Failed != 1 || len(rep.Errors) != 1 || rep.Errors[0].Index != 0 ||
		rep.Errors[0].Code != "upstream_failed" || len(rep.DOIs) != 1 || rep.DOIs[0] != "10.1000/titled" {
		t.Errorf("batch with failing origins = %+v", rep)
	}
}
