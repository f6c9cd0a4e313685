package store

import (
	"context"
	"database/sql"
	"strings"
)

// Querier runs statements: *sql.DB, *sql.Tx and *sql.Conn satisfy it. The
// functions of this package take one, so that the caller chooses the
// transaction (or the read pool) a statement runs in.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

var (
	_ Querier = (*sql.DB)(nil)
	_ Querier = (*sql.Tx)(nil)
	_ Querier = (*sql.Conn)(nil)
)

// placeholders returns n comma-separated question marks, for an IN list.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// withIDs returns the arguments first followed by ids.
func withIDs(ids []int64, first ...any) []any {
	args := make([]any, 0, len(first)+len(ids))
	args = append(args, first...)
	for _, id := range ids {
		args = append(args, id)
	}
	return args
}

// collect reads the rows of a query (rows and err as QueryContext returns
// them), each into a T by scan, and closes rows. No rows give nil.
func collect[T any](rows *sql.Rows, err error, scan func(*sql.Rows, *T) error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var x T
		if err := scan(rows, &x); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// scanIDs reads a column of integers and closes rows.
func scanIDs(rows *sql.Rows, err error) ([]int64, error) {
	return collect(rows, err, func(rows *sql.Rows, id *int64) error { return rows.Scan(id) })
}

// scanStrings reads a column of strings, empty rather than nil for none,
// and closes rows.
func scanStrings(rows *sql.Rows, err error) ([]string, error) {
	out, err := collect(rows, err, func(rows *sql.Rows, s *string) error { return rows.Scan(s) })
	if out == nil && err == nil {
		out = []string{}
	}
	return out, err
}

// scanner is a row to scan: *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// prepare prepares texts[i] into *dst[i], stopping at the first error.
func prepare(ctx context.Context, q Querier, dst []**sql.Stmt, texts []string) error {
	for i, text := range texts {
		st, err := q.PrepareContext(ctx, text)
		if err != nil {
			return err
		}
		*dst[i] = st
	}
	return nil
}

// closeStmts closes the statements that were prepared.
func closeStmts(sts ...*sql.Stmt) {
	for _, st := range sts {
		if st != nil {
			st.Close()
		}
	}
}

// Ping checks that the database answers a query.
func Ping(ctx context.Context, q Querier) error {
	var n int
	return queryRow(ctx, q, "SELECT 1").Scan(&n)
}
