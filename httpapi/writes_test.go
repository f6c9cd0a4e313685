package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestWritesUnavailable holds the database's write lock (on PostgreSQL a
// lock on the papers table) from another connection, as another process
// would, and stores papers over HTTP with a
// write queue of one and a 100 ms wait: the writes that cannot get their
// turn are answered 503 unavailable with Retry-After (never 500) and store
// nothing; the one already begun finishes once the lock is released.
func TestWritesUnavailable(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	m, err := papermem.Open(ctx, path, &papermem.Options{WriteQueue: 1, WriteWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	svc, err := hosted.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	e := &env{t: t, m: m, svc: svc, srv: httptest.NewServer(httpapi.New(svc, httpapi.Config{DevAuth: true}))}
	defer e.srv.Close()
	dev := []string{"X-Dev-Org-Id", "lab", "X-Dev-User-Id", "u1"}
	storePaper(t, e, dev[:2], "10.5000/first") // the workspace exists

	lock, err := testutil.Raw(t, path, true).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	hold := "BEGIN IMMEDIATE" // SQLite's write lock
	if testdb.Postgres() {
		hold = "BEGIN; LOCK TABLE papers IN EXCLUSIVE MODE" // reads go on, writes wait
	}
	if _, err := lock.ExecContext(ctx, hold); err != nil {
		t.Fatal(err)
	}

	const n = 5
	results := make([]resp, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = e.do("POST", "/v1/papers", map[string]any{"doi": fmt.Sprintf("10.5000/w%d", i),
				"title": "Write gate", "text": "Queued writes answered 503 stored nothing."}, dev[:2]...)
		})
	}
	// Every write but the one the writer has begun is refused while the
	// lock is held: wait for those refusals, then release the lock.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		refused := 0
		e.mu.Lock()
		for _, b := range e.bodies {
			refused += strings.Count(b, `"code":"unavailable"`) // not a paper's "metadata":"unavailable"
		}
		e.mu.Unlock()
		if refused >= n-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes refused, want %d", refused, n-1)
		}
	}
	if _, err := lock.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	ok := 0
	for i, r := range results {
		exists := e.do("GET", fmt.Sprintf("/v1/papers/10.5000/w%d/exists", i), nil, dev[:2]...)
		switch r.status {
		case http.StatusOK, http.StatusCreated:
			ok++
			if !strings.Contains(string(exists.body), "true") {
				t.Errorf("acknowledged paper %d is missing: %s", i, exists.body)
			}
		case http.StatusServiceUnavailable:
			want(t, r, http.StatusServiceUnavailable, "unavailable")
			if r.header.Get("Retry-After") != "1" {
				t.Errorf("503 without Retry-After: %v", r.header)
			}
			if !strings.Contains(string(exists.body), "false") {
				t.Errorf("refused paper %d was stored: %s", i, exists.body)
			}
		default:
			t.Errorf("write %d: status %d: %s", i, r.status, r.body)
		}
	}
	if ok > 1 {
		t.Errorf("%d writes acknowledged, want at most the one begun before the others were refused", ok)
	}
}
