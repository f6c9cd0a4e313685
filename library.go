package papermem

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
)

// A library is the workspace's papers as a reference manager files them:
// each paper read or removed as a resource, listed by tag or collection,
// and recall scoped to them. Imports (imports.go) fill it.

// PaperQuery selects a page of the workspace's papers (ListPapers).
type PaperQuery = api.PaperQuery

// PaperPage is one page of papers, newest first; NextCursor, when not
// empty, asks for the next page.
type PaperPage struct {
	Papers     []Paper `json:"papers"`
	NextCursor string  `json:"next_cursor"`
}

// ListPapers returns a page of the workspace's papers, most recently added
// first, with their tags, collections and source. Errors: EINVALID (a
// limit out of range, a cursor not from ListPapers).
func (w *Workspace) ListPapers(ctx context.Context, q PaperQuery) (_ *PaperPage, err error) {
	defer translate(&err)
	limit, err := listLimit(q.Limit)
	if err != nil {
		return nil, err
	}
	var before int64
	if q.Cursor != "" {
		if before, err = strconv.ParseInt(q.Cursor, 10, 64); err != nil || before < 1 {
			return nil, Errorf(EINVALID, "cursor %q is not a cursor of this listing.", q.Cursor)
		}
	}
	rows, err := store.PaperPage(ctx, w.m.db, w.id, strings.TrimSpace(q.Tag), strings.TrimSpace(q.Collection), before, limit+1)
	if err != nil {
		return nil, fmt.Errorf("list papers: %w", err)
	}
	page := &PaperPage{Papers: []Paper{}}
	if len(rows) > limit {
		rows = rows[:limit]
		page.NextCursor = strconv.FormatInt(rows[limit-1].ID, 10)
	}
	ps := make([]*storedPaper, len(rows))
	for i := range rows {
		ps[i] = paperOf(&rows[i])
	}
	if err := w.fileUnder(ctx, ps); err != nil {
		return nil, err
	}
	for _, p := range ps {
		page.Papers = append(page.Papers, p.Paper)
	}
	return page, nil
}

// fileUnder sets the tags, collections and source of papers ps (nil
// tags and collections for none).
func (w *Workspace) fileUnder(ctx context.Context, ps []*storedPaper) error {
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.id
	}
	fs, err := store.Filings(ctx, w.m.db, w.id, ids)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if f := fs[p.id]; f != nil {
			p.Source = f.Source
			if len(f.Tags) > 0 {
				p.Tags = f.Tags
			}
			if len(f.Collections) > 0 {
				p.Collections = f.Collections
			}
		}
	}
	return nil
}

// NormalizeDocID returns document id ("doc:<n>" or "<n>", leading zeros
// and surrounding space allowed) as Documents and IngestReport.DocID give
// it, "doc:<n>". Errors: EINVALID.
func NormalizeDocID(id string) (string, error) {
	n, err := docNum(id)
	if err != nil {
		return "", err
	}
	return "doc:" + strconv.FormatInt(n, 10), nil
}

// docNum returns the number of document id (NormalizeDocID).
func docNum(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(id), "doc:"), 10, 64)
	if err != nil || n < 1 {
		return 0, Errorf(EINVALID, "%q is not a document id (doc:<n>).", id)
	}
	return n, nil
}

// DeleteDocument removes the document with the id ("doc:<n>", as
// Documents and IngestReport.DocID give it, or "<n>") and its passages
// from every index. Errors: EINVALID, ENOTFOUND.
func (w *Workspace) DeleteDocument(ctx context.Context, id string) (err error) {
	defer translate(&err)
	n, err := docNum(id)
	if err != nil {
		return err
	}
	return w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		return dbError(tx.DeleteDocument(ctx, w.id, n), fmt.Sprintf("Document doc:%d is not in memory.", n))
	})
}

// MaxScopeNames bounds the tags, and the collections, a recall may be
// scoped to.
const MaxScopeNames = 100

// checkNames checks the tags or collections (field) of a recall's scope.
func checkNames(names []string, field string) ([]string, error) {
	if len(names) > MaxScopeNames {
		return nil, Errorf(EINVALID, "%s may hold at most %d names.", field, MaxScopeNames)
	}
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || !utf8.ValidString(n) {
			return nil, Errorf(EINVALID, "%s must hold non-empty UTF-8 names.", field)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// scopeDOIs narrows a recall's DOIs (normalised; nil for every paper) to
// the papers tagged with one of tags and in one of collections, when
// either is set. ok is false when the scope holds no paper: the recall
// then finds nothing.
func (w *Workspace) scopeDOIs(ctx context.Context, dois, tags, collections []string) (scoped []string, ok bool, err error) {
	if len(tags) == 0 && len(collections) == 0 {
		return dois, true, nil
	}
	labelled, err := store.LabelledDOIs(ctx, w.m.db, w.id, tags, collections)
	if err != nil {
		return nil, false, err
	}
	if len(dois) > 0 {
		labelled = slices.DeleteFunc(labelled, func(d string) bool { return !slices.Contains(dois, d) })
	}
	return labelled, len(labelled) > 0, nil
}
