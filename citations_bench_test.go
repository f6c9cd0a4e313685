package papermem_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testutil"
)

// BenchmarkStoreCitations measures what reading citation links costs a
// store, in one run: the same stores of papers with a DOI, a title and a
// text (which never wait on the origins) with citations jobs off
// (NoCitations) and on, against a stand-in graph answering every request
// after 30 ms. ns/op is the store's latency; drain-ms how long the
// background jobs (metadata in both, citations when on) took to finish
// after the last store; links/paper what they stored. p50-µs and p95-µs
// are the stores' median and 95th percentile, steadier than the mean on a
// shared machine.
//
//	go test -run '^$' -bench StoreCitations -benchtime 200x -count 3 .
func BenchmarkStoreCitations(b *testing.B) {
	const papers, refs = 400, 30
	var works []testutil.GraphWork
	for i := range papers {
		w := testutil.GraphWork{ID: fmt.Sprintf("W%d", 1000+i), DOI: fmt.Sprintf("10.7000/p%d", i), Title: fmt.Sprintf("Paper %d", i), Year: 2000 + i%25}
		for j := 1; j <= refs; j++ {
			w.Cites = append(w.Cites, fmt.Sprintf("W%d", 1000+(i+j*7)%papers))
		}
		works = append(works, w)
	}
	text := "Vitamin D supplementation and falls in older adults: a randomised trial of 2000 participants found no effect on fall rate (RR 0.98)."
	for _, arm := range []struct {
		name string
		off  bool
	}{{"off", true}, {"on", false}} {
		b.Run(arm.name, func(b *testing.B) {
			g := testutil.FakeGraph(b, works...)
			g.SetDelay(30 * time.Millisecond)
			m := testutil.Open(b, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: g.CrossrefURL(),
				UnpaywallURL: g.UnpaywallURL(), OpenAlexURL: g.OpenAlexURL(), Contact: "ops@example.org", NoCitations: arm.off}})
			w := m.Workspace("bench")
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				in := papermem.PaperInput{DOI: fmt.Sprintf("10.7000/p%d", i%papers), Title: fmt.Sprintf("Paper %d", i%papers), Text: text}
				t0 := time.Now()
				if _, _, err := w.StorePaper(ctx, in); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			b.StopTimer()
			n := len(took)
			slices.Sort(took)
			b.ReportMetric(float64(took[n/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[n*95/100].Microseconds()), "p95-µs")
			start := time.Now()
			for {
				queued, _, err := m.JobsQueued(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if queued["metadata"]+queued["citations"] == 0 {
					break
				}
				if time.Since(start) > 5*time.Minute {
					b.Fatalf("jobs still queued after 5 minutes: %v", queued)
				}
				time.Sleep(10 * time.Millisecond)
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds()), "drain-ms")
			links := 0
			for i := range min(n, papers) {
				l, err := w.References(ctx, fmt.Sprintf("10.7000/p%d", i), papermem.CitationOptions{StoredOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				links += len(l.Works)
			}
			b.ReportMetric(float64(links)/float64(min(n, papers)), "links/paper")
		})
	}
}
