package store

import (
	"context"
	"database/sql"
)

// DocumentRow is a row of documents with its number in its workspace.
type DocumentRow struct {
	Num int64 // the id the API shows, doc:<num>
	Document
}

// Documents lists org's documents, newest first, at most limit of them.
func Documents(ctx context.Context, q Querier, org string, limit int) ([]DocumentRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT COALESCE(num, id), name, format, title, domain, bytes, created_at
		FROM documents WHERE org_id = ? ORDER BY id DESC LIMIT ?`, org, limit)
	return collect(rows, err, func(rows *sql.Rows, d *DocumentRow) error {
		return rows.Scan(&d.Num, &d.Name, &d.Format, &d.Title, &d.Domain, &d.Bytes, &d.CreatedAt)
	})
}
