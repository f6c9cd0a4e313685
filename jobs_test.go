package papermem_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// originOptions points every origin at the fake o.
func originOptions(o *testutil.Origins) *papermem.OriginOptions {
	return &papermem.OriginOptions{CrossrefURL: o.URL, UnpaywallURL: o.URL, OpenAlexURL: o.URL, ArxivURL: o.URL, Contact: "ops@example.org"}
}

// openOriginsDown opens a memory on a new database whose origins answer
// 500 until told otherwise (o.Fail(0)).
func openOriginsDown(t *testing.T) (o *testutil.Origins, path string, m *papermem.Memory) {
	t.Helper()
	o, path = fakeOrigins(t), testdb.Path(t)
	o.Fail(500)
	m, err := papermem.Open(ctx, path, &papermem.Options{Origins: originOptions(o)})
	if err != nil {
		t.Fatal(err)
	}
	return o, path, m
}

// TestMetadataQueueRestart checks that the metadata queue outlives its
// server: a paper stored while its origins fail stays pending across a
// close, its job, left leased by a server that died, is taken again once
// the lease ran out, and the retraction the origins then report reaches
// the paper and the provenance of its recalled spans.
func TestMetadataQueueRestart(t *testing.T) {
	o, path, m1 := openOriginsDown(t)
	p := mustStore(t, m1, papermem.PaperInput{DOI: retractedWork.DOI,
		Text: "Vitamin D supplementation prevented every fracture in older adults."})
	if p.Metadata != papermem.MetadataPending {
		t.Fatalf("stored paper = %+v, want pending", *p)
	}
	if err := m1.Close(); err != nil {
		t.Fatal(err)
	}
	// The server died holding the job: its lease is the dead server's, and
	// has run out.
	raw := testutil.Raw(t, path, true)
	res, err := raw.Exec(`UPDATE jobs SET lease_owner = 'dead-server', leased_until = '2000-01-01T00:01:00.000Z', run_after = '2000-01-01T00:00:00.000Z'
		WHERE kind = 'metadata'`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%d jobs queued after the close, want the paper's one", n)
	}

	o.Fail(0)
	m2, err := papermem.Open(ctx, path, &papermem.Options{Origins: originOptions(o)})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	got := waitMetadata(t, m2, retractedWork.DOI)
	if got.Metadata != papermem.MetadataComplete || !got.Retracted || got.Title != retractedWork.Title || got.Year != retractedWork.Year {
		t.Fatalf("paper after the restart = %+v, want it filled and retracted", *got)
	}
	rec, err := m2.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D prevent fractures in older adults?", BudgetTokens: 500})
	if err != nil || len(rec.Spans) == 0 {
		t.Fatalf("recall: %+v, %v", rec, err)
	}
	for _, s := range rec.Spans {
		if s.Provenance.DOI == retractedWork.DOI && !s.Provenance.Retracted {
			t.Errorf("span of the retracted paper without provenance.retracted: %+v", s)
		}
	}
	// The job is deleted just after the paper is filled.
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		q, _, err := m2.JobsQueued(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if q["metadata"] == 0 {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("jobs queued 30 s after the paper was filled: %v", q)
		}
	}
}

// TestMetadataReindexAfterCrash: a server filled a paper's title from its
// origins and died before re-indexing it (the paper is pending with a
// title its nodes lack, its job held by the dead server). The job's next
// run re-indexes the paper before it marks it complete, and leaves alone
// a paper stored with its title whose job was held the same way.
func TestMetadataReindexAfterCrash(t *testing.T) {
	o, path, m1 := openOriginsDown(t)
	mustStore(t, m1, papermem.PaperInput{DOI: retractedWork.DOI, Text: "Supplementation prevented every fracture in older adults."})
	mustStore(t, m1, papermem.PaperInput{DOI: closedWork.DOI, Title: "My own title", Text: "Exercise reduced falls in older adults."})
	if err := m1.Close(); err != nil {
		t.Fatal(err)
	}
	raw := testutil.Raw(t, path, true)
	for q, want := range map[string]int64{
		`UPDATE papers SET title = '` + retractedWork.Title + `' WHERE doi = '` + retractedWork.DOI + `'`: 1,
		`UPDATE jobs SET lease_owner = 'dead-server', leased_until = '2000-01-01T00:01:00.000Z', run_after = '2000-01-01T00:00:00.000Z', attempts = 1
			WHERE kind = 'metadata'`: 2,
	} {
		if res, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		} else if n, _ := res.RowsAffected(); n != want {
			t.Fatalf("%d rows for %s, want %d", n, q, want)
		}
	}
	// paperNode returns the id and text of paper doi's title and abstract node.
	paperNode := func(doi string) (int64, string) {
		var id int64
		var text string
		if err := raw.QueryRow(`SELECT n.id, n.text FROM nodes n JOIN papers p ON p.id = n.owner_id AND n.kind = 'paper'
			WHERE n.label = 'Paper' AND p.doi = ?`, doi).Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		return id, text
	}
	if _, text := paperNode(retractedWork.DOI); strings.Contains(text, retractedWork.Title) {
		t.Fatal("the Paper node holds the title before the job ran")
	}
	ownID, _ := paperNode(closedWork.DOI)

	o.Fail(0)
	m2, err := papermem.Open(ctx, path, &papermem.Options{Origins: originOptions(o)})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	for _, doi := range []string{retractedWork.DOI, closedWork.DOI} {
		if got := waitMetadata(t, m2, doi); got.Metadata != papermem.MetadataComplete {
			t.Fatalf("paper after the restart = %+v, want it complete", *got)
		}
	}
	if _, text := paperNode(retractedWork.DOI); !strings.Contains(text, retractedWork.Title) {
		t.Errorf("complete, and the Paper node lacks the title: %q", text)
	}
	if id, text := paperNode(closedWork.DOI); id != ownID || !strings.HasPrefix(text, "My own title") {
		t.Errorf("the paper stored with its title was re-indexed (node %d, was %d): %q", id, ownID, text)
	}
}

