package papermem_test

import (
	"fmt"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/scifact"
)

// scifactDocs returns up to n abstracts of the shared SciFact corpus as
// papers, or skips the benchmark when the data is absent.
func scifactDocs(tb testing.TB, n int) []papermem.PaperInput {
	tb.Helper()
	docs, err := scifact.Corpus(scifact.DefaultDir)
	if err != nil {
		tb.Skip("shared SciFact corpus not found:", err)
	}
	var out []papermem.PaperInput
	for _, d := range docs[:min(n, len(docs))] {
		out = append(out, papermem.PaperInput{DOI: "10.0000/scifact." + d.ID, Title: d.Title, Text: d.Text})
	}
	return out
}

func BenchmarkStorePaper(b *testing.B) {
	docs := scifactDocs(b, 500)
	m := mustOpen(b)
	var bytes int64
	for _, d := range docs {
		bytes += int64(len(d.Title) + len(d.Text))
	}
	b.SetBytes(bytes / int64(len(docs)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d := docs[i%len(docs)]
		d.DOI = fmt.Sprintf("%s.%d", d.DOI, i)
		if _, _, err := m.StorePaper(ctx, d); err != nil {
			b.Fatal(err)
		}
	}
}

// benchMemory stores SciFact abstracts until the memory holds about nodes
// nodes, and returns it with the claims to ask.
func benchMemory(b *testing.B, nodes int) (*papermem.Memory, []string) {
	b.Helper()
	docs := scifactDocs(b, 6000)
	m := mustOpen(b)
	for i, stored := 0, 0; stored < nodes; i++ {
		d := docs[i%len(docs)]
		d.DOI = fmt.Sprintf("%s.%d", d.DOI, i/len(docs))
		_, rep, err := m.StorePaper(ctx, d)
		if err != nil {
			b.Fatal(err)
		}
		stored += rep.NodesStored
	}
	var qs []string
	for _, d := range docs[:200] {
		qs = append(qs, d.Title) // titles read like the questions agents ask
	}
	return m, qs
}

func BenchmarkRecall10k(b *testing.B) {
	m, qs := benchMemory(b, 10000)
	for _, mode := range []papermem.Retrieval{papermem.RetrievalHybrid, papermem.RetrievalLexical, papermem.RetrievalVector} {
		b.Run("mode="+string(mode), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := m.Recall(ctx, papermem.RecallRequest{Question: qs[i%len(qs)], Retrieval: mode}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecallClaims asks SciFact claims (not titles) of a 10k-node
// memory, each retrieval mode and label, for profiling the hot path.
func BenchmarkRecallClaims(b *testing.B) {
	m, _ := benchMemory(b, 10000)
	claims, err := scifact.Queries(scifact.DefaultDir)
	if err != nil {
		b.Skip(err)
	}
	var qs []string
	for _, c := range claims {
		qs = append(qs, c.Text)
	}
	for _, label := range []string{"Claim", "Any"} {
		for _, mode := range []papermem.Retrieval{papermem.RetrievalHybrid, papermem.RetrievalLexical, papermem.RetrievalVector} {
			b.Run("label="+label+"/mode="+string(mode), func(b *testing.B) {
				spans := 0
				for i := 0; b.Loop(); i++ {
					res, err := m.Recall(ctx, papermem.RecallRequest{Question: qs[i%len(qs)], Label: label, Retrieval: mode})
					if err != nil {
						b.Fatal(err)
					}
					spans += len(res.Spans)
				}
				b.ReportMetric(float64(spans)/float64(b.N), "spans/op")
			})
		}
	}
}

// BenchmarkRecallScoped asks each title of a 10k-node memory scoped to its
// own paper (dois), beside the same questions unscoped: a scoped search
// reads every entry once for its scope's word statistics.
func BenchmarkRecallScoped(b *testing.B) {
	m, qs := benchMemory(b, 10000)
	docs := scifactDocs(b, len(qs))
	for _, scoped := range []bool{false, true} {
		b.Run(fmt.Sprintf("scoped=%v", scoped), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				req := papermem.RecallRequest{Question: qs[i%len(qs)]}
				if scoped {
					req.DOIs = []string{docs[i%len(qs)].DOI + ".0"}
				}
				if _, err := m.Recall(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
