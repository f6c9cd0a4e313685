package papermem_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testutil"
)

var (
	fallsWork = testutil.OriginWork{DOI: "10.1000/falls.2021", Title: "Vitamin D supplementation and falls in older adults",
		Journal: "Journal of Bone Research", Authors: []string{"Ada Lovelace", "Alan Turing"}, Year: 2021, OA: true, PDF: "falls.pdf"}
	retractedWork = testutil.OriginWork{DOI: "10.1000/retracted.1", Title: "Vitamin D cures every fracture",
		Authors: []string{"Mallory Fraud"}, Year: 2019, RetractedBy: "10.1000/retraction.1"}
	closedWork = testutil.OriginWork{DOI: "10.1000/closed.1", Title: "A closed-access study of bones", Year: 2020}
	arxivWork  = testutil.OriginWork{DOI: "10.48550/arxiv.2101.00001", Title: "Falls in the elderly: a preprint", Year: 2021}
)

// openWithOrigins opens a memory whose origins are the fake o.
func openWithOrigins(t *testing.T, o *testutil.Origins) *papermem.Memory {
	t.Helper()
	return testutil.Open(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: o.URL, UnpaywallURL: o.URL,
		OpenAlexURL: o.URL, ArxivURL: o.URL, Contact: "ops@example.org"}})
}

// waitMetadata waits for the background job to settle paper doi's
// metadata (no longer pending) and returns the paper.
func waitMetadata(t *testing.T, m *papermem.Memory, doi string) *papermem.Paper {
	t.Helper()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		p, err := m.Paper(ctx, doi)
		if err != nil {
			t.Fatal(err)
		}
		if p.Metadata != papermem.MetadataPending {
			return p
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("paper %s still pending after 30 s: %+v", doi, *p)
		}
	}
}

func fakeOrigins(t *testing.T) *testutil.Origins {
	pdf := "testdata/tour/vitamin-d-falls.pdf"
	return testutil.FakeOrigins(t, map[string]string{"falls.pdf": pdf, "2101.00001": pdf},
		fallsWork, retractedWork, closedWork, arxivWork)
}

func TestOriginsResolveTitle(t *testing.T) {
	m := openWithOrigins(t, fakeOrigins(t))
	p := mustStore(t, m, papermem.PaperInput{Title: fallsWork.Title})
	if p.DOI != fallsWork.DOI {
		t.Errorf("title that Crossref matches: DOI %q, want %q", p.DOI, fallsWork.DOI)
	}
	p = mustStore(t, m, papermem.PaperInput{Title: "Falls", SourceURL: "https://arxiv.org/abs/2101.00001v2"})
	if p.DOI != arxivWork.DOI || p.Title != "Falls" {
		t.Errorf("arXiv URL: paper %+v, want DOI %q", *p, arxivWork.DOI)
	}
	p = mustStore(t, m, papermem.PaperInput{Title: "A title no origin has heard of"})
	if !strings.HasPrefix(p.DOI, "local:") {
		t.Errorf("unmatched title: DOI %q, want a local id", p.DOI)
	}
}

func TestOriginsFillDOIOnly(t *testing.T) {
	o := fakeOrigins(t)
	m := openWithOrigins(t, o)
	p := mustStore(t, m, papermem.PaperInput{DOI: "doi:10.1000/FALLS.2021"})
	want := papermem.Paper{DOI: fallsWork.DOI, Title: fallsWork.Title, Year: 2021, Authors: fallsWork.Authors,
		OA: true, Journal: fallsWork.Journal, Type: "journal-article"}
	if p.DOI != want.DOI || p.Title != want.Title || p.Year != want.Year || !slices.Equal(p.Authors, want.Authors) ||
		p.OA != want.OA || p.Journal != want.Journal || p.Type != want.Type || p.Retracted {
		t.Errorf("DOI-only paper = %+v, want %+v", *p, want)
	}
	// A paper's own fields win over the origins'.
	p = mustStore(t, m, papermem.PaperInput{DOI: closedWork.DOI, Title: "My own title", Year: 1999})
	if p.Title != "My own title" || p.Year != 1999 {
		t.Errorf("own title and year replaced: %+v", *p)
	}
	var crossref, unpaywall bool
	for _, r := range o.Requests() {
		crossref = crossref || strings.HasPrefix(r, "/works/10.1000") && strings.Contains(r, "mailto=ops%40example.org")
		unpaywall = unpaywall || strings.HasPrefix(r, "/v2/") && strings.Contains(r, "email=ops%40example.org")
	}
	if !crossref || !unpaywall {
		t.Errorf("the contact address reached crossref %v, unpaywall %v; requests %q", crossref, unpaywall, o.Requests())
	}
}