// TestOriginsUnreachable checks a store against origins that accept
// connections and never answer, each request allowed an hour: a DOI alone
// fails with EUPSTREAM, nothing stored, once the store's deadline passes
// (the test would hang otherwise), a title alone gets its local id at the
// deadline, and a paper with its text is stored at once, pending.
func TestOriginsUnreachable(t *testing.T) {
	hole := testutil.BlackHole(t)
	m := testutil.Open(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: hole, UnpaywallURL: hole,
		OpenAlexURL: hole, ArxivURL: hole, Timeout: time.Hour, Deadline: 200 * time.Millisecond}})
	_, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/doi.alone"})
	if papermem.ErrorCode(err) != papermem.EUPSTREAM || !strings.Contains(papermem.ErrorMessage(err), "PAPERMEM_ORIGINS=off") {
		t.Fatalf("DOI alone, origins unreachable: %v, want EUPSTREAM naming PAPERMEM_ORIGINS=off", err)
	}
	if ok, err := m.PaperExists(ctx, "10.1000/doi.alone"); ok || err != nil {
		t.Errorf("refused DOI-only paper stored (%v, %v)", ok, err)
	}
	if p := mustStore(t, m, papermem.PaperInput{Title: "A title alone"}); !strings.HasPrefix(p.DOI, "local:") ||
		p.Metadata != papermem.MetadataUnavailable {
		t.Errorf("title alone, Crossref unreachable: %+v, want a local id, metadata unavailable", *p)
	}
	p := mustStore(t, m, papermem.PaperInput{DOI: "10.1000/with.text", Title: "Bones", Text: "Vitamin D and bones."})
	if p.Metadata != papermem.MetadataPending || p.Title != "Bones" {
		t.Errorf("paper with its text: %+v, want it stored pending", *p)
	}
	if p := mustStore(t, m, papermem.PaperInput{Title: "Falls in older adults", Text: "Vitamin D and falls."}); !strings.HasPrefix(p.DOI, "local:") {
		t.Errorf("text without a DOI: %+v, want a local id at once", *p)
	}
	if states := m.OriginStates(); len(states) != 3 || states[0].Name != "crossref" {
		t.Errorf("origin states = %+v", states)
	}
	h := m.Health(ctx)
	for _, c := range h.Components {
		if c.Name == "origins" && (c.Status != papermem.HealthOK || !strings.Contains(c.Detail, "crossref")) {
			t.Errorf("origins component = %+v, want ok with each origin's state", c)
		}
	}
}

