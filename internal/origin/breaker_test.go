package origin_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/origin"
	"github.com/papermem/papermem/internal/testutil"
)

// TestBreaker follows Crossref's circuit: failures in a row take it down
// (one log line), its requests then fail at once with ErrDown without
// reaching it while OpenAlex is still asked, a probe after the cool-down
// that fails doubles the cool-down, and one that succeeds brings it back
// (one log line).
func TestBreaker(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	f.handle("crossref", status(503))
	var logs testutil.Buffer
	o := f.options()
	o.Retries = -1
	o.BreakerFailures, o.BreakerCooldown, o.BreakerMaxCooldown = 3, 50*time.Millisecond, time.Second
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c := origin.New(o)

	for i := range 3 {
		if _, err := c.Work(ctx, "10.1000/xyz.1"); !errors.Is(err, origin.ErrUpstream) || errors.Is(err, origin.ErrDown) {
			t.Fatalf("lookup %d with Crossref failing: %v, want ErrUpstream, not yet ErrDown", i, err)
		}
	}
	st := c.States()[0]
	if st.Name != "crossref" || !st.Down || st.Failures != 3 || !strings.Contains(st.LastError, "503") {
		t.Fatalf("Crossref after 3 failures: %+v", st)
	}
	if ok, _ := c.WorkReady(); !ok {
		t.Errorf("WorkReady with OpenAlex up = false")
	}
	_, err := c.Work(ctx, "10.1000/xyz.1")
	if !errors.Is(err, origin.ErrDown) || !errors.Is(err, origin.ErrUpstream) || f.hits("crossref") != 3 || f.hits("openalex") != 4 {
		t.Fatalf("lookup while Crossref is down: %v; Crossref asked %d times, OpenAlex %d: want ErrDown, 3 and 4",
			err, f.hits("crossref"), f.hits("openalex"))
	}

	// A failed probe: down again, for twice the cool-down.
	time.Sleep(time.Until(st.Retry))
	before := time.Now()
	c.Work(ctx, "10.1000/xyz.1")
	st = c.States()[0]
	if !st.Down || f.hits("crossref") != 4 || st.Retry.Sub(before) < 100*time.Millisecond {
		t.Fatalf("after a failed probe: %+v, Crossref asked %d times; want down again until at least %s", st, f.hits("crossref"), before.Add(100*time.Millisecond))
	}

	f.handle("crossref", answer(crossrefXYZ))
	time.Sleep(time.Until(st.Retry))
	w, err := c.Work(ctx, "10.1000/xyz.1")
	if err != nil || w.Container != "Journal of Cats" {
		t.Fatalf("lookup once Crossref is back: %+v, %v", w, err)
	}
	if st := c.States()[0]; st.Down || st.Failures != 0 {
		t.Errorf("Crossref after it answered: %+v", st)
	}
	if down, back := strings.Count(logs.String(), "origin is down"), strings.Count(logs.String(), "origin is back"); down != 1 || back != 1 {
		t.Errorf("logged %d down and %d back lines, want one each:\n%s", down, back, logs.String())
	}
}

// TestBreakerWorkReady checks that WorkReady says no, with the time of the
// first probe, while both Crossref and OpenAlex are down, and that a
// cancelled lookup does not count against a service.
func TestBreakerWorkReady(t *testing.T) {
	f := newFake(t)
	f.handle("crossref", status(500))
	f.handle("openalex", status(500))
	o := f.options()
	o.Retries = -1
	o.BreakerFailures, o.BreakerCooldown = 2, time.Hour
	c := origin.New(o)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	c.Work(cancelled, "10.1000/xyz.1")
	if st := c.States()[0]; st.Failures != 0 {
		t.Errorf("a cancelled lookup counted: %+v", st)
	}
	for range 2 {
		c.Work(context.Background(), "10.1000/xyz.1")
	}
	ok, retry := c.WorkReady()
	if ok || time.Until(retry) < 50*time.Minute {
		t.Errorf("WorkReady with Crossref and OpenAlex down = %v, %v; want false, in about an hour", ok, retry)
	}
}

// TestBreakerRateLimited checks that a service answering 429 (with a
// Retry-After) is rate-limiting, not down: however many in a row, its
// circuit stays closed and every lookup still asks it.
func TestBreakerRateLimited(t *testing.T) {
	f := newFake(t)
	f.handle("crossref", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		status(http.StatusTooManyRequests)(w, r)
	})
	o := f.options()
	o.Retries = -1
	o.BreakerFailures = 2
	c := origin.New(o)
	for i := range 4 {
		if _, err := c.Work(context.Background(), "10.1000/xyz.1"); !errors.Is(err, origin.ErrUpstream) || errors.Is(err, origin.ErrDown) {
			t.Fatalf("lookup %d with Crossref rate-limiting: %v, want ErrUpstream, not ErrDown", i, err)
		}
	}
	if st := c.States()[0]; st.Down || st.Failures != 0 || f.hits("crossref") != 4 {
		t.Errorf("Crossref after four 429s: %+v, asked %d times; want up and asked 4 times", st, f.hits("crossref"))
	}
}
