package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// Filing is how a reference manager files a paper: the source it was last
// imported from ("" for none), its key there, the hash of what was
// imported, and its tags and collections, sorted and distinct.
type Filing struct {
	Source, Key, Hash string
	Tags, Collections []string
}

// Label kinds of paper_labels.
const (
	labelTag        = "tag"
	labelCollection = "collection"
)

// FilePaper replaces the filing of org's paper doi by f. Errors:
// ErrNotFound when org holds no paper doi.
func (t *Tx) FilePaper(ctx context.Context, org, doi string, f *Filing) error {
	id, err := PaperID(ctx, t, org, doi)
	if err != nil {
		return err
	}
	if _, err := t.ExecContext(ctx, `UPDATE papers SET source = ?, source_key = ?, source_hash = ?
		WHERE org_id = ? AND id = ?`, f.Source, f.Key, f.Hash, org, id); err != nil {
		return fmt.Errorf("file paper %q: %w", doi, err)
	}
	if err := deletePaperLabels(ctx, t, org, id); err != nil {
		return err
	}
	for _, l := range []struct {
		kind  string
		names []string
	}{{labelTag, f.Tags}, {labelCollection, f.Collections}} {
		names := slices.Clone(l.names)
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			if _, err := t.ExecContext(ctx, `INSERT INTO paper_labels (org_id, paper_id, kind, name) VALUES (?, ?, ?, ?)`,
				org, id, l.kind, name); err != nil {
				return fmt.Errorf("label paper %q: %w", doi, err)
			}
		}
	}
	return nil
}

// deletePaperLabels deletes the tags and collections of org's paper id.
func deletePaperLabels(ctx context.Context, q Querier, org string, id int64) error {
	_, err := q.ExecContext(ctx, `DELETE FROM paper_labels WHERE org_id = ? AND paper_id = ?`, org, id)
	return err
}