// TestOriginsDown checks the circuit breaker through the library: once
// the origins failed enough in a row, a DOI-only store fails at once
// without a request (EUPSTREAM saying they are down), the origins' state
// says down without failing the health check, a paper with its text is
// stored pending and its job waits, uncounted, instead of asking.
func TestOriginsDown(t *testing.T) {
	o := fakeOrigins(t)
	o.Fail(500)
	opts := originOptions(o)
	opts.Deadline = time.Minute
	m := testutil.Open(t, &papermem.Options{Origins: opts})
	for i := 0; i < 10; i++ {
		_, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: fallsWork.DOI})
		if papermem.ErrorCode(err) != papermem.EUPSTREAM {
			t.Fatalf("DOI alone, origins failing: %v", err)
		}
		if strings.Contains(papermem.ErrorMessage(err), "are down") {
			break
		}
	}
	for _, s := range m.OriginStates() {
		if s.State != papermem.OriginDown || s.Since == "" || s.Retry == "" || !strings.Contains(s.LastError, "500") {
			t.Fatalf("origin %s after repeated failures: %+v, want down", s.Name, s)
		}
	}
	before := len(o.Requests())
	_, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: fallsWork.DOI})
	if papermem.ErrorCode(err) != papermem.EUPSTREAM {
		t.Fatalf("DOI alone, origins down: %v", err)
	}
	if p := mustStore(t, m, papermem.PaperInput{DOI: closedWork.DOI, Text: "A closed study of bones."}); p.Metadata != papermem.MetadataPending {
		t.Errorf("paper with its text while the origins are down: %+v", *p)
	}
	if after := len(o.Requests()); after != before {
		t.Errorf("%d requests sent while every origin is down", after-before)
	}
	if h := m.Health(ctx); h.Status != papermem.HealthOK {
		t.Errorf("health with the origins down = %+v, want ok", h)
	}
}

// TestOriginsDownLogsOnce stores papers with their text while every
// origin answers 500: each store is answered at once, pending, while the
// background jobs take the origins down, and the log says so once per
// service (its "origin is down" line), not once per paper.
func TestOriginsDownLogsOnce(t *testing.T) {
	o := fakeOrigins(t)
	o.Fail(500)
	var logs testutil.Buffer
	m := testutil.Open(t, &papermem.Options{Origins: originOptions(o), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const papers = 20
	for i := range papers {
		p := mustStore(t, m, papermem.PaperInput{DOI: fmt.Sprintf("10.1000/down.%d", i), Title: "Bones", Text: "Vitamin D and bones."})
		if p.Metadata != papermem.MetadataPending {
			t.Fatalf("paper %d stored while the origins fail: %+v, want pending", i, *p)
		}
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		down := 0
		for _, s := range m.OriginStates() {
			if s.State == papermem.OriginDown {
				down++
			}
		}
		if down == 3 {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("origins 30 s after %d papers queued their jobs: %+v", papers, m.OriginStates())
		}
	}
	out := logs.String()
	for _, s := range []string{"crossref", "unpaywall", "openalex"} {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "origin is down") && strings.Contains(l, "service="+s+" ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d lines saying %s is down, want 1:\n%s", n, s, out)
		}
	}
	if n := strings.Count(out, "level=WARN"); n != 3 {
		t.Errorf("%d warnings for %d papers, want the 3 down lines:\n%s", n, papers, out)
	}
}

// TestMetadataWaitsForDownService: with Crossref down and OpenAlex up but
// not knowing the papers' DOIs, a metadata job fails because Crossref is
// down, and is given back to run when Crossref is probed next, not at
// once: the metadata kind's readiness (one of Crossref and OpenAlex up)
// alone would have it claimed and failed again in a loop.
func TestMetadataWaitsForDownService(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/crossref") {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	path := testdb.Path(t)
	m, err := papermem.Open(ctx, path, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: srv.URL + "/crossref",
		OpenAlexURL: srv.URL + "/openalex", UnpaywallURL: srv.URL + "/unpaywall", Contact: "ops@example.org", NoCitations: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	for i := range 6 {
		mustStore(t, m, papermem.PaperInput{DOI: fmt.Sprintf("10.1000/unknown.%d", i), Title: "Bones", Text: "Some text about bones."})
	}
	raw := testutil.Raw(t, path, false)
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		var retry string
		for _, s := range m.OriginStates() {
			if s.Name == "crossref" && s.State == papermem.OriginDown {
				retry = s.Retry
			}
		}
		var due string
		err := raw.QueryRow(`SELECT run_after FROM jobs WHERE kind = 'metadata' AND last_error LIKE '%service is down%' ORDER BY run_after LIMIT 1`).Scan(&due)
		if retry != "" && err == nil {
			dueAt, err1 := time.Parse(time.RFC3339Nano, due)
			retryAt, err2 := time.Parse(time.RFC3339Nano, retry)
			if err1 != nil || err2 != nil {
				t.Fatalf("times %q, %q: %v, %v", due, retry, err1, err2)
			}
			if dueAt.Before(retryAt.Add(-time.Second)) { // timestamps are read back to the millisecond, OriginStates' to the second
				t.Errorf("a job failed by Crossref being down is due at %s, before Crossref's next probe at %s", due, retry)
			}
			return
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no job given back for Crossref being down within 30 s (crossref retry %q, %v)", retry, err)
		}
	}
}
