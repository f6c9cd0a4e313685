package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Node is a row of nodes to insert.
type Node struct {
	Org, Kind                    string
	OwnerID                      int64
	UserID, Label                string
	ParentID                     sql.NullInt64
	Seq                          int
	Section, SectionType, Domain string
	Text                         string
	Tokens, Page, Row            int
	Sheet                        string
	CharStart, CharEnd           int
	CreatedAt                    string
}

// nodeColumns are the columns InsertNodes fills, in its VALUES order.
const nodeColumns = `org_id, kind, owner_id, user_id, label, parent_id, seq,
	section, section_type, domain, text, tokens, page, row, sheet, char_start, char_end, created_at`

// rowsPerInsert bounds the rows of one INSERT: 18 parameters a node keep
// it far below either engine's bound on parameters (SQLite 32,766,
// PostgreSQL 65,535), and few distinct statement texts (one per row count)
// reach PostgreSQL's per-connection statement cache.
const rowsPerInsert = 64

// InsertNodes inserts ns, in order, many rows a statement, and returns
// their ids in the same order. A statement is a round trip to PostgreSQL,
// and on either engine a parse and a plan: a paper's nodes cost a few
// statements rather than one a node. The ids come back from RETURNING,
// whose order neither engine promises; both take ids in insertion order,
// so sorted they are the rows'.
func InsertNodes(ctx context.Context, q Querier, ns []Node) ([]int64, error) {
	ids := make([]int64, 0, len(ns))
	for len(ns) > 0 {
		part := ns[:min(len(ns), rowsPerInsert)]
		ns = ns[len(part):]
		args := make([]any, 0, 18*len(part))
		for _, n := range part {
			args = append(args, n.Org, n.Kind, n.OwnerID, n.UserID, n.Label, n.ParentID, n.Seq,
				n.Section, n.SectionType, n.Domain, n.Text, n.Tokens, n.Page, n.Row, n.Sheet, n.CharStart, n.CharEnd, n.CreatedAt)
		}
		got, err := scanIDs(q.QueryContext(ctx, `INSERT INTO nodes (`+nodeColumns+`) VALUES `+
			valueRows(len(part), 18)+` RETURNING id`, args...))
		if err != nil {
			return nil, fmt.Errorf("insert nodes: %w", err)
		}
		if len(got) != len(part) {
			return nil, fmt.Errorf("insert nodes: %d ids for %d rows", len(got), len(part))
		}
		slices.Sort(got)
		ids = append(ids, got...)
	}
	return ids, nil
}

// InsertVectors stores vecs[i], the vector of org's node ids[i], in its
// float32 encoding (vectors.go), many rows a statement. The bits column is
// retired and gets an empty value: nothing has read it since the in-memory
// index took the signs from the float vectors, and it stays only so that
// servers of earlier builds, which still write it, run beside this one.
func InsertVectors(ctx context.Context, q Querier, org string, ids []int64, vecs [][]float32) error {
	for len(ids) > 0 {
		k := min(len(ids), rowsPerInsert)
		args := make([]any, 0, 4*k)
		for i := range k {
			args = append(args, ids[i], org, vectorBlob(vecs[i]), []byte{})
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO node_vectors (node_id, org_id, embedding, bits) VALUES `+valueRows(k, 4), args...); err != nil {
			return err
		}
		ids, vecs = ids[k:], vecs[k:]
	}
	return nil
}

// valueRows returns rows parenthesised groups of cols placeholders, for a
// multi-row VALUES.
func valueRows(rows, cols int) string {
	row := "(" + placeholders(cols) + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
}

// DeleteNodes deletes every node of org's owner (kind, ownerID) and their
// vectors.
func DeleteNodes(ctx context.Context, q Querier, org, kind string, ownerID int64) error {
	where := ` IN (SELECT id FROM nodes WHERE org_id = ? AND kind = ? AND owner_id = ?)`
	for _, query := range []string{
		`DELETE FROM node_vectors WHERE node_id` + where,
		`DELETE FROM nodes WHERE id` + where,
	} {
		if _, err := q.ExecContext(ctx, query, org, kind, ownerID); err != nil {
			return err
		}
	}
	return nil // the node_vectors_deleted trigger moves the workspace's versions
}

// OtherEmbedder returns a workspace indexed with an embedder other than
// (name, dim), with that embedder (sql.ErrNoRows when there is none).
func OtherEmbedder(ctx context.Context, q Querier, name string, dim int) (org, other string, otherDim int, err error) {
	err = q.QueryRowContext(ctx, `SELECT org_id, embedder, dim FROM workspaces
		WHERE embedder <> '' AND (embedder <> ? OR dim <> ?) LIMIT 1`, name, dim).Scan(&org, &other, &otherDim)
	return org, other, otherDim, err
}

// DeleteAllVectors deletes the vectors of every node of every workspace.
func DeleteAllVectors(ctx context.Context, q Querier) error {
	_, err := q.ExecContext(ctx, `DELETE FROM node_vectors`)
	return err
}

// NodeText is a node's id, workspace and text.
type NodeText struct {
	ID        int64
	Org, Text string
}

// NodesAfter returns up to 256 nodes of any workspace with ids above
// lastID, by id.
func NodesAfter(ctx context.Context, q Querier, lastID int64) ([]NodeText, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, org_id, text FROM nodes WHERE id > ? ORDER BY id LIMIT 256`, lastID)
	return collect(rows, err, func(rows *sql.Rows, n *NodeText) error {
		return rows.Scan(&n.ID, &n.Org, &n.Text)
	})
}

// SetEmbedder records the embedder (name, dim) of every indexed workspace
// and moves their vector versions.
func SetEmbedder(ctx context.Context, q Querier, name string, dim int) error {
	_, err := q.ExecContext(ctx, `UPDATE workspaces SET embedder = ?, dim = ?, vec_version = vec_version + 1
			WHERE embedder <> ''`, name, dim)
	return err
}
