package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Node is a node to store: one recallable unit of its owner's text, with
// its vector.
type Node struct {
	ID                           int64 // set when stored: the row id, never shown
	Num                          int64 // set when stored: its number in the workspace, the id the API shows
	Label                        string
	Parent                       int // index in the same batch of the node it came from (a claim's passage); -1 for none
	Section, SectionType, Domain string
	Text                         string
	Tokens, Page, Row            int
	Sheet                        string
	CharStart, CharEnd           int
	Vec                          []float32
}

// The kinds of the rows that own nodes, as nodes.kind holds them.
const (
	kindPaper    = "paper"
	kindDocument = "document"
	kindAnalysis = "analysis"
	kindMemory   = "memory"
)

// labelPaper is the label of a paper's title and abstract node.
const labelPaper = "Paper"

// Owner is the row that nodes belong to: org's paper, document, analysis
// or memory (Kind) of row id ID, and for a memory its user.
type Owner struct {
	Org, Kind string
	ID        int64
	UserID    string
}

// nodeColumns are the columns insertNodes fills, in its VALUES order.
const nodeColumns = `org_id, kind, owner_id, user_id, label, parent_id, seq,
	section, section_type, domain, text, tokens, page, row, sheet, char_start, char_end, created_at, num`

// nodeParams is the number of nodeColumns.
var nodeParams = strings.Count(nodeColumns, ",") + 1

// rowsPerInsert bounds the rows of one INSERT: 19 parameters a node keep
// it far below either engine's bound on parameters (SQLite 32,766,
// PostgreSQL 65,535), and few distinct statement texts (one per row count)
// reach PostgreSQL's per-connection statement cache.
const rowsPerInsert = 64

// putNodes stores ns, the nodes of owner o made at now, with their
// vectors, numbering them (seq) in order, giving them the workspace's next
// numbers in order (Num) and setting their IDs, and moves the workspace's
// node version. A node's Parent is an index in ns: the nodes before a
// child whose parent has no id yet are inserted first, so that ids follow
// ns's order.
func putNodes(ctx context.Context, q Querier, o Owner, ns []Node, now string) error {
	if len(ns) == 0 {
		return BumpNodesVersion(ctx, q, o.Org)
	}
	first, err := nextNums(ctx, q, o.Org, numberedNodes, len(ns))
	if err != nil {
		return fmt.Errorf("number nodes: %w", err)
	}
	for i := range ns {
		ns[i].Num = first + int64(i)
	}
	done := 0 // ns[:done] have ids
	flush := func(end int) error {
		if end == done {
			return nil
		}
		ids, err := insertNodes(ctx, q, o, ns, done, end, now)
		if err != nil {
			return err
		}
		vecs := make([][]float32, 0, end-done)
		for i, id := range ids {
			ns[done+i].ID = id
			vecs = append(vecs, ns[done+i].Vec)
		}
		if err := insertVectors(ctx, q, o.Org, ids, vecs); err != nil {
			return fmt.Errorf("store node vectors: %w", err)
		}
		done = end
		return nil
	}
	for i := range ns {
		if p := ns[i].Parent; p >= 0 && p >= done {
			if err := flush(i); err != nil {
				return err
			}
		}
	}
	if err := flush(len(ns)); err != nil {
		return err
	}
	return BumpNodesVersion(ctx, q, o.Org)
}

// insertNodes inserts ns[from:to], in order, many rows a statement, and
// returns their ids in the same order; the parents of those with one have
// ids. A statement is a round trip to PostgreSQL, and on either engine a
// parse and a plan: a paper's nodes cost a few statements rather than one
// a node. The ids come back from RETURNING, whose order neither engine
// promises; both take ids in insertion order, so sorted they are the rows'.
func insertNodes(ctx context.Context, q Querier, o Owner, ns []Node, from, to int, now string) ([]int64, error) {
	ids := make([]int64, 0, to-from)
	for from < to {
		end := min(to, from+rowsPerInsert)
		args := make([]any, 0, nodeParams*(end-from))
		for seq := from; seq < end; seq++ {
			n := &ns[seq]
			var parent sql.NullInt64
			if n.Parent >= 0 {
				parent = sql.NullInt64{Int64: ns[n.Parent].ID, Valid: true}
			}
			args = append(args, o.Org, o.Kind, o.ID, o.UserID, n.Label, parent, seq,
				n.Section, n.SectionType, n.Domain, n.Text, n.Tokens, n.Page, n.Row, n.Sheet, n.CharStart, n.CharEnd, now, n.Num)
		}
		got, err := scanIDs(q.QueryContext(ctx, `INSERT INTO nodes (`+nodeColumns+`) VALUES `+
			valueRows(end-from, nodeParams)+` RETURNING id`, args...))
		if err != nil {
			return nil, fmt.Errorf("insert nodes: %w", err)
		}
		if len(got) != end-from {
			return nil, fmt.Errorf("insert nodes: %d ids for %d rows", len(got), end-from)
		}
		slices.Sort(got)
		ids = append(ids, got...)
		from = end
	}
	return ids, nil
}

