package papermem_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testutil"
)

// openWithGraph opens a memory whose origins are the stand-in g.
func openWithGraph(t *testing.T, g *testutil.Graph) *papermem.Memory {
	t.Helper()
	return testutil.Open(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: g.CrossrefURL(),
		UnpaywallURL: g.UnpaywallURL(), OpenAlexURL: g.OpenAlexURL(), Contact: "ops@example.org"}})
}

// storeGraph stores the papers of testutil.SmallGraph with the DOIs, by
// DOI alone (their metadata comes from the stand-in Crossref).
func storeGraph(t *testing.T, w *papermem.Workspace, dois ...string) {
	t.Helper()
	for _, d := range dois {
		if _, _, err := w.StorePaper(ctx, papermem.PaperInput{DOI: d}); err != nil {
			t.Fatalf("store %s: %v", d, err)
		}
	}
}

func TestCitationLinks(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	m := openWithGraph(t, g)
	w := m.Workspace("lab")
	storeGraph(t, w, "10.1000/a", "10.1000/b", "10.1000/e", "10.1000/g3")

	refs, err := w.References(ctx, "doi:10.1000/A", papermem.CitationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []papermem.CitedWork{
		{DOI: "10.1000/g3", Title: "The much-cited trial", Year: 2010, InMemory: true, OpenAlexID: "W3"},
		{DOI: "10.1000/g4", Title: "A cohort study", Year: 2012, OpenAlexID: "W4"},
		{DOI: "10.1000/g5", Title: "A small study", Year: 2013, OpenAlexID: "W5"},
		{Title: "A report without a DOI", Year: 2001, OpenAlexID: "W9"},
	}
	if d := cmp.Diff(want, refs.Works); d != "" {
		t.Errorf("references of A (-want +got):\n%s", d)
	}
	if refs.DOI != "10.1000/a" || refs.Source != "openalex" || refs.Total != 4 || refs.Status != papermem.CitationsFetched || refs.FetchedAt == "" {
		t.Errorf("references of A: %+v", refs)
	}
	cites, err := w.Citations(ctx, "10.1000/a", papermem.CitationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]papermem.CitedWork{{DOI: "10.1000/d", Title: "Paper D, a review", Year: 2023, OpenAlexID: "W8"}}, cites.Works); d != "" || cites.Source != "openalex" {
		t.Errorf("citers of A (source %q; -want +got):\n%s", cites.Source, d)
	}

	// E is unknown to OpenAlex: its references come from Crossref, the one
	// without a DOI as the publisher's text; it has no known citer.
	refs, err = w.References(ctx, "10.1000/e", papermem.CitationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = []papermem.CitedWork{
		{DOI: "10.1000/g3", Title: "The much-cited trial", Year: 2010, InMemory: true, OpenAlexID: "W3"},
		{DOI: "10.1000/g4", Title: "A cohort study", Year: 2012, OpenAlexID: "W4"},
		{Text: "Smith J. An old book on bones. Oxford, 1970."},
	}
	if d := cmp.Diff(want, refs.Works); d != "" || refs.Source != "crossref" {
		t.Errorf("references of E (source %q; -want +got):\n%s", refs.Source, d)
	}
	if cites, err := w.Citations(ctx, "10.1000/e", papermem.CitationOptions{}); err != nil || len(cites.Works) != 0 || cites.Source != "" {
		t.Errorf("citers of E: %+v, %v; want none", cites, err)
	}

	// in_memory follows the workspace: storing G4 marks it.
	storeGraph(t, w, "10.1000/g4")
	refs, _ = w.References(ctx, "10.1000/a", papermem.CitationOptions{})
	if !refs.Works[1].InMemory {
		t.Errorf("G4 stored, yet not in memory: %+v", refs.Works[1])
	}

	// Every request carried the contact address.
	for _, r := range g.Requests() {
		if strings.HasPrefix(r, "/openalex/") && !strings.Contains(r, "mailto=ops%40example.org") {
			t.Errorf("OpenAlex request without the contact address: %s", r)
		}
	}

	// Errors: a paper not in the workspace, another workspace, a bad DOI.
	for _, c := range []struct {
		w    *papermem.Workspace
		doi  string
		code string
	}{{w, "10.1000/c", papermem.ENOTFOUND}, {m.Workspace("other"), "10.1000/a", papermem.ENOTFOUND}, {w, "nonsense", papermem.EINVALID}} {
		if _, err := c.w.References(ctx, c.doi, papermem.CitationOptions{}); papermem.ErrorCode(err) != c.code {
			t.Errorf("references of %s in %s: %v, want %s", c.doi, c.w.ID(), err, c.code)
		}
	}
}

func TestCitationRelatedAndGaps(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	m := openWithGraph(t, g)
	w := m.Workspace("lab")
	storeGraph(t, w, "10.1000/a", "10.1000/b", "10.1000/c", "10.1000/e")
	for _, d := range []string{"10.1000/b", "10.1000/c", "10.1000/e"} {
		if _, err := w.FetchCitations(ctx, d, false); err != nil {
			t.Fatal(err)
		}
	}
	rel, err := w.Related(ctx, "10.1000/a", 0)
	if err != nil {
		t.Fatal(err)
	}
	wantRel := []papermem.CitationRelated{
		{DOI: "10.1000/b", Title: "Paper B on vitamin D and falls", Year: 2021, Coupling: 2, CoCitation: 1, Score: 3},
		{DOI: "10.1000/e", Title: "Paper E, known to Crossref only", Year: 2024, Coupling: 2, Score: 2},
		{DOI: "10.1000/c", Title: "Paper C on bones", Year: 2022, Coupling: 1, Score: 1},
	}
	if d := cmp.Diff(wantRel, rel); d != "" {
		t.Errorf("related to A (-want +got):\n%s", d)
	}
	if rel, _ := w.Related(ctx, "10.1000/a", 1); len(rel) != 1 {
		t.Errorf("limit 1: %d related", len(rel))
	}

	gaps, err := w.Gaps(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, gp := range gaps {
		got = append(got, gp.DOI+"|"+gp.OpenAlexID+"|"+gp.Title+"|"+strings.Join(gp.CitedBy, ","))
	}
	wantGaps := []string{
		"10.1000/g3|W3|The much-cited trial|10.1000/a,10.1000/b,10.1000/c,10.1000/e",
		"10.1000/g4|W4|A cohort study|10.1000/a,10.1000/b,10.1000/e",
		"10.1000/g5|W5|A small study|10.1000/a",
		"10.1000/g6|W6|A meta-analysis|10.1000/b",
		"|W9|A report without a DOI|10.1000/a",
	}
	if d := cmp.Diff(wantGaps, got); d != "" || gaps[0].Count != 4 {
		t.Errorf("gaps (-want +got):\n%s", d)
	}
	// A gap filled is a gap no more; D, stored, cites A and B in the graph.
	storeGraph(t, w, "10.1000/g3", "10.1000/d")
	gaps, _ = w.Gaps(ctx, 2)
	if len(gaps) != 2 || gaps[0].DOI != "10.1000/g4" {
		t.Errorf("gaps after storing G3: %+v", gaps)
	}
	sg, err := w.Neighborhood(ctx, "paper:10.1000/a", 1)
	if err != nil {
		t.Fatal(err)
	}
	var edges []string
	for _, e := range sg.Edges {
		if e.Type == papermem.EdgeCitation {
			edges = append(edges, e.Source+">"+e.Target)
		}
	}
	slices.Sort(edges)
	if d := cmp.Diff([]string{"paper:10.1000/a>paper:10.1000/g3", "paper:10.1000/d>paper:10.1000/a"}, edges); d != "" {
		t.Errorf("citation edges around A (-want +got):\n%s", d)
	}

	// Another workspace holding C alone sees C's links and nothing of
	// lab's papers.
	o := m.Workspace("other")
	storeGraph(t, o, "10.1000/c")
	if _, err := o.References(ctx, "10.1000/c", papermem.CitationOptions{}); err != nil {
		t.Fatal(err)
	}
	if gaps, err := o.Gaps(ctx, 0); err != nil || len(gaps) != 1 || gaps[0].DOI != "10.1000/g3" || !slices.Equal(gaps[0].CitedBy, []string{"10.1000/c"}) {
		t.Errorf("other workspace: gaps %+v, %v; want G3 cited by C alone", gaps, err)
	}
	if rel, err := o.Related(ctx, "10.1000/c", 0); err != nil || len(rel) != 0 {
		t.Errorf("other workspace: related %+v, %v", rel, err)
	}
	if _, err := o.Related(ctx, "10.1000/a", 0); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("other workspace, paper of lab: %v", err)
	}
	if _, err := w.Gaps(ctx, 101); papermem.ErrorCode(err) != papermem.EINVALID {
		t.Errorf("limit 101: %v", err)
	}
}

// TestCitationRefresh runs with NoCitations: no job reads links in the
// background, so that what is stored changes only when the test asks.
func TestCitationRefresh(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	m := testutil.Open(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: g.CrossrefURL(),
		UnpaywallURL: g.UnpaywallURL(), OpenAlexURL: g.OpenAlexURL(), Contact: "ops@example.org", NoCitations: true}})
	storeGraph(t, m.Workspace("lab"), "10.1000/c")
	w := m.Workspace("lab")
	if refs, err := w.References(ctx, "10.1000/c", papermem.CitationOptions{}); err != nil || len(refs.Works) != 1 {
		t.Fatalf("references of C: %+v, %v", refs, err)
	}
	g.SetWork(testutil.GraphWork{ID: "W7", DOI: "10.1000/c", Title: "Paper C on bones", Year: 2022, Cites: []string{"W3", "W6"}})
	if refs, _ := w.References(ctx, "10.1000/c", papermem.CitationOptions{}); len(refs.Works) != 1 {
		t.Errorf("stored links changed without a refresh: %+v", refs.Works)
	}
	g.Fail(503)
	if _, err := w.References(ctx, "10.1000/c", papermem.CitationOptions{Refresh: true}); papermem.ErrorCode(err) != papermem.EUPSTREAM {
		t.Errorf("refresh with failing origins: %v, want EUPSTREAM", err)
	}
	if refs, _ := w.References(ctx, "10.1000/c", papermem.CitationOptions{}); len(refs.Works) != 1 {
		t.Errorf("a failed refresh changed the links: %+v", refs.Works)
	}
	g.Fail(0)
	refs, err := w.References(ctx, "10.1000/c", papermem.CitationOptions{Refresh: true})
	if err != nil || len(refs.Works) != 2 || refs.Works[1].DOI != "10.1000/g6" {
		t.Errorf("refreshed references of C: %+v, %v", refs, err)
	}
	// StoredOnly never asks the origins: links never read read as not
	// fetched, and no request is made.
	mustStore(t, w, papermem.PaperInput{DOI: "10.1000/b", Title: "Paper B on vitamin D and falls", Year: 2021, Authors: []string{"B. Author"}})
	before := len(g.Requests())
	if refs, err := w.References(ctx, "10.1000/b", papermem.CitationOptions{StoredOnly: true}); err != nil || refs.Status != papermem.CitationsNotFetched {
		t.Errorf("stored only, never fetched: %+v, %v", refs, err)
	}
	for _, r := range g.Requests()[before:] {
		if strings.Contains(r, "filter=") || strings.Contains(r, "/openalex/works/doi:10.1000/b") {
			t.Errorf("a stored-only read asked the origins: %s", r)
		}
	}
	// A DOI no origin knows is recorded as unknown, with no links.
	mustStore(t, m.Workspace("lab"), papermem.PaperInput{DOI: "10.1000/nobody", Title: "Nobody knows it"})
	if refs, err := w.References(ctx, "10.1000/nobody", papermem.CitationOptions{}); err != nil || refs.Status != papermem.CitationsUnknown || len(refs.Works) != 0 {
		t.Errorf("unknown DOI: %+v, %v", refs, err)
	}
}

