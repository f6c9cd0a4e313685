package store

import (
	"context"
	"database/sql"
	"errors"
)

// OriginCached returns the cached answer to the origin request key and
// when it was fetched; ok is false when none is cached. The cache holds
// public metadata, shared by every workspace (migration 0012).
func OriginCached(ctx context.Context, q Querier, key string) (body []byte, fetchedAt string, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT body, fetched_at FROM origin_cache WHERE key = ?`, key).Scan(&body, &fetchedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", false, nil
	}
	return body, fetchedAt, err == nil, err
}

// CacheOrigin records the answer to the origin request key, replacing an
// older one.
func CacheOrigin(ctx context.Context, q Querier, key string, body []byte, now string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO origin_cache (key, body, fetched_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at`, key, body, now)
	return err
}
