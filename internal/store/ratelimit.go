package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Token buckets of the rate limits shared by every server over one
// database: table rate_buckets (migration 0010), one row per bucket holding
// its theoretical arrival time (tat), as the generic cell rate algorithm
// keeps a token bucket. For a bucket that holds at most window/interval
// requests and refills one every interval, a request at now is granted
// when tat <= now + window - interval, and moves tat to max(tat, now) +
// interval; a bucket with tat <= now is full. Times are Unix nanoseconds.

// TakeToken spends one request of bucket (org, bucket) at now, in one
// statement, so that concurrent takes through any number of connections
// or processes are counted exactly. It returns the bucket's tat after the
// request and whether the request was granted; a refused request leaves
// the bucket as it was.
func TakeToken(ctx context.Context, q Querier, org, bucket string, now, interval, window int64) (tat int64, granted bool, err error) {
	fit := now + window - interval // the latest tat at which a request is granted
	var g int
	err = queryRow(ctx, q, `INSERT INTO rate_buckets (org_id, bucket, tat, granted) VALUES (?, ?, ?, 1)
		ON CONFLICT (org_id, bucket) DO UPDATE SET
			granted = CASE WHEN rate_buckets.tat <= ? THEN 1 ELSE 0 END,
			tat = CASE WHEN rate_buckets.tat > ? THEN rate_buckets.tat
				WHEN rate_buckets.tat > ? THEN rate_buckets.tat + ?
				ELSE ? END
		RETURNING tat, granted`,
		org, bucket, now+interval, fit, fit, now, interval, now+interval).Scan(&tat, &g)
	if err != nil {
		return 0, false, fmt.Errorf("take token: %w", err)
	}
	return tat, g == 1, nil
}

// PruneTokens deletes every bucket that is full at now, of all workspaces:
// a full bucket and a missing one grant alike. It returns how many went.
func PruneTokens(ctx context.Context, q Querier, now int64) (int64, error) {
	res, err := q.ExecContext(ctx, `DELETE FROM rate_buckets WHERE tat <= ?`, now)
	if err != nil {
		return 0, fmt.Errorf("prune tokens: %w", err)
	}
	return res.RowsAffected()
}

// bucketConns bounds the pool OpenBuckets opens, per server.
const bucketConns = 8

// OpenBuckets returns, on PostgreSQL, a pool of its own for TakeToken and
// PruneTokens (with the write pool's settings; connections are made when
// first needed): there each take is one statement, committed alone, that
// holds its bucket's row lock for that statement only. Through the write
// queue it would share a transaction with the writes queued beside it and
// hold the lock until their commit, so that every server's requests on a
// busy bucket (one API key's) would wait for one server's slowest batch.
// On SQLite, where every write takes the one write connection, it returns
// nil. A timeout above zero bounds each wait for the server, as Open's.
func OpenBuckets(path string, timeout time.Duration) (*sql.DB, error) {
	if EngineOf(path) != Postgres {
		return nil, nil
	}
	db, err := postgresPool(path, pgWrite, timeout)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(bucketConns)
	db.SetMaxIdleConns(bucketConns)
	return db, nil
}