// TestOriginsOpenAlexKey: OriginOptions.OpenAlexKey reaches OpenAlex as
// api_key, and no other service.
func TestOriginsOpenAlexKey(t *testing.T) {
	o := fakeOrigins(t)
	opts := originOptions(o)
	opts.OpenAlexKey = "k3y"
	m := testutil.Open(t, &papermem.Options{Origins: opts})
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/unknown-to-crossref"})
	var openalex int
	for _, r := range o.Requests() {
		isOpenAlex := strings.HasPrefix(r, "/works/doi:") || strings.HasPrefix(r, "/works?")
		if has := strings.Contains(r, "api_key=k3y"); has != isOpenAlex {
			t.Errorf("request %q: api_key sent %v", r, has)
		}
		if isOpenAlex {
			openalex++
		}
	}
	if openalex == 0 {
		t.Errorf("no request reached OpenAlex: %q", o.Requests())
	}
}

func TestOriginsFailure(t *testing.T) {
	o := fakeOrigins(t)
	m := openWithOrigins(t, o)
	o.Fail(500)
	_, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: fallsWork.DOI})
	if papermem.ErrorCode(err) != papermem.EUPSTREAM {
		t.Fatalf("DOI-only store with failing origins: %v, want EUPSTREAM", err)
	}
	if ok, err := m.PaperExists(ctx, fallsWork.DOI); ok || err != nil {
		t.Errorf("failed store left the paper stored (%v, %v)", ok, err)
	}
	// A paper with its own title is stored whatever the origins answer.
	p := mustStore(t, m, papermem.PaperInput{DOI: closedWork.DOI, Title: "Stored anyway"})
	if p.Title != "Stored anyway" {
		t.Errorf("paper with a title: %+v", *p)
	}
	// A DOI no origin knows is stored as given.
	o.Fail(0)
	if p := mustStore(t, m, papermem.PaperInput{DOI: "10.1000/unknown"}); p.DOI != "10.1000/unknown" || p.Title != "" {
		t.Errorf("unknown DOI: %+v", *p)
	}
}

func TestOriginsFetch(t *testing.T) {
	m := openWithOrigins(t, fakeOrigins(t))
	mustStore(t, m, papermem.PaperInput{DOI: fallsWork.DOI})
	res, err := m.FetchPaper(ctx, fallsWork.DOI)
	if err != nil || res.Source != "origin" || res.Warm || res.Bytes == 0 {
		t.Fatalf("first fetch = %+v, %v; want a download from the origin", res, err)
	}
	res, err = m.FetchPaper(ctx, fallsWork.DOI)
	if err != nil || res.Source != "memory" || !res.Warm || res.BytesSaved == 0 {
		t.Fatalf("second fetch = %+v, %v; want it from memory", res, err)
	}
	got, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D prevent falls?", BudgetTokens: 300})
	if err != nil || len(got.Spans) == 0 {
		t.Fatalf("recall after fetch: %+v, %v", got, err)
	}
	if d := got.Spans[0].Provenance.DOI; d != fallsWork.DOI {
		t.Errorf("best span's provenance DOI = %q, want %q", d, fallsWork.DOI)
	}

	mustStore(t, m, papermem.PaperInput{DOI: arxivWork.DOI})
	if res, err := m.FetchPaper(ctx, arxivWork.DOI); err != nil || res.Source != "origin" {
		t.Errorf("arXiv fetch = %+v, %v", res, err)
	}
	mustStore(t, m, papermem.PaperInput{DOI: closedWork.DOI})
	if _, err := m.FetchPaper(ctx, closedWork.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND || !strings.Contains(err.Error(), "open-access") {
		t.Errorf("fetch with no open-access copy: %v, want ENOTFOUND saying so", err)
	}
}

func TestOriginsRetracted(t *testing.T) {
	m := openWithOrigins(t, fakeOrigins(t))
	stored := mustStore(t, m, papermem.PaperInput{DOI: retractedWork.DOI,
		Text: "Vitamin D supplementation prevented every fracture in older adults."})
	if stored.Metadata != papermem.MetadataPending || stored.Title != "" {
		t.Errorf("paper with its text, as stored: %+v, want it pending, filled later", *stored)
	}
	bad := waitMetadata(t, m, retractedWork.DOI)
	if bad.Metadata != papermem.MetadataComplete || bad.Title != retractedWork.Title || !bad.Retracted || len(bad.Notices) != 1 || bad.Notices[0].Type != "retraction" || bad.Notices[0].DOI != retractedWork.RetractedBy {
		t.Fatalf("retracted paper = %+v", *bad)
	}
	mustStore(t, m, papermem.PaperInput{DOI: "10.1000/sound", Title: "Vitamin D and fractures",
		Text: "Vitamin D supplementation did not prevent fractures in older adults."})
	waitMetadata(t, m, "10.1000/sound")
	got, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D supplementation prevent fractures in older adults?", BudgetTokens: 2000, Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	sound, retracted := -1, -1
	for i, s := range got.Spans {
		switch s.Provenance.DOI {
		case retractedWork.DOI:
			if !s.Provenance.Retracted || !strings.HasSuffix(s.Provenance.Citation(), ", RETRACTED") {
				t.Errorf("span of the retracted paper without provenance.retracted, or a citation without RETRACTED: %+v", s)
			}
			if retracted < 0 {
				retracted = i
			}
		case "10.1000/sound":
			if s.Provenance.Retracted {
				t.Errorf("sound span marked retracted: %+v", s)
			}
			if sound < 0 {
				sound = i
			}
		}
	}
	if sound < 0 || retracted < 0 || retracted < sound {
		t.Errorf("first sound span at %d, first retracted at %d: want both, sound first", sound, retracted)
	}
	ps, err := m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "vitamin D fractures"})
	if err != nil || len(ps) < 2 || ps[0].DOI != "10.1000/sound" || !ps[len(ps)-1].Retracted {
		t.Errorf("paper recall = %+v, %v; want the sound paper first and the retracted one flagged last", ps, err)
	}
	// The limit is taken after the retracted paper's demotion.
	ps, err = m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "vitamin D cures every fracture", Limit: 1})
	if err != nil || len(ps) != 1 || ps[0].DOI != "10.1000/sound" {
		t.Errorf("paper recall, limit 1 = %+v, %v; want the sound paper", ps, err)
	}
}

