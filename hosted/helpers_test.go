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
		NewUser: hosted.NewUser{Email: email, Password: "correct horse", Name: "Ada"}, WorkspaceID: org})
	if err != nil {
		t.Fatalf("signup %s: %v", email, err)
	}
	return u
}

// The root package tests' paper and helpers (internal/testutil).
var (
	mustStore = testutil.MustStore
	link      = testutil.Link
	claimID   = testutil.ClaimID
	vitaminD  = testutil.VitaminD
)