func TestCitationsOffline(t *testing.T) {
	m := testutil.Open(t, nil)
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/a", Title: "A"})
	refs, err := m.References(ctx, "10.1000/a", papermem.CitationOptions{})
	if err != nil || refs.Status != papermem.CitationsNotFetched || refs.Works == nil || len(refs.Works) != 0 {
		t.Errorf("offline references: %+v, %v", refs, err)
	}
	if _, err := m.References(ctx, "10.1000/a", papermem.CitationOptions{Refresh: true}); papermem.ErrorCode(err) != papermem.EINVALID {
		t.Errorf("offline refresh: %v, want EINVALID", err)
	}
	if _, err := m.FetchCitations(ctx, "10.1000/a", false); papermem.ErrorCode(err) != papermem.EINVALID {
		t.Errorf("offline fetch: %v, want EINVALID", err)
	}
}

// TestCitationJob stores a paper and waits for the citations job, queued
// with the store, to read its links in the background.
func TestCitationJob(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	m := openWithGraph(t, g)
	w := m.Workspace("lab")
	mustStore(t, w, papermem.PaperInput{DOI: "10.1000/a", Title: "Paper A", Text: "Vitamin D and falls in older adults."})
	deadline := time.Now().Add(10 * time.Second)
	for {
		refs, err := w.References(ctx, "10.1000/a", papermem.CitationOptions{StoredOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if refs.Status == papermem.CitationsFetched {
			if len(refs.Works) != 4 {
				t.Errorf("links read in the background: %+v", refs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no citations job ran within 10 s: %+v", refs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A re-store of a paper whose links are read queues nothing more.
	before := len(g.Requests())
	mustStore(t, w, papermem.PaperInput{DOI: "10.1000/a", Title: "Paper A", Text: "Vitamin D and falls in older adults, again."})
	if queued, _, err := m.JobsQueued(ctx); err != nil || queued["citations"] != 0 {
		t.Errorf("citations jobs queued after a re-store: %v, %v", queued, err)
	}
	for _, r := range g.Requests()[before:] {
		if strings.Contains(r, "filter=") {
			t.Errorf("a re-store read the links again: %s", r)
		}
	}
}