// TestOriginsRefresh checks that a retraction published after a paper was
// stored is seen when the paper is stored again with Refresh, and not
// before: the origins' answers are cached for a day.
func TestOriginsRefresh(t *testing.T) {
	o := fakeOrigins(t)
	m := openWithOrigins(t, o)
	mustStore(t, m, papermem.PaperInput{DOI: closedWork.DOI})
	later := closedWork
	later.RetractedBy = "10.1000/retraction.2"
	o.SetWork(later)
	mustStore(t, m, papermem.PaperInput{DOI: closedWork.DOI})
	if p := waitMetadata(t, m, closedWork.DOI); p.Retracted {
		t.Errorf("stored again within the day: retracted without a refresh")
	}
	if p := mustStore(t, m, papermem.PaperInput{DOI: closedWork.DOI, Refresh: true}); p.Metadata != papermem.MetadataPending {
		t.Errorf("stored again with Refresh: %+v, want pending (the job asks again)", *p)
	}
	if p := waitMetadata(t, m, closedWork.DOI); !p.Retracted || len(p.Notices) != 1 {
		t.Errorf("paper after the refresh: %+v", *p)
	}
}

// TestOriginsNoContact checks that without a contact address nothing is
// invented: no mailto or email goes out, and a stand-in Unpaywall is still
// asked, so a DOI-only paper gets its open-access status.
func TestOriginsNoContact(t *testing.T) {
	o := fakeOrigins(t)
	m := testutil.Open(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: o.URL, UnpaywallURL: o.URL,
		OpenAlexURL: o.URL, ArxivURL: o.URL}})
	if p := mustStore(t, m, papermem.PaperInput{DOI: fallsWork.DOI}); !p.OA || p.Title != fallsWork.Title {
		t.Errorf("DOI-only paper without a contact address = %+v", *p)
	}
	for _, r := range o.Requests() {
		if strings.Contains(r, "mailto=") || strings.Contains(r, "email=") {
			t.Errorf("request %s carries a contact address", r)
		}
	}
}

// TestOriginsKeepRetraction checks that a refresh during which the
// services holding the notices fail (Crossref, OpenAlex) while Unpaywall
// answers does not clear a paper's retraction.
func TestOriginsKeepRetraction(t *testing.T) {
	o := fakeOrigins(t)
	m := openWithOrigins(t, o)
	mustStore(t, m, papermem.PaperInput{DOI: retractedWork.DOI, Text: "Vitamin D cures every fracture."})
	if p := waitMetadata(t, m, retractedWork.DOI); !p.Retracted {
		t.Fatalf("retracted paper = %+v", *p)
	}
	o.FailPath("/works", 500)
	mustStore(t, m, papermem.PaperInput{DOI: retractedWork.DOI, Refresh: true})
	p := waitMetadata(t, m, retractedWork.DOI)
	if !p.Retracted || len(p.Notices) != 1 {
		t.Errorf("after a refresh with Crossref and OpenAlex failing: %+v, want still retracted with its notice", *p)
	}
}
