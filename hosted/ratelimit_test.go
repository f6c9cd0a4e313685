package hosted_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestTakeRequest spends shared rate-limit buckets through two Services
// over one database, as two servers would, on one settable clock.
func TestTakeRequest(t *testing.T) {
	path := testdb.Path(t)
	c := &clock{t: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)}
	var ms [2]*hosted.Service
	for i := range ms {
		ms[i] = openAt(t, path, &papermem.Options{Now: c.now})
	}
	take := func(i int, org, bucket string, perMinute int) hosted.RateDecision {
		t.Helper()
		d, err := ms[i%2].TakeRequest(ctx, org, bucket, perMinute)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	allowed := func(remaining int) hosted.RateDecision {
		return hosted.RateDecision{Allowed: true, Remaining: remaining}
	}
	refused := func(wait time.Duration) hosted.RateDecision { return hosted.RateDecision{RetryAfter: wait} }

	t.Run("OneBucketAcrossServices", func(t *testing.T) {
		// 4 a minute: one request every 15 s, at most 4 at once.
		var got []hosted.RateDecision
		for i := range 5 {
			got = append(got, take(i, "lab-one", "key:a", 4))
		}
		c.set(c.now().Add(10 * time.Second))
		got = append(got, take(0, "lab-one", "key:a", 4)) // 5 s short of the next request
		c.set(c.now().Add(5 * time.Second))
		got = append(got, take(1, "lab-one", "key:a", 4), take(0, "lab-one", "key:a", 4))
		c.set(c.now().Add(2 * time.Minute)) // full again, not fuller
		got = append(got, take(1, "lab-one", "key:a", 4))
		want := []hosted.RateDecision{allowed(3), allowed(2), allowed(1), allowed(0), refused(15 * time.Second),
			refused(5 * time.Second), allowed(0), refused(15 * time.Second), allowed(3)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("decisions (-want +got):\n%s", diff)
		}
	})
	t.Run("BucketsApart", func(t *testing.T) {
		for _, b := range []struct{ org, bucket string }{{"lab-one", "key:b"}, {"lab-two", "key:b"}, {"", "key:b"}} {
			if d := take(0, b.org, b.bucket, 1); d != allowed(0) {
				t.Errorf("first request of %q %q: %+v", b.org, b.bucket, d)
			}
		}
	})
	t.Run("ConcurrentExact", func(t *testing.T) {
		// The clock stands still: 25 of the 80 requests are granted, whichever
		// Service and goroutine sends them.
		var granted atomic.Int64
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for range 10 {
					d, err := ms[g%2].TakeRequest(ctx, "lab-one", "key:c", 25)
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						granted.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if n := granted.Load(); n != 25 {
			t.Errorf("%d of 80 concurrent requests granted, want 25", n)
		}
	})
	t.Run("FullBucketsPruned", func(t *testing.T) {
		c.set(c.now().Add(time.Hour))
		take(0, "lab-one", "key:d", 10)
		take(1, "lab-one", "key:d", 10)
		var n int
		if err := testutil.Raw(t, path, false).QueryRow(`SELECT count(*) FROM rate_buckets`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d buckets kept (%v), want only the one in use", n, err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		if _, err := ms[0].TakeRequest(ctx, "lab-one", "key:e", 0); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("0 a minute: %v, want EINVALID", err)
		}
	})
}
