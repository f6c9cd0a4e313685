package store

import (
	"context"
	"database/sql"
	"fmt"
)

// CountUsers returns the number of accounts on the platform.
func CountUsers(ctx context.Context, q Querier) (int, error) {
	var n int
	err := queryRow(ctx, q, `SELECT count(*) FROM users`).Scan(&n)
	return n, err
}

// WorkspacesByPlan counts the workspaces of every plan id in use.
func WorkspacesByPlan(ctx context.Context, q Querier) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT plan, count(*) FROM workspaces GROUP BY plan`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var plan string
		var n int
		if err := rows.Scan(&plan, &n); err != nil {
			return nil, err
		}
		out[plan] += n
	}
	return out, rows.Err()
}

// WorkspaceSize is a workspace with its creator and what it holds.
type WorkspaceSize struct {
	Workspace
	CreatedBy                                   string
	Users, APIKeys, Papers, Documents, Memories int
}

// WorkspaceSizes lists every workspace, oldest first, with its size.
func WorkspaceSizes(ctx context.Context, q Querier) ([]WorkspaceSize, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+workspaceColumns+sizeColumns+` FROM workspaces ws ORDER BY created_at, org_id`)
	return collect(rows, err, scanSize)
}

// sizeColumns follow workspaceColumns of workspaces ws in the rows of
// scanSize: the creator and the counts of what the workspace holds.
const sizeColumns = `, created_by,
	(SELECT count(*) FROM users x WHERE x.org_id = ws.org_id),
	(SELECT count(*) FROM api_keys x WHERE x.org_id = ws.org_id),
	(SELECT count(*) FROM papers x WHERE x.org_id = ws.org_id),
	(SELECT count(*) FROM documents x WHERE x.org_id = ws.org_id),
	(SELECT count(*) FROM memories x WHERE x.org_id = ws.org_id)`

// scanSize scans a row of workspaceColumns and sizeColumns.
func scanSize(rows *sql.Rows, s *WorkspaceSize) error {
	r := &s.Workspace
	return rows.Scan(&r.OrgID, &r.Name, &r.Plan, &r.TokenTTLSeconds, &r.CreatedAt, &s.CreatedBy,
		&s.Users, &s.APIKeys, &s.Papers, &s.Documents, &s.Memories)
}

// UserLogin is an account with its last login time ("" before the first).
type UserLogin struct {
	User
	LastLoginAt string
}

// AllUsers lists every account on the platform, oldest first.
func AllUsers(ctx context.Context, q Querier) ([]UserLogin, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+userColumns+`, last_login_at FROM users ORDER BY created_at, user_id`)
	return collect(rows, err, func(rows *sql.Rows, u *UserLogin) error {
		return rows.Scan(append(userFields(&u.User), &u.LastLoginAt)...)
	})
}

// CountAPIKeys returns the number of org's API keys.
func CountAPIKeys(ctx context.Context, q Querier, org string) (int, error) {
	var n int
	err := queryRow(ctx, q, `SELECT count(*) FROM api_keys WHERE org_id = ?`, org).Scan(&n)
	return n, err
}

// CheckStorage reads one row of each table and describes how the database
// stores: SQLite's journal mode ("journal mode wal"), or PostgreSQL's
// version and synchronous_commit (e is the engine of q).
func CheckStorage(ctx context.Context, q Querier, e Engine, tables []string) (string, error) {
	var detail string
	if e == Postgres {
		var version, sync string
		if err := queryRow(ctx, q, `SELECT current_setting('server_version'), current_setting('synchronous_commit')`).Scan(&version, &sync); err != nil {
			return "", err
		}
		detail = fmt.Sprintf("PostgreSQL %s, synchronous_commit %s", version, sync)
	} else {
		var mode string
		if err := queryRow(ctx, q, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			return "", err
		}
		detail = "journal mode " + mode
	}
	for _, t := range tables {
		var n int
		if err := queryRow(ctx, q, `SELECT count(*) FROM (SELECT 1 FROM `+t+` LIMIT 1) AS x`).Scan(&n); err != nil {
			return "", fmt.Errorf("table %s: %w", t, err)
		}
	}
	return detail, nil
}

// EchoVector sends probe through the database as a stored vector goes,
// and returns what came back and the number of vectors stored: the check
// of a PostgreSQL database, which has no sqlite-vec.
func EchoVector(ctx context.Context, q Querier, probe []float32) (echo []float32, n int, err error) {
	var b []byte
	err = queryRow(ctx, q, `SELECT CAST(? AS BYTEA), (SELECT count(*) FROM node_vectors)`, vectorBlob(probe)).Scan(&b, &n)
	return blobVector(b), n, err
}

// CheckVectors has sqlite-vec score the probe against the probe as it is
// stored (encoded and decoded, vectors.go), both in sqlite-vec's float32
// format, and returns its version and the number of vectors stored.
func CheckVectors(ctx context.Context, q Querier, probe []float32) (version string, n int, err error) {
	err = queryRow(ctx, q, `SELECT vec_version(), (SELECT count(*) FROM node_vectors),
			vec_distance_cosine(?, ?)`, float32Blob(probe), float32Blob(blobVector(vectorBlob(probe)))).Scan(&version, &n, new(float64))
	return version, n, err
}

// CountCredentials returns the number of users and of API keys on the
// platform.
func CountCredentials(ctx context.Context, q Querier) (users, keys int, err error) {
	err = queryRow(ctx, q, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM api_keys)`).Scan(&users, &keys)
	return users, keys, err
}
