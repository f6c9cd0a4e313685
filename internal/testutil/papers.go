package testutil

import (
	"context"
	"testing"

	"github.com/papermem/papermem"
)

// VitaminD is the tests' paper: an abstract, methods and results.
var VitaminD = papermem.PaperInput{
	DOI:   "10.1000/VitD",
	Title: "Vitamin D supplementation and fracture risk in older adults",
	Text: `Abstract
Vitamin D supplementation did not reduce fracture risk in adults over 70 years (hazard ratio 0.98, 95% CI 0.91-1.05).

Methods
We enrolled 25,000 participants in a randomised controlled trial across 12 countries.

Results
Supplementation increased serum 25-hydroxyvitamin D by 40% compared with placebo. Falls were not reduced.`,
	Authors: []string{"A. Author", "B. Author"},
	Year:    2021,
	Domain:  "medicine",
}

// MustStore stores a paper in w (a Memory or a Workspace) or fails the
// test.
func MustStore(tb testing.TB, w interface {
	StorePaper(context.Context, papermem.PaperInput) (*papermem.Paper, *papermem.IngestReport, error)
}, in papermem.PaperInput) *papermem.Paper {
	tb.Helper()
	p, _, err := w.StorePaper(context.Background(), in)
	if err != nil {
		tb.Fatalf("StorePaper(%q): %v", in.DOI, err)
	}
	return p
}

// Link links a session to papers (and claims) or fails the test.
func Link(tb testing.TB, w *papermem.Workspace, session string, papers []string, claims ...int64) *papermem.SessionLinks {
	tb.Helper()
	res, err := w.LinkSession(context.Background(), papermem.SessionLink{SessionID: session, Papers: papers, Claims: claims})
	if err != nil {
		tb.Fatalf("LinkSession(%s): %v", session, err)
	}
	return res
}

// ClaimID returns the node id of the first span recall finds for q.
func ClaimID(tb testing.TB, w *papermem.Workspace, q string) int64 {
	tb.Helper()
	res, err := w.Recall(context.Background(), papermem.RecallRequest{Question: q})
	if err != nil || len(res.Spans) == 0 {
		tb.Fatalf("Recall(%q) = %+v, %v", q, res, err)
	}
	return res.Spans[0].NodeID
}
