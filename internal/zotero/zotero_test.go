package zotero

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestNextLink(t *testing.T) {
	for in, want := range map[string]string{
		`<https://api.zotero.org/users/1/items?start=100>; rel="next", <https://api.zotero.org/users/1/items?start=900>; rel="last"`: "https://api.zotero.org/users/1/items?start=100",
		`<https://api.zotero.org/users/1/items?start=900>; rel="last", <https://x/a>; rel = "next"`:                                  "https://x/a",
		`<https://api.zotero.org/users/1/items?start=900>; rel="last"`:                                                               "",
		``: "",
	} {
		h := http.Header{}
		if in != "" {
			h.Set("Link", in)
		}
		if got := nextLink(h); got != want {
			t.Errorf("nextLink(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	if d, ok := retryAfter("2"); !ok || d != 2*time.Second {
		t.Errorf("retryAfter(2) = %v, %v", d, ok)
	}
	if _, ok := retryAfter("soon"); ok {
		t.Error("retryAfter(soon) parsed")
	}
	if d, ok := retryAfter(time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)); !ok || d != 0 {
		t.Errorf("retryAfter(a past date) = %v, %v", d, ok)
	}
}

// TestRequests checks the headers, the limit of four requests in flight, a
// Backoff honoured by every request, a 429 retried and its Retry-After
// honoured by every request (none starts from 100 ms after it until it
// ends, the first 100 ms left to requests already on their way), and the
// key kept from a file's redirect target.
func TestRequests(t *testing.T) {
	var inFlight, most atomic.Int32
	var mu sync.Mutex
	var backoffSent, throttled bool
	var pausedUntil, throttledFrom, throttledUntil time.Time
	var early, duringRetryAfter atomic.Int32
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Zotero-API-Key") != "" {
			t.Error("the key reached the file's storage")
		}
		io.WriteString(w, "%PDF-1.4 file")
	}))
	defer storage.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if r.Header.Get("Zotero-API-Key") != "secret" || r.Header.Get("Zotero-API-Version") != "3" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		mu.Lock()
		if now := time.Now(); now.Before(pausedUntil) {
			early.Add(1)
		} else if now.After(throttledFrom) && now.Before(throttledUntil) {
			duringRetryAfter.Add(1)
		}
		if !backoffSent {
			backoffSent = true
			pausedUntil = time.Now().Add(900 * time.Millisecond)
			w.Header().Set("Backoff", "1")
		} else if !throttled && strings.HasSuffix(r.URL.Path, "/children") {
			throttled = true
			throttledFrom, throttledUntil = time.Now().Add(100*time.Millisecond), time.Now().Add(900*time.Millisecond)
			mu.Unlock()
			w.Header().Set("Retry-After", "1")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
			return
		}
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		if strings.HasSuffix(r.URL.Path, "/file") {
			http.Redirect(w, r, storage.URL+"/bucket/x.pdf?sig=1", http.StatusFound)
			return
		}
		io.WriteString(w, "[]")
	}))
	defer api.Close()
	c, err := New(Options{URL: api.URL, Library: "users/1", Key: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Check(ctx, 0); err != nil { // answered with Backoff: 1
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if _, err := c.Children(ctx, fmt.Sprintf("K%d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	rc, err := c.File(ctx, "PDF1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "%PDF-1.4 file" {
		t.Errorf("file %q", b)
	}
	if m := most.Load(); m > MaxInFlight {
		t.Errorf("%d requests in flight, want at most %d", m, MaxInFlight)
	}
	if !throttled {
		t.Error("no request was throttled")
	}
	if n := early.Load(); n > 0 {
		t.Errorf("%d requests during the Backoff", n)
	}
	if n := duringRetryAfter.Load(); n > 0 {
		t.Errorf("%d requests during the Retry-After", n)
	}
	bad, _ := New(Options{URL: api.URL, Library: "users/1", Key: "wrong"})
	if _, err := bad.Check(ctx, 0); !Forbidden(err) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a wrong key: %v", err)
	}
	if _, err := New(Options{Library: "me"}); err != ErrLibrary {
		t.Errorf("library me: %v", err)
	}
}

func FuzzNextLink(f *testing.F) {
	f.Add(`<https://api.zotero.org/users/1/items?start=100>; rel="next", <https://api.zotero.org/users/1/items?start=900>; rel="last"`)
	f.Add(`<>;;rel="next",,`)
	f.Fuzz(func(t *testing.T, s string) {
		h := http.Header{}
		h.Set("Link", s)
		c := &Client{base: "https://api.zotero.org/users/1"}
		if u, err := c.resolve(nextLink(h)); err == nil && !strings.HasPrefix(u, "https://api.zotero.org/") {
			t.Fatalf("resolve(%q) = %q: a page off the API's host would get the key", nextLink(h), u)
		}
	})
}
