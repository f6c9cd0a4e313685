package store

import (
	"context"
	"errors"
	"time"
)

// OriginCached returns the cached answer to the origin request key and
// when it was fetched; ok is false when none is cached (or its time cannot
// be read). The cache holds public metadata, shared by every workspace
// (migration 0012).
func OriginCached(ctx context.Context, q Querier, key string) (body []byte, fetchedAt time.Time, ok bool, err error) {
	var at string
	err = queryRow(ctx, q, `SELECT body, fetched_at FROM origin_cache WHERE key = ?`, key).Scan(&body, &at)
	if errors.Is(err, ErrNotFound) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, err
	}
	if fetchedAt, err = parseTimestamp(at); err != nil {
		return nil, time.Time{}, false, nil
	}
	return body, fetchedAt, true, nil
}

// CacheOrigin records the answer to the origin request key, fetched at
// now, replacing an older one.
func CacheOrigin(ctx context.Context, q Querier, key string, body []byte, now time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO origin_cache (key, body, fetched_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at`, key, body, Timestamp(now))
	return err
}
