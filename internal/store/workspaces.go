package store

import (
	"context"
	"fmt"
	"strings"
)

// Workspace is a row of workspaces; Plan is the plan's id.
type Workspace struct {
	OrgID, Name, Plan string
	TokenTTLSeconds   int
	CreatedAt         string
}

const workspaceColumns = `org_id, name, plan, token_ttl_seconds, created_at`

// scanWorkspace scans one row of workspaceColumns.
func scanWorkspace(sc scanner) (*Workspace, error) {
	var r Workspace
	if err := sc.Scan(&r.OrgID, &r.Name, &r.Plan, &r.TokenTTLSeconds, &r.CreatedAt); err != nil {
		return nil, err
	}
	return &r, nil
}

// InsertWorkspace inserts workspace org, made by creator (fails on a
// taken id).
func InsertWorkspace(ctx context.Context, q Querier, org, name, plan, creator, now string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO workspaces (org_id, name, plan, created_by, created_at)
			VALUES (?, ?, ?, ?, ?)`, org, name, plan, creator, now)
	return err
}

// EnsureWorkspace registers workspace org on first write, recording the
// embedder its vectors come from when it has none. It fails with an
// *OtherEmbedderError when they come from another embedder than the
// writer's (embedder, dim).
func EnsureWorkspace(ctx context.Context, q Querier, org, embedder string, dim int, now string) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO workspaces (org_id, embedder, dim, created_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (org_id) DO UPDATE SET embedder = excluded.embedder, dim = excluded.dim
		WHERE workspaces.embedder = ''`, org, embedder, dim, now); err != nil {
		return err
	}
	var e OtherEmbedderError
	if err := queryRow(ctx, q, `SELECT embedder, dim FROM workspaces WHERE org_id = ?`, org).Scan(&e.Embedder, &e.Dim); err != nil {
		return err
	}
	if e.Embedder != embedder || e.Dim != dim {
		return &e
	}
	return nil
}

// OtherEmbedderError is EnsureWorkspace's failure when the workspace's
// vectors come from another embedder than the writer's: another server,
// opened with a reindex, re-embedded them after the writer's opened.
type OtherEmbedderError struct {
	Embedder string // the workspace's embedder
	Dim      int    // its dimension
}

func (e *OtherEmbedderError) Error() string {
	return fmt.Sprintf("the workspace's vectors come from embedder %s (%d dimensions)", e.Embedder, e.Dim)
}

// WorkspaceByID returns the workspace org.
func WorkspaceByID(ctx context.Context, q Querier, org string) (*Workspace, error) {
	return scanWorkspace(queryRow(ctx, q, `SELECT `+workspaceColumns+` FROM workspaces WHERE org_id = ?`, org))
}

// WorkspacesOf lists workspace current and those made by any of creators,
// current first then oldest first.
func WorkspacesOf(ctx context.Context, q Querier, current string, creators []string) ([]WorkspaceSize, error) {
	query := `SELECT ` + workspaceColumns + sizeColumns + ` FROM workspaces ws WHERE org_id = ?`
	args := []any{current}
	if len(creators) > 0 {
		query += ` OR created_by IN (?` + strings.Repeat(", ?", len(creators)-1) + `)`
		for _, c := range creators {
			args = append(args, c)
		}
	}
	rows, err := q.QueryContext(ctx, query+` ORDER BY org_id <> ?, created_at, org_id`, append(args, current)...)
	return collect(rows, err, scanSize)
}

// SetTokenTTL sets the session-token lifetime of workspace org and returns
// the number of workspaces changed.
func SetTokenTTL(ctx context.Context, q Querier, org string, seconds int64) (int64, error) {
	return rowsAffected(q.ExecContext(ctx, `UPDATE workspaces SET token_ttl_seconds = ? WHERE org_id = ?`,
		seconds, org))
}

// WorkspaceExists reports whether workspace org is registered.
func WorkspaceExists(ctx context.Context, q Querier, org string) (bool, error) {
	var n int
	err := queryRow(ctx, q, `SELECT count(*) FROM workspaces WHERE org_id = ?`, org).Scan(&n)
	return n > 0, err
}
