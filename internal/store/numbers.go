package store

import (
	"context"
	"database/sql"
	"errors"
)

// Numbers within a workspace: a node's or document's num, the id the API
// shows for it (migration 0016 says why). A row stored before numbering
// has none and is shown its row id, so the number of a row is
// COALESCE(num, id), unique within its workspace.

// numbered names a numbered table and its workspace's counter.
type numbered struct{ table, counter string }

var (
	numberedNodes     = numbered{"nodes", "node_nums"}
	numberedDocuments = numbered{"documents", "document_nums"}
)

// nextNums takes n numbers of org's rows of t and returns the first; the
// others follow it. The workspace's counter moves, so a number is never
// given twice, even after its row is deleted. A workspace not registered
// (no counter) numbers after its largest number.
func nextNums(ctx context.Context, q Querier, org string, t numbered, n int) (int64, error) {
	var last int64
	err := queryRow(ctx, q, `UPDATE workspaces SET `+t.counter+` = `+t.counter+` + ? WHERE org_id = ? RETURNING `+t.counter, n, org).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		err = queryRow(ctx, q, `SELECT COALESCE(MAX(COALESCE(num, id)), 0) FROM `+t.table+` WHERE org_id = ?`, org).Scan(&last)
		last += int64(n)
	}
	if err != nil {
		return 0, err
	}
	return last - int64(n) + 1, nil
}
