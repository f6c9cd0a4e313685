package httpapi

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/papermem/papermem"
	"golang.org/x/time/rate"
)

// Rate limiting: a token bucket per key (a credential, or a client address
// on signup and login) refilling limit tokens a minute, holding at most
// limit.

const (
	// planCheckInterval is how long a workspace's plan limit is reused
	// before it is read again.
	planCheckInterval = time.Minute
	// idleBucket is how long an unused bucket is kept; sweepAbove is the
	// number of buckets beyond which idle ones are dropped.
	idleBucket = 10 * time.Minute
	sweepAbove = 10000
)

type bucket struct {
	lim     *rate.Limiter
	limit   int       // tokens a minute
	checked time.Time // when limit was last decided
	seen    time.Time
}

// limiters holds the buckets of one kind of key.
type limiters struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

func newLimiters() *limiters { return &limiters{buckets: map[string]*bucket{}} }

// take spends one token of key's bucket. limit, called at most once a
// planCheckInterval per key, returns the bucket's size. It reports the
// limit, the tokens left, and how long to wait when none was left.
func (l *limiters) take(key string, limit func() int) (perMin, remaining int, wait time.Duration) {
	now := time.Now()
	l.mu.Lock()
	b := l.buckets[key]
	stale := b == nil || now.Sub(b.checked) > planCheckInterval
	l.mu.Unlock()
	var n int
	if stale {
		n = max(limit(), 1)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b = l.buckets[key]; b == nil {
		if len(l.buckets) >= sweepAbove {
			l.sweep(now)
		}
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(n)/60), n), limit: n, checked: now}
		l.buckets[key] = b
	} else if stale {
		if n != b.limit {
			b.lim.SetLimitAt(now, rate.Limit(float64(n)/60))
			b.lim.SetBurstAt(now, n)
			b.limit = n
		}
		b.checked = now
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return b.limit, 0, d
	}
	return b.limit, int(b.lim.TokensAt(now)), 0
}

// sweep drops idle buckets; l.mu is held.
func (l *limiters) sweep(now time.Time) {
	for k, b := range l.buckets {
		if now.Sub(b.seen) > idleBucket {
			delete(l.buckets, k)
		}
	}
}

// limit applies bucket key to the request: it sets the X-RateLimit headers
// and returns a rateLimitError when the bucket is empty.
func limit(w http.ResponseWriter, l *limiters, key string, size func() int) error {
	perMin, remaining, wait := l.take(key, size)
	h := w.Header() // canonical keys assigned directly: Set would re-case X-RateLimit-* each time
	h["X-Ratelimit-Limit"] = []string{strconv.Itoa(perMin)}
	h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(max(remaining, 0))}
	if wait > 0 {
		return &rateLimitError{retryAfter: wait}
	}
	return nil
}

// planLimit returns the requests a minute allowed to each credential of
// workspace org: Config.RateLimit, else its plan's.
func (s *server) planLimit(ctx context.Context, org string) int {
	if s.cfg.RateLimit > 0 {
		return s.cfg.RateLimit
	}
	plan := papermem.Plans[0]
	if rec, err := s.m.Workspace(org).Record(ctx); err == nil {
		if p, err := papermem.LookupPlan(rec.Plan); err == nil {
			plan = p
		}
	}
	return plan.RequestsPerMinute
}

// clientAddr is the address the request came from, without its port.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
