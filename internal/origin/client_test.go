package origin_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/origin"
)

func TestTrusted(t *testing.T) {
	c := origin.New(origin.Options{
		UnpaywallURL: "http://127.0.0.1:8080/unpaywall",
		OpenAlexURL:  "http://[::1]:9000",
		ArxivURL:     "https://ARXIV.example:8443/",
	}) // Crossref's default, https://api.crossref.org
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://api.crossref.org/works/10.1000/x", true},
		{"https://API.Crossref.org:443/other/path?q=1", true},
		{"https://api.crossref.org./works", true},
		{"http://api.crossref.org/works", false},       // another scheme
		{"https://api.crossref.org:8443/works", false}, // another port
		{"https://api.crossref.org.evil.example/works", false},
		{"https://evil.example/https://api.crossref.org/", false},
		{"https://user:pw@api.crossref.org/works", false},
		{"http://127.0.0.1:8080/elsewhere", true},
		{"http://127.0.0.1:8081/unpaywall", false},
		{"http://localhost:8080/unpaywall", false},
		{"http://[::1]:9000/works", true},
		{"https://arxiv.example:8443/pdf/2101.00001", true},
		{"https://arxiv.example/pdf/2101.00001", false},
		{"https://api.openalex.org/works", false}, // not configured: OpenAlexURL replaced it
		{"https://api.unpaywall.org/v2/x", false},
		{"ftp://api.crossref.org/", false},
		{"/works/10.1000/x", false},
		{"", false},
		{"::not a url", false},
	} {
		if got := c.Trusted(tc.url); got != tc.want {
			t.Errorf("Trusted(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
	if d := origin.New(origin.Options{}); !d.Trusted("https://arxiv.org/pdf/2101.00001") || !d.Trusted("https://api.unpaywall.org/v2/x") ||
		!d.Trusted("https://api.openalex.org/works/doi:10.1/x") {
		t.Error("the default services are not trusted")
	}
}

func TestContact(t *testing.T) {
	f := newFake(t)
	f.handle("crossref", status(http.StatusNotFound))
	f.handle("unpaywall", answer(unpaywallXYZ))
	f.handle("openalex", answer(openalexXYZ))
	o := f.options()
	o.UserAgent = "mytool/1.2"
	o.OpenAlexKey = "k3y"
	if _, err := origin.New(o).Work(context.Background(), "10.1000/xyz.1"); err != nil {
		t.Fatal(err)
	}
	for service, want := range map[string]map[string]string{
		"crossref":  {"mailto": contact},
		"openalex":  {"mailto": contact, "api_key": "k3y"},
		"unpaywall": {"email": contact},
	} {
		reqs := f.requests(service)
		if len(reqs) != 1 {
			t.Fatalf("%s received %d requests, want 1", service, len(reqs))
		}
		r := reqs[0]
		q := r.URL.Query()
		for k, v := range want {
			if q.Get(k) != v {
				t.Errorf("%s: parameter %s = %q, want %q", service, k, q.Get(k), v)
			}
		}
		if len(q) != len(want) {
			t.Errorf("%s: parameters %v, want only %v", service, q, want)
		}
		ua := r.Header.Get("User-Agent")
		if !strings.HasPrefix(ua, "mytool/1.2 papermem/") || !strings.HasSuffix(ua, " (mailto:"+contact+")") {
			t.Errorf("%s: User-Agent %q, want \"mytool/1.2 papermem/<version> (mailto:%s)\"", service, ua, contact)
		}
	}

	t.Run("None", func(t *testing.T) {
		f := newFake(t)
		f.handle("crossref", answer(crossrefXYZ))
		o := f.options()
		o.Contact = ""
		c := origin.New(o)
		if _, err := c.Work(context.Background(), "10.1000/xyz.1"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.FullText(context.Background(), "10.1000/xyz.1"); err != nil {
			t.Fatal(err)
		}
		for _, service := range []string{"crossref", "openalex", "unpaywall"} {
			for _, r := range f.requests(service) {
				if len(r.URL.Query()) != 0 || strings.Contains(r.Header.Get("User-Agent"), "mailto") {
					t.Errorf("%s: request %s with User-Agent %q, want no contact", service, r.URL, r.Header.Get("User-Agent"))
				}
			}
		}
	})
}

func TestCache(t *testing.T) {
	f := newFake(t)
	f.handle("crossref", answer(crossrefXYZ))
	f.handle("unpaywall", answer(unpaywallXYZ))
	f.handle("openalex", answer(openalexXYZ))
	cache := &memCache{}
	o := f.options()
	o.Cache = cache
	c := origin.New(o)
	ctx := context.Background()
	hits := func() int { return f.hits("crossref") + f.hits("unpaywall") + f.hits("openalex") }

	first, err := c.Work(ctx, "10.1000/xyz.1")
	if err != nil {
		t.Fatal(err)
	}
	keys := cache.keys()
	slices.Sort(keys)
	wantKeys := []string{f.srv.URL + "/crossref/works/10.1000/xyz.1", f.srv.URL + "/unpaywall/v2/10.1000/xyz.1"}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("cache keys %q, want %q (no contact address)", keys, wantKeys)
	}

	t.Run("Hit", func(t *testing.T) {
		before := hits()
		again, err := c.Work(ctx, "https://doi.org/10.1000/XYZ.1")
		if err != nil {
			t.Fatal(err)
		}
		if n := hits() - before; n != 0 {
			t.Errorf("a cached Work made %d requests, want none", n)
		}
		if !reflect.DeepEqual(again, first) {
			t.Errorf("cached Work = %+v, want %+v", again, first)
		}
	})

	t.Run("Fresh", func(t *testing.T) {
		f.handle("crossref", answer(strings.Replace(crossrefXYZ, `"score":1`,
			`"updated-by":[{"DOI":"10.1000/retr","type":"retraction","updated":{"date-parts":[[2024,2,29]]}}]`, 1)))
		if w, err := c.Work(ctx, "10.1000/xyz.1"); err != nil || w.Retracted {
			t.Fatalf("cached Work = %+v, %v; want the old, unretracted answer", w, err)
		}
		before := hits()
		w, err := c.WorkFresh(ctx, "10.1000/xyz.1")
		if err != nil {
			t.Fatal(err)
		}
		if n := hits() - before; n != 2 {
			t.Errorf("WorkFresh made %d requests, want 2 (Crossref and Unpaywall)", n)
		}
		want := []origin.Notice{{Type: "retraction", DOI: "10.1000/retr", Date: "2024-02-29"}}
		if !w.Retracted || !reflect.DeepEqual(w.Notices, want) {
			t.Errorf("WorkFresh: Retracted, Notices = %v, %+v; want true, %+v", w.Retracted, w.Notices, want)
		}
		if w, err := c.Work(ctx, "10.1000/xyz.1"); err != nil || !w.Retracted {
			t.Errorf("Work after WorkFresh = %+v, %v; want the fresh answer from the cache", w, err)
		}
	})

	t.Run("FullTextShares", func(t *testing.T) {
		before := f.hits("unpaywall")
		if _, err := c.FullText(ctx, "10.1000/xyz.1"); err != nil {
			t.Fatal(err)
		}
		if n := f.hits("unpaywall") - before; n != 0 {
			t.Errorf("FullText asked Unpaywall %d times after Work, want none", n)
		}
	})

	t.Run("Unreadable", func(t *testing.T) {
		cache.Put(ctx, f.srv.URL+"/crossref/works/10.1000/bad", []byte("{garbage"))
		f.handle("crossref", answer(strings.Replace(crossrefXYZ, "XYZ.1", "bad", 1)))
		before := f.hits("crossref")
		if _, err := c.Work(ctx, "10.1000/bad"); err != nil {
			t.Fatal(err)
		}
		if n := f.hits("crossref") - before; n != 1 {
			t.Errorf("an unreadable cached answer led to %d requests, want 1", n)
		}
	})

	t.Run("NotFoundNotCached", func(t *testing.T) {
		f.handle("crossref", status(http.StatusNotFound))
		f.handle("unpaywall", status(http.StatusNotFound))
		f.handle("openalex", status(http.StatusNotFound))
		keys := len(cache.keys())
		before := hits()
		for range 2 {
			if _, err := c.Work(ctx, "10.1000/missing"); !errors.Is(err, origin.ErrNotFound) {
				t.Fatalf("Work = %v, want ErrNotFound", err)
			}
		}
		if n := len(cache.keys()); n != keys {
			t.Errorf("cache grew from %d to %d keys on 404s", keys, n)
		}
		if n := hits() - before; n != 6 {
			t.Errorf("two lookups of a missing DOI made %d requests, want 6", n)
		}
	})

	t.Run("CacheDown", func(t *testing.T) {
		f.handle("crossref", answer(crossrefXYZ))
		f.handle("unpaywall", answer(unpaywallXYZ))
		o := f.options()
		o.Cache = &memCache{fail: true}
		if _, err := origin.New(o).Work(ctx, "10.1000/xyz.1"); err != nil {
			t.Errorf("Work with a failing cache: %v", err)
		}
	})
}

// TestDOIPath: a DOI's special characters reach the services intact.
func TestDOIPath(t *testing.T) {
	for _, doi := range []string{
		"10.1002/(SICI)1097-4636(199606)31:2<213::AID-JBM9>3.0.CO;2-Q",
		"10.1000/a?b#c%d&mailto=x",
		"10.1000/a/b//c",
		"10.1000/ü+é",
	} {
		t.Run(doi, func(t *testing.T) {
			f := newFake(t)
			f.handle("openalex", answer(`{"id":"W1"}`))
			if _, err := origin.New(f.options()).Work(context.Background(), doi); err != nil {
				t.Fatal(err)
			}
			low := strings.ToLower(doi)
			for service, want := range map[string]string{
				"crossref":  "/works/" + low,
				"openalex":  "/works/doi:" + low,
				"unpaywall": "/v2/" + low,
			} {
				reqs := f.requests(service)
				if len(reqs) != 1 {
					t.Fatalf("%s received %d requests, want 1", service, len(reqs))
				}
				if got := reqs[0].URL.Path; got != want {
					t.Errorf("%s path %q, want %q", service, got, want)
				}
				if q := reqs[0].URL.Query(); len(q) != 1 {
					t.Errorf("%s parameters %v, want only the contact", service, q)
				}
			}
		})
	}
}

func TestConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name        string
		concurrency int
		contact     string
		want        int
	}{
		{"Set", 2, contact, 2},
		{"PolitePool", 0, contact, origin.DefaultConcurrency},
		{"PublicPool", 0, "", origin.DefaultPublicConcurrency},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			var mu sync.Mutex
			inFlight, most := 0, 0
			f.handle("crossref", func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
				mu.Lock()
				inFlight--
				mu.Unlock()
				answer(crossrefXYZ)(w, r)
			})
			o := f.options()
			o.Concurrency = tc.concurrency
			o.Contact = tc.contact
			c := origin.New(o)
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					if _, err := c.Work(context.Background(), "10.1000/xyz."+string(rune('a'+i))); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if most != tc.want {
				t.Errorf("%d requests in flight at most, want %d", most, tc.want)
			}
		})
	}
}

func TestContext(t *testing.T) {
	t.Run("Cancel", func(t *testing.T) {
		f := newFake(t)
		f.handle("crossref", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := origin.New(f.options()).Work(ctx, "10.1000/xyz.1")
		if !errors.Is(err, context.Canceled) || errors.Is(err, origin.ErrUpstream) {
			t.Errorf("Work = %v, want context.Canceled and not ErrUpstream", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Work took %s after its context was cancelled", d)
		}
	})
	t.Run("CancelDuringBackoff", func(t *testing.T) {
		f := newFake(t)
		f.handle("crossref", status(http.StatusServiceUnavailable))
		o := f.options()
		o.Backoff = 10 * time.Second
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := origin.New(o).Resolve(ctx, "anything at all")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Resolve = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Resolve took %s after its context was cancelled", d)
		}
	})
	t.Run("NoTimeForRetryAfter", func(t *testing.T) {
		// The caller's deadline comes before the wait asked for ends: give
		// up at once rather than sleep to the deadline.
		f := newFake(t)
		f.handle("crossref", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "5")
			status(http.StatusTooManyRequests)(w, r)
		})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err := origin.New(f.options()).Resolve(ctx, "anything at all")
		if !errors.Is(err, origin.ErrUpstream) || time.Since(start) > time.Second || f.hits("crossref") != 1 {
			t.Errorf("Resolve = %v after %s and %d requests, want ErrUpstream at once", err, time.Since(start), f.hits("crossref"))
		}
	})
	t.Run("RetryAfterTooLong", func(t *testing.T) {
		f := newFake(t)
		f.handle("crossref", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "120")
			status(http.StatusServiceUnavailable)(w, r)
		})
		start := time.Now()
		_, err := origin.New(f.options()).Resolve(context.Background(), "anything at all")
		if !errors.Is(err, origin.ErrUpstream) || time.Since(start) > time.Second || f.hits("crossref") != 1 {
			t.Errorf("Resolve = %v after %s and %d requests, want ErrUpstream at once", err, time.Since(start), f.hits("crossref"))
		}
	})
	t.Run("RetryAfterDate", func(t *testing.T) {
		f := newFake(t)
		f.handle("crossref", then(1, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)) // past: no wait
			status(http.StatusTooManyRequests)(w, r)
		}, answer(`{"message":{"items":[]}}`)))
		if doi, err := origin.New(f.options()).Resolve(context.Background(), "anything at all"); doi != "" || err != nil {
			t.Errorf("Resolve = %q, %v", doi, err)
		}
		if n := f.hits("crossref"); n != 2 {
			t.Errorf("crossref received %d requests, want 2", n)
		}
	})
	t.Run("NoRetries", func(t *testing.T) {
		f := newFake(t)
		f.handle("crossref", status(http.StatusInternalServerError))
		o := f.options()
		o.Retries = -1
		if _, err := origin.New(o).Resolve(context.Background(), "anything at all"); !errors.Is(err, origin.ErrUpstream) {
			t.Errorf("Resolve = %v, want ErrUpstream", err)
		}
		if n := f.hits("crossref"); n != 1 {
			t.Errorf("crossref received %d requests, want 1", n)
		}
	})
}
