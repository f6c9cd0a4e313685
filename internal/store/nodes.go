package store

import (
	"context"
	"database/sql"
	"fmt"
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

// NodeInserter inserts nodes and their vectors through statements prepared
// once.
type NodeInserter struct {
	ins, vecs *sql.Stmt
}

// NewNodeInserter prepares the statements of a NodeInserter; Close
// releases them.
func NewNodeInserter(ctx context.Context, q Querier) (*NodeInserter, error) {
	ni := &NodeInserter{}
	err := prepare(ctx, q, []**sql.Stmt{&ni.ins, &ni.vecs}, []string{
		`INSERT INTO nodes (org_id, kind, owner_id, user_id, label, parent_id, seq,
		section, section_type, domain, text, tokens, page, row, sheet, char_start, char_end, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		insertVectorSQL,
	})
	if err != nil {
		ni.Close()
		return nil, err
	}
	return ni, nil
}

// InsertNode inserts n and returns its id (RETURNING: pgx has no
// LastInsertId).
func (ni *NodeInserter) InsertNode(ctx context.Context, n *Node) (int64, error) {
	var id int64
	err := ni.ins.QueryRowContext(ctx, n.Org, n.Kind, n.OwnerID, n.UserID, n.Label, n.ParentID, n.Seq,
		n.Section, n.SectionType, n.Domain, n.Text, n.Tokens, n.Page, n.Row, n.Sheet, n.CharStart, n.CharEnd, n.CreatedAt).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert node: %w", err)
	}
	return id, nil
}

// InsertVector stores v, the vector of org's node id, in its float32 and
// bit encodings (vectors.go).
func (ni *NodeInserter) InsertVector(ctx context.Context, id int64, org string, v []float32) error {
	_, err := ni.vecs.ExecContext(ctx, id, org, vectorBlob(v), bitsBlob(v))
	return err
}

// Close releases the prepared statements.
func (ni *NodeInserter) Close() { closeStmts(ni.ins, ni.vecs) }

// insertVectorSQL stores one node's vector.
const insertVectorSQL = `INSERT INTO node_vectors (node_id, org_id, embedding, bits) VALUES (?, ?, ?, ?)`

// InsertVector stores v, the vector of org's node id, in its float32 and
// bit encodings (vectors.go).
func InsertVector(ctx context.Context, q Querier, id int64, org string, v []float32) error {
	_, err := q.ExecContext(ctx, insertVectorSQL, id, org, vectorBlob(v), bitsBlob(v))
	return err
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
