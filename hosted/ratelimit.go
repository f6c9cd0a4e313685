package hosted

import (
	"context"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/store"
)

// RateDecision answers TakeRequest.
type RateDecision struct {
	Allowed    bool          // the request may proceed
	Remaining  int           // requests the bucket holds after this one; 0 when refused
	RetryAfter time.Duration // when refused: until the bucket grants a request again; 0 when allowed
}

// rateWindow is how long an empty bucket takes to fill: a bucket of N a
// minute holds at most N requests and refills N a minute.
const rateWindow = time.Minute

// pruneRateEvery is how often a Service deletes the full buckets of the
// shared rate limits, in the write of a TakeRequest.
const pruneRateEvery = time.Minute

// TakeRequest spends one request of the token bucket named bucket, in
// workspace ("" for a bucket of no workspace, such as a client
// address's): a bucket of perMinute holds at most perMinute requests and
// refills perMinute a minute, evenly (golang.org/x/time/rate's token
// bucket, with a burst of perMinute). The bucket is kept in the database,
// so every Service over it — every server — spends from the same one, and
// a limit of N a minute stays N however many servers count. Time is the
// memory's (papermem.Options.Now): the servers' clocks should agree, as
// NTP keeps them.
//
// Every call is a write. On SQLite it takes a turn in the memory's write
// queue (papermem.Options.WriteQueue), which is why a single server keeps
// its buckets in memory instead; on PostgreSQL it is one statement
// committed alone, on a small pool of its own, which locks the bucket's row
// for that statement only. Errors: EINVALID (perMinute below 1), and those of a write
// (EUNAVAILABLE when the queue is full or the database is locked too
// long).
func (s *Service) TakeRequest(ctx context.Context, workspace, bucket string, perMinute int) (_ RateDecision, err error) {
	defer translate(&err)
	if perMinute < 1 {
		return RateDecision{}, papermem.Errorf(papermem.EINVALID, "A rate limit must allow at least one request a minute.")
	}
	now := s.now().UnixNano()
	window := int64(rateWindow)
	interval := max(window/int64(perMinute), 1)
	var tat int64
	var granted bool
	take := func(ctx context.Context, q store.Querier) error {
		var err error
		if tat, granted, err = store.TakeToken(ctx, q, workspace, bucket, now, interval, window); err != nil {
			return err
		}
		if last := s.ratePruned.Load(); now-last >= int64(pruneRateEvery) && s.ratePruned.CompareAndSwap(last, now) {
			_, err = store.PruneTokens(ctx, q, now)
		}
		return err
	}
	if s.buckets != nil {
		err = store.TranslateWrite(take(ctx, s.buckets)) // PostgreSQL: each statement on its own (store.OpenBuckets)
	} else {
		err = s.write(ctx, func(ctx context.Context, tx *store.Tx) error { return take(ctx, tx) })
	}
	if err != nil {
		return RateDecision{}, err
	}
	if !granted {
		return RateDecision{RetryAfter: time.Duration(tat - (now + window - interval))}, nil
	}
	return RateDecision{Allowed: true, Remaining: int((now + window - tat) / interval)}, nil
}
