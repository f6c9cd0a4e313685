package papermem

import (
	"context"
	"fmt"

	"github.com/papermem/papermem/internal/store"
)

// Document is a file IngestFile stored as a document: any file that is not
// a paper's full text.
type Document struct {
	ID        string `json:"doc_id"`     // "doc:<id>", the DocID of its IngestReport
	Name      string `json:"name"`       // the file's name, the source of its spans' provenance
	Title     string `json:"title"`      // found in the file, given, or else its name
	Format    string `json:"format"`     // one of IngestFormats
	Domain    string `json:"domain"`     // "" for none
	Bytes     int64  `json:"bytes"`      // size of the file
	CreatedAt string `json:"created_at"` // when it was ingested
}

// Documents lists the workspace's documents, most recently ingested first,
// at most limit of them (0 means DefaultPaperLimit; at most MaxPaperLimit).
// Errors: EINVALID.
func (w *Workspace) Documents(ctx context.Context, limit int) ([]Document, error) {
	limit, err := listLimit(limit)
	if err != nil {
		return nil, err
	}
	rows, err := store.Documents(ctx, w.m.db, w.id, limit)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	out := make([]Document, 0, len(rows))
	for _, r := range rows {
		out = append(out, Document{ID: fmt.Sprintf("doc:%d", r.Num), Name: r.Name, Title: r.Title, Format: r.Format,
			Domain: r.Domain, Bytes: r.Bytes, CreatedAt: r.CreatedAt})
	}
	return out, nil
}
