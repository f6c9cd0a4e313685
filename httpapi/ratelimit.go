package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"golang.org/x/time/rate"
)

// Rate limiting: a token bucket per key (a credential, or a client address
// on signup and login) refilling its limit a minute, holding at most its
// limit. The buckets are kept in this process (localBuckets), or with
// Config.SharedLimits in the database, where every server over it spends
// from the same ones (sharedBuckets).

const (
	// planCheckInterval is how long a workspace's plan limit is reused
	// before it is read again.
	planCheckInterval = time.Minute
	// idleBucket is how long an unused bucket (or limit) is kept;
	// sweepAbove is the number of them beyond which idle ones are dropped.
	idleBucket = 10 * time.Minute
	sweepAbove = 10000
)

// buckets keeps the token buckets of one kind of key.
type buckets interface {
	// take spends one request of the bucket key of workspace ("" for
	// a client address), which holds at most n requests and refills n a
	// minute. It reports the requests left, and how long to wait when the
	// bucket was empty.
	take(ctx context.Context, workspace, key string, n int) (remaining int, wait time.Duration, err error)
}

// limiter applies one kind of limit: it decides each key's size, reading
// it at most once a planCheckInterval, and spends from its buckets.
type limiter struct {
	buckets buckets

	mu     sync.Mutex
	limits map[string]keyLimit
}

// keyLimit is a key's limit in requests a minute, and when it was decided.
type keyLimit struct {
	n       int
	checked time.Time
}

func newLimiter(b buckets) *limiter { return &limiter{buckets: b, limits: map[string]keyLimit{}} }

// take spends one request of key's bucket. size, called at most once a
// planCheckInterval per key, returns the bucket's size. It reports the
// limit, the requests left, and how long to wait when none was left.
func (l *limiter) take(ctx context.Context, workspace, key string, size func() int) (perMin, remaining int, wait time.Duration, err error) {
	now := time.Now()
	l.mu.Lock()
	lim, ok := l.limits[key]
	l.mu.Unlock()
	if !ok || now.Sub(lim.checked) > planCheckInterval {
		lim = keyLimit{n: max(size(), 1), checked: now}
		l.mu.Lock()
		if len(l.limits) >= sweepAbove {
			for k, v := range l.limits {
				if now.Sub(v.checked) > idleBucket {
					delete(l.limits, k)
				}
			}
		}
		l.limits[key] = lim
		l.mu.Unlock()
	}
	remaining, wait, err = l.buckets.take(ctx, workspace, key, lim.n)
	return lim.n, remaining, wait, err
}

// localBuckets keeps token buckets in this process: each server enforces
// the limits on the requests it serves.
type localBuckets struct {
	mu      sync.Mutex
	buckets map[string]*localBucket
}

type localBucket struct {
	lim   *rate.Limiter
	limit int // requests a minute
	seen  time.Time
}

func newLocalBuckets() *localBuckets { return &localBuckets{buckets: map[string]*localBucket{}} }

// take spends one token of key's bucket; the workspace is not needed, keys are
// unique across workspaces.
func (l *localBuckets) take(_ context.Context, _, key string, n int) (int, time.Duration, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	switch {
	case b == nil:
		if len(l.buckets) >= sweepAbove {
			l.sweep(now)
		}
		b = &localBucket{lim: rate.NewLimiter(rate.Limit(float64(n)/60), n), limit: n}
		l.buckets[key] = b
	case b.limit != n:
		b.lim.SetLimitAt(now, rate.Limit(float64(n)/60))
		b.lim.SetBurstAt(now, n)
		b.limit = n
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return 0, d, nil
	}
	return int(b.lim.TokensAt(now)), 0, nil
}

// len is the number of buckets held.
func (l *localBuckets) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// sweep drops idle buckets; l.mu is held.
func (l *localBuckets) sweep(now time.Time) {
	for k, b := range l.buckets {
		if now.Sub(b.seen) > idleBucket {
			delete(l.buckets, k)
		}
	}
}

// sharedBuckets keeps token buckets in the database
// (hosted.Service.TakeRequest): every server over it spends from the same
// buckets.
type sharedBuckets struct{ svc *hosted.Service }

func (s sharedBuckets) take(ctx context.Context, workspace, key string, n int) (int, time.Duration, error) {
	d, err := s.svc.TakeRequest(ctx, workspace, key, n)
	if err != nil {
		return 0, 0, err
	}
	if !d.Allowed {
		return 0, max(d.RetryAfter, time.Nanosecond), nil
	}
	return d.Remaining, 0, nil
}

// limit applies bucket key of workspace to the request: it sets the
// X-RateLimit headers and returns a rateLimitError when the bucket is
// empty.
func limit(w http.ResponseWriter, r *http.Request, l *limiter, workspace, key string, size func() int) error {
	perMin, remaining, wait, err := l.take(r.Context(), workspace, key, size)
	if err != nil {
		return err
	}
	h := w.Header() // canonical keys assigned directly: Set would re-case X-RateLimit-* each time
	h["X-Ratelimit-Limit"] = []string{strconv.Itoa(perMin)}
	h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(max(remaining, 0))}
	if wait > 0 {
		return &rateLimitError{retryAfter: wait}
	}
	return nil
}

// planLimit returns the requests a minute allowed to each credential of
// workspace: Config.RateLimit, else its plan's.
func (s *server) planLimit(ctx context.Context, workspace string) int {
	if s.cfg.RateLimit > 0 {
		return s.cfg.RateLimit
	}
	plan := papermem.Plans[0]
	if rec, err := s.svc.Workspace(workspace).Record(ctx); err == nil {
		if p, err := papermem.LookupPlan(rec.Plan); err == nil {
			plan = p
		}
	}
	return plan.RequestsPerMinute
}
