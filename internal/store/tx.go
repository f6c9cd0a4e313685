package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Tx is a write transaction, as the Writer hands it to a write. It is a
// Querier, for this package's functions of one statement; its methods are
// the operations that write a thing with its nodes (StorePaper,
// DeletePaper, StoreAnalysis, StoreDocument, StoreMemory, DeleteMemory) and
// the engine's turn-taking. A write must not keep it past its return: the
// Writer commits it or rolls it back.
type Tx struct {
	tx     *sql.Tx
	engine Engine
}

var _ Querier = (*Tx)(nil)

// ExecContext runs a statement in the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, query, args...)
}

// QueryContext runs a query in the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query of one row in the transaction.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, query, args...)
}

// PrepareContext prepares a statement for the transaction.
func (t *Tx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, query)
}

// Engine is the engine of the transaction's database.
func (t *Tx) Engine() Engine { return t.engine }

// TakeTurns makes the transactions that call it with the same key take
// turns until each ends (Engine.TakeTurns).
func (t *Tx) TakeTurns(ctx context.Context, key string) error {
	return t.engine.TakeTurns(ctx, t, key)
}

// Reader is a database's read pool as this package's functions take it: a
// Querier whose statements run each on a read-only connection, outside any
// transaction, so that reads never wait behind writes. A *Reader is safe
// for concurrent use.
type Reader struct {
	db     *sql.DB
	engine Engine
}

var _ Querier = (*Reader)(nil)

// Reader returns d's read pool.
func (d *DB) Reader() *Reader { return &Reader{db: d.Read, engine: d.Engine} }

// ExecContext runs a statement on the read pool: only one that writes
// nothing succeeds.
func (r *Reader) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return r.db.ExecContext(ctx, query, args...)
}

// QueryContext runs a query on the read pool.
func (r *Reader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query of one row on the read pool.
func (r *Reader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return r.db.QueryRowContext(ctx, query, args...)
}

// PrepareContext prepares a statement on the read pool.
func (r *Reader) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return r.db.PrepareContext(ctx, query)
}

// Engine is the engine of the pool's database.
func (r *Reader) Engine() Engine { return r.engine }

// ErrNotFound is what a function of this package that reads or changes one
// row returns when there is no such row (errors.Is). The error it returns
// matches database/sql's ErrNoRows too, for callers that still test for
// that.
var ErrNotFound = errors.New("not found")

// errNoRow is the error of a missing row.
var errNoRow = fmt.Errorf("%w: %w", ErrNotFound, sql.ErrNoRows)

// row is the result of a query of one row, whose Scan reports a missing
// row as ErrNotFound.
type row struct{ *sql.Row }

func (r row) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return errNoRow
	}
	return err
}

// queryRow runs a query of one row through q, so that no row is
// ErrNotFound. The one-row queries the root and hosted call go through it;
// a few internal ones (the search index's snapshots, prepared statements,
// start-up checks) test sql.ErrNoRows themselves.
func queryRow(ctx context.Context, q Querier, query string, args ...any) row {
	return row{q.QueryRowContext(ctx, query, args...)}
}

// timestampLayout is how times are stored: RFC 3339 in UTC, to the
// millisecond, so that text order is time order.
const timestampLayout = "2006-01-02T15:04:05.000Z07:00"

// Timestamp formats t as papermem stores times (created_at, updated_at,
// fetched_at, …): "2026-03-02T10:00:00.000Z".
func Timestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// parseTimestamp reads a time stored by Timestamp, or written by hand in
// any RFC 3339 form.
func parseTimestamp(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }
