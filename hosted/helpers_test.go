package hosted_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

var ctx = context.Background()

const paySecret = "test-payment-secret"

// clock is a settable papermem.Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// open returns a hosted service without a payment provider over a fresh
// memory; both close when the test ends.
func open(tb testing.TB) *hosted.Service {
	tb.Helper()
	return testutil.OpenHosted(tb, nil, nil)
}

// openBilling returns a hosted service with the built-in payment provider
// over a fresh memory on a settable clock.
func openBilling(tb testing.TB) (*hosted.Service, *clock) {
	tb.Helper()
	c := &clock{t: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)}
	svc := testutil.OpenHosted(tb, &papermem.Options{Now: c.now}, &hosted.Options{Payments: hosted.NewSignedOrders(paySecret)})
	return svc, c
}

// openAt opens a memory over the database at path, with opts, and the
// hosted service over it; both close when the test ends.
func openAt(tb testing.TB, path string, opts *papermem.Options) *hosted.Service {
	tb.Helper()
	m, err := papermem.Open(ctx, path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return testutil.Hosted(tb, m, nil)
}

// sharedFile opens two Memories over one database file, as two processes
// would, each with its hosted service, and returns the file's path with
// the services.
func sharedFile(t *testing.T) (path string, a, b *hosted.Service) {
	path = testdb.Path(t)
	return path, openAt(t, path, nil), openAt(t, path, nil)
}

// execSQL runs a statement on the database file by hand, as another tool
// would.
func execSQL(t *testing.T, path, query string, args ...any) {
	t.Helper()
	if _, err := testutil.Raw(t, path, true).ExecContext(ctx, query, args...); err != nil {
		t.Fatal(err)
	}
}

func signup(t *testing.T, svc *hosted.Service, email, org string) *hosted.User {
	t.Helper()
	u, err := svc.Signup(context.Background(), hosted.SignupInput{
		NewUser: hosted.NewUser{Email: email, Password: "correct horse", Name: "Ada"}, OrgID: org})
	if err != nil {
		t.Fatalf("signup %s: %v", email, err)
	}
	return u
}

func mustStore(tb testing.TB, w *papermem.Workspace, in papermem.PaperInput) *papermem.Paper {
	tb.Helper()
	p, _, err := w.StorePaper(ctx, in)
	if err != nil {
		tb.Fatalf("StorePaper(%q): %v", in.DOI, err)
	}
	return p
}

// link links a session to papers (and claims) or fails the test.
func link(tb testing.TB, w *papermem.Workspace, session string, papers []string, claims ...int64) *papermem.SessionLinks {
	tb.Helper()
	res, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: session, Papers: papers, Claims: claims})
	if err != nil {
		tb.Fatalf("LinkSession(%s): %v", session, err)
	}
	return res
}

// claimID returns the node id of the first claim recall finds for q.
func claimID(t *testing.T, w *papermem.Workspace, q string) int64 {
	t.Helper()
	res, err := w.Recall(ctx, papermem.RecallRequest{Question: q})
	if err != nil || len(res.Spans) == 0 {
		t.Fatalf("Recall(%q) = %+v, %v", q, res, err)
	}
	return res.Spans[0].NodeID
}

// vitaminD is the root package tests' paper (memory_test.go).
var vitaminD = papermem.PaperInput{
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
