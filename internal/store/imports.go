package store

import (
	"context"
	"database/sql"
	"errors"
)

// Import is a row of imports: an import of a library or an export file
// and its progress. Errors is a JSON array.
type Import struct {
	ID                                       int64
	Source, Library, Status                  string
	Total, Items, Papers, Documents, Deleted int
	Skipped                                  int
	Errors, Message                          string
	CreatedAt, UpdatedAt                     string
}

const importColumns = `id, source, library, status, total, items, papers, documents, deleted, skipped, errors, message, created_at, updated_at`

func scanImport(sc scanner, im *Import) error {
	return sc.Scan(&im.ID, &im.Source, &im.Library, &im.Status, &im.Total, &im.Items, &im.Papers, &im.Documents,
		&im.Deleted, &im.Skipped, &im.Errors, &im.Message, &im.CreatedAt, &im.UpdatedAt)
}

// InsertImport inserts org's import im and returns its row id.
func InsertImport(ctx context.Context, q Querier, org string, im *Import) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `INSERT INTO imports (org_id, source, library, status, total, items, papers, documents,
			deleted, skipped, errors, message, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		org, im.Source, im.Library, im.Status, im.Total, im.Items, im.Papers, im.Documents, im.Deleted, im.Skipped,
		im.Errors, im.Message, im.CreatedAt, im.UpdatedAt).Scan(&id)
	return id, err
}

// UpdateImport writes the progress of org's import im.ID.
func UpdateImport(ctx context.Context, q Querier, org string, im *Import) error {
	_, err := q.ExecContext(ctx, `UPDATE imports SET status = ?, total = ?, items = ?, papers = ?, documents = ?,
			deleted = ?, skipped = ?, errors = ?, message = ?, updated_at = ?
		WHERE org_id = ? AND id = ?`,
		im.Status, im.Total, im.Items, im.Papers, im.Documents, im.Deleted, im.Skipped, im.Errors, im.Message,
		im.UpdatedAt, org, im.ID)
	return err
}

// ImportByID returns org's import id.
func ImportByID(ctx context.Context, q Querier, org string, id int64) (*Import, error) {
	var im Import
	if err := scanImport(queryRow(ctx, q, `SELECT `+importColumns+` FROM imports WHERE org_id = ? AND id = ?`, org, id), &im); err != nil {
		return nil, err
	}
	return &im, nil
}

// Imports lists org's imports, newest first, at most limit of them.
func Imports(ctx context.Context, q Querier, org string, limit int) ([]Import, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+importColumns+` FROM imports WHERE org_id = ? ORDER BY id DESC LIMIT ?`, org, limit)
	return collect(rows, err, func(rows *sql.Rows, im *Import) error { return scanImport(rows, im) })
}

// LibraryVersion returns the version of org's synced library that its
// last complete import reached, 0 when none did.
func LibraryVersion(ctx context.Context, q Querier, org, library string) (int64, error) {
	var v int64
	err := queryRow(ctx, q, `SELECT version FROM library_versions WHERE org_id = ? AND library = ?`, org, library).Scan(&v)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return v, err
}

// SetLibraryVersion records version as the one org's library reached at now.
func SetLibraryVersion(ctx context.Context, q Querier, org, library string, version int64, now string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO library_versions (org_id, library, version, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (org_id, library) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
		org, library, version, now)
	return err
}