// insertVectors stores vecs[i], the vector of org's node ids[i], in its
// stored format (vectors.go), many rows a statement.
func insertVectors(ctx context.Context, q Querier, org string, ids []int64, vecs [][]float32) error {
	for len(ids) > 0 {
		k := min(len(ids), rowsPerInsert)
		args := make([]any, 0, 3*k)
		for i := range k {
			args = append(args, ids[i], org, vectorBlob(vecs[i]))
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO node_vectors (node_id, org_id, embedding) VALUES `+valueRows(k, 3), args...); err != nil {
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

// deleteNodes deletes every node of owner o and their vectors.
func deleteNodes(ctx context.Context, q Querier, o Owner) error {
	where := ` IN (SELECT id FROM nodes WHERE org_id = ? AND kind = ? AND owner_id = ?)`
	for _, query := range []string{
		`DELETE FROM node_vectors WHERE node_id` + where,
		`DELETE FROM nodes WHERE id` + where,
	} {
		if _, err := q.ExecContext(ctx, query, o.Org, o.Kind, o.ID); err != nil {
			return fmt.Errorf("delete nodes: %w", err)
		}
	}
	return nil // the node_vectors_deleted trigger moves the workspace's versions
}

// OtherEmbedder returns a workspace indexed with an embedder other than
// (name, dim), with that embedder (ErrNotFound when there is none).
func OtherEmbedder(ctx context.Context, q Querier, name string, dim int) (org, other string, otherDim int, err error) {
	err = queryRow(ctx, q, `SELECT org_id, embedder, dim FROM workspaces
		WHERE embedder <> '' AND (embedder <> ? OR dim <> ?) LIMIT 1`, name, dim).Scan(&org, &other, &otherDim)
	return org, other, otherDim, err
}

// Reembed replaces the vector of every node of every workspace with one
// of the embedder (name, dim), which embed computes from the nodes' texts,
// a batch at a time, and records that embedder as every indexed
// workspace's. The workspaces' rows are written first: on PostgreSQL their
// locks make the writes of servers still on the old embedder wait for this
// transaction and then refuse (EnsureWorkspace), rather than add old
// vectors while it runs.
func (t *Tx) Reembed(ctx context.Context, name string, dim int, embed func(texts []string) ([][]float32, error)) error {
	if err := setEmbedder(ctx, t, name, dim); err != nil {
		return err
	}
	if err := deleteAllVectors(ctx, t); err != nil {
		return err
	}
	var lastID int64
	for {
		batch, err := nodesAfter(ctx, t, lastID)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		texts := make([]string, len(batch))
		for i, n := range batch {
			texts[i] = n.Text
		}
		vecs, err := embed(texts)
		if err != nil {
			return err
		}
		for i := 0; i < len(batch); { // a statement per run of one workspace's nodes
			k := i + 1
			for k < len(batch) && batch[k].Org == batch[i].Org {
				k++
			}
			ids := make([]int64, 0, k-i)
			for _, n := range batch[i:k] {
				ids = append(ids, n.ID)
			}
			if err := insertVectors(ctx, t, batch[i].Org, ids, vecs[i:k]); err != nil {
				return fmt.Errorf("store node vectors: %w", err)
			}
			i = k
		}
		lastID = batch[len(batch)-1].ID
	}
}

// deleteAllVectors deletes the vectors of every node of every workspace.
func deleteAllVectors(ctx context.Context, q Querier) error {
	_, err := q.ExecContext(ctx, `DELETE FROM node_vectors`)
	return err
}

// nodeText is a node's id, workspace and text.
type nodeText struct {
	ID        int64
	Org, Text string
}

// nodesAfter returns up to 256 nodes of any workspace with ids above
// lastID, by id.
func nodesAfter(ctx context.Context, q Querier, lastID int64) ([]nodeText, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, org_id, text FROM nodes WHERE id > ? ORDER BY id LIMIT 256`, lastID)
	return collect(rows, err, func(rows *sql.Rows, n *nodeText) error {
		return rows.Scan(&n.ID, &n.Org, &n.Text)
	})
}

// setEmbedder records the embedder (name, dim) of every indexed workspace
// and moves their vector versions.
func setEmbedder(ctx context.Context, q Querier, name string, dim int) error {
	_, err := q.ExecContext(ctx, `UPDATE workspaces SET embedder = ?, dim = ?, vec_version = vec_version + 1
			WHERE embedder <> ''`, name, dim)
	return err
}
