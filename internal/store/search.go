package store

// The SQL of the in-process search index (internal/nodeindex): reading a
// workspace's nodes and vectors, and the version numbers that tell an
// index what changed since it last read them. Every write of nodes bumps
// vec_version (BumpNodesVersion); a trigger on node_vectors (migration
// 0007) bumps it and del_version on every deletion, whatever made it.

import (
	"context"
	"database/sql"
	"fmt"
)

// NodesVersion returns the vec_version of workspace org: it moves whenever
// the workspace's nodes change. It is 0 for a workspace not registered.
// A point read made before every search, it does not watch ctx, for which
// the SQLite driver would start a goroutine per statement.
func NodesVersion(ctx context.Context, q Querier, org string) (int64, error) {
	var version int64
	err := q.QueryRowContext(context.WithoutCancel(ctx), `SELECT vec_version FROM workspaces WHERE org_id = ?`, org).Scan(&version)
	if err != nil && err != sql.ErrNoRows {
		return 0, fmt.Errorf("node index version: %w", err)
	}
	return version, nil
}

// BumpNodesVersion records through q, a write transaction, that the nodes
// of workspace org changed, so that every search index reads them again.
func BumpNodesVersion(ctx context.Context, q Querier, org string) error {
	_, err := q.ExecContext(ctx, `UPDATE workspaces SET vec_version = vec_version + 1 WHERE org_id = ?`, org)
	return err
}

// WorkspaceIDs lists the registered workspaces in id order.
func WorkspaceIDs(ctx context.Context, q Querier) ([]string, error) {
	return scanStrings(q.QueryContext(ctx, `SELECT org_id FROM workspaces ORDER BY org_id`))
}

// NodeSnapshot reads one workspace's nodes as one consistent snapshot of
// the database. It is not safe for concurrent use; Close ends it.
type NodeSnapshot struct {
	conn *sql.Conn
	org  string
}

// SnapshotNodes begins a snapshot of workspace org's nodes on one
// connection of db, the read pool.
func SnapshotNodes(ctx context.Context, db *sql.DB, org string) (*NodeSnapshot, error) {
	// A transaction begun by hand on one connection: on SQLite a deferred
	// one, a read snapshot that waits for no writer (BeginTx would take
	// the write lock of an in-memory database's one connection: _txlock);
	// on PostgreSQL the read pool's repeatable read.
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		conn.Close()
		return nil, fmt.Errorf("node index snapshot: %w", err)
	}
	return &NodeSnapshot{conn: conn, org: org}, nil
}

// Close ends the snapshot and releases its connection.
func (s *NodeSnapshot) Close() {
	s.conn.ExecContext(context.Background(), "ROLLBACK")
	s.conn.Close()
}

// Versions returns the workspace's vec_version (see NodesVersion) and its
// del_version, which counts deletions from node_vectors; both 0 for a
// workspace not registered.
func (s *NodeSnapshot) Versions(ctx context.Context) (nodes, deletions int64, err error) {
	err = s.conn.QueryRowContext(ctx, `SELECT vec_version, del_version FROM workspaces WHERE org_id = ?`, s.org).Scan(&nodes, &deletions)
	if err != nil && err != sql.ErrNoRows {
		return 0, 0, fmt.Errorf("node index version: %w", err)
	}
	return nodes, deletions, nil
}

// IndexedNode is a node as the search index holds it.
type IndexedNode struct {
	ID, Owner                              int64
	Label, Kind, User, Domain, SectionType string
	Text                                   string
	Title                                  string       // its paper's title, for nodes of papers; "" otherwise
	Section                                string       // the heading (path) of the section it comes from
	Vector                                 StoredVector // as stored (vectors.go)
}

// Nodes calls fn for each node of the workspace that has a vector and an
// id above after, in id order, and stops at fn's first error. A node of
// owner kind titled (papermem.KindPaper) comes with its paper's title.
func (s *NodeSnapshot) Nodes(ctx context.Context, after int64, titled string, fn func(IndexedNode) error) error {
	rows, err := s.conn.QueryContext(ctx, `SELECT v.node_id, n.owner_id, n.label, n.kind, n.user_id, n.domain, n.section_type, n.text, v.embedding,
		p.title, n.section
		FROM node_vectors v JOIN nodes n ON n.id = v.node_id AND n.org_id = v.org_id
		LEFT JOIN papers p ON n.kind = ? AND p.org_id = n.org_id AND p.id = n.owner_id
		WHERE v.org_id = ? AND v.node_id > ? ORDER BY v.node_id`, titled, s.org, after)
	if err != nil {
		return fmt.Errorf("load node index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n IndexedNode
		var b []byte
		var title sql.NullString
		if err := rows.Scan(&n.ID, &n.Owner, &n.Label, &n.Kind, &n.User, &n.Domain, &n.SectionType, &n.Text, &b, &title, &n.Section); err != nil {
			return err
		}
		n.Title, n.Vector = title.String, b
		if err := fn(n); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountVectors returns how many nodes of the workspace have a vector.
func (s *NodeSnapshot) CountVectors(ctx context.Context) (int, error) {
	var n int
	if err := s.conn.QueryRowContext(ctx, `SELECT count(*) FROM node_vectors WHERE org_id = ?`, s.org).Scan(&n); err != nil {
		return 0, fmt.Errorf("node index size: %w", err)
	}
	return n, nil
}

// VectorIDs returns the ids of the workspace's nodes that have a vector,
// in increasing order.
func (s *NodeSnapshot) VectorIDs(ctx context.Context) ([]int64, error) {
	ids, err := scanIDs(s.conn.QueryContext(ctx, `SELECT node_id FROM node_vectors WHERE org_id = ? ORDER BY node_id`, s.org))
	if err != nil {
		return nil, fmt.Errorf("node index ids: %w", err)
	}
	return ids, nil
}