// Filings returns the filings of org's papers ids, by id; a paper filed
// nowhere has an empty one.
func Filings(ctx context.Context, q Querier, org string, ids []int64) (map[int64]*Filing, error) {
	out := make(map[int64]*Filing, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in := ` IN (` + placeholders(len(ids)) + `)`
	rows, err := q.QueryContext(ctx, `SELECT id, source, source_key, source_hash FROM papers WHERE org_id = ? AND id`+in,
		withIDs(ids, org)...)
	_, err = collect(rows, err, func(rows *sql.Rows, _ *struct{}) error {
		f := &Filing{Tags: []string{}, Collections: []string{}}
		var id int64
		if err := rows.Scan(&id, &f.Source, &f.Key, &f.Hash); err != nil {
			return err
		}
		out[id] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("filings: %w", err)
	}
	rows, err = q.QueryContext(ctx, `SELECT paper_id, kind, name FROM paper_labels WHERE org_id = ? AND paper_id`+in+` ORDER BY name`,
		withIDs(ids, org)...)
	_, err = collect(rows, err, func(rows *sql.Rows, _ *struct{}) error {
		var id int64
		var kind, name string
		if err := rows.Scan(&id, &kind, &name); err != nil {
			return err
		}
		if f := out[id]; f != nil && kind == labelTag {
			f.Tags = append(f.Tags, name)
		} else if f != nil {
			f.Collections = append(f.Collections, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("paper labels: %w", err)
	}
	return out, nil
}

// PaperPage lists org's papers with ids below before (0 for no bound),
// newest first, at most limit of them, with the first character of their
// text only: only those tagged tag, when it is set, and in collection,
// when it is set.
func PaperPage(ctx context.Context, q Querier, org, tag, collection string, before int64, limit int) ([]Paper, error) {
	query, args := `SELECT `+listedColumns+` FROM papers p WHERE org_id = ?`, []any{org}
	if before > 0 {
		query, args = query+` AND id < ?`, append(args, before)
	}
	for _, l := range [][2]string{{labelTag, tag}, {labelCollection, collection}} {
		if l[1] != "" {
			query += ` AND EXISTS (SELECT 1 FROM paper_labels l WHERE l.org_id = p.org_id AND l.paper_id = p.id AND l.kind = ? AND l.name = ?)`
			args = append(args, l[0], l[1])
		}
	}
	return scanPapers(q.QueryContext(ctx, query+` ORDER BY id DESC LIMIT ?`, append(args, limit)...))
}

// LabelledDOIs returns the DOIs of org's papers tagged with one of tags
// (any paper when tags is empty) and in one of collections (any paper when
// collections is empty), in no particular order.
func LabelledDOIs(ctx context.Context, q Querier, org string, tags, collections []string) ([]string, error) {
	query, args := `SELECT doi FROM papers p WHERE org_id = ?`, []any{org}
	for _, l := range []struct {
		kind  string
		names []string
	}{{labelTag, tags}, {labelCollection, collections}} {
		if len(l.names) == 0 {
			continue
		}
		query += ` AND EXISTS (SELECT 1 FROM paper_labels l WHERE l.org_id = p.org_id AND l.paper_id = p.id AND l.kind = ? AND l.name IN (` +
			placeholders(len(l.names)) + `))`
		args = append(args, l.kind)
		for _, n := range l.names {
			args = append(args, n)
		}
	}
	dois, err := scanStrings(q.QueryContext(ctx, query, args...))
	if err != nil {
		return nil, fmt.Errorf("labelled papers: %w", err)
	}
	return dois, nil
}

// SourcedPaper is a paper as its source knows it: its DOI and the hash of
// what was imported.
type SourcedPaper struct{ DOI, Hash string }

// PapersOfSource returns those of org's papers imported from source whose
// key there is one of keys, by key; none when keys is empty.
func PapersOfSource(ctx context.Context, q Querier, org, source string, keys []string) (map[string]SourcedPaper, error) {
	out := map[string]SourcedPaper{}
	for len(keys) > 0 {
		n := min(len(keys), keysPerQuery)
		if err := papersOfSource(ctx, q, org, source, keys[:n], out); err != nil {
			return nil, err
		}
		keys = keys[n:]
	}
	return out, nil
}

// keysPerQuery bounds the keys of one query, under the engines' limits on
// a statement's parameters.
const keysPerQuery = 500

// papersOfSource adds to out the papers of source with keys.
func papersOfSource(ctx context.Context, q Querier, org, source string, keys []string, out map[string]SourcedPaper) error {
	args := []any{org, source}
	for _, k := range keys {
		args = append(args, k)
	}
	query := `SELECT source_key, doi, source_hash FROM papers WHERE org_id = ? AND source = ? AND source_key IN (` + placeholders(len(keys)) + `)`
	rows, err := q.QueryContext(ctx, query, args...)
	_, err = collect(rows, err, func(rows *sql.Rows, _ *struct{}) error {
		var key string
		var p SourcedPaper
		if err := rows.Scan(&key, &p.DOI, &p.Hash); err != nil {
			return err
		}
		out[key] = p
		return nil
	})
	if err != nil {
		return fmt.Errorf("papers of %q: %w", source, err)
	}
	return nil
}

// DeleteDocument deletes org's document num (its number in org, as the
// API shows it: doc:<num>) with its nodes. Errors: ErrNotFound when org
// holds no document num.
func (t *Tx) DeleteDocument(ctx context.Context, org string, num int64) error {
	var id int64
	if err := queryRow(ctx, t, `SELECT id FROM documents WHERE org_id = ? AND COALESCE(num, id) = ?`, org, num).Scan(&id); err != nil {
		return err
	}
	if err := deleteNodes(ctx, t, Owner{Org: org, Kind: kindDocument, ID: id}); err != nil {
		return err
	}
	_, err := t.ExecContext(ctx, `DELETE FROM documents WHERE org_id = ? AND id = ?`, org, id)
	return err
}
