package store

import (
	"context"
	"database/sql"
	"fmt"
)

// UpsertSession registers a session on first use and returns its row id;
// the first non-empty user id becomes its owner.
func UpsertSession(ctx context.Context, q Querier, org, sessionID, user, now string) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `INSERT INTO sessions (org_id, session_id, user_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (org_id, session_id) DO UPDATE SET updated_at = excluded.updated_at,
			user_id = CASE WHEN sessions.user_id = '' THEN excluded.user_id ELSE sessions.user_id END
		RETURNING id`, org, sessionID, user, now, now).Scan(&id)
	return id, err
}

// NodesNotOfKind returns the row ids of those of org's nodes numbered nums
// that are of a kind other than kind, by number (e is the engine of q).
func NodesNotOfKind(ctx context.Context, q Querier, e Engine, org, kind string, nums []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(nums))
	if len(nums) == 0 {
		return out, nil
	}
	args := []any{org, kind}
	rows, err := q.QueryContext(ctx, `SELECT COALESCE(num, id), id FROM nodes WHERE org_id = ? AND kind != ? AND `+
		e.inIDs("COALESCE(num, id)", nums, &args), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var num, id int64
		if err := rows.Scan(&num, &id); err != nil {
			return nil, err
		}
		out[num] = id
	}
	return out, rows.Err()
}

// LinkSessionPapers links session row sid to the papers with the DOIs,
// creating paper stubs for DOIs org does not hold.
func LinkSessionPapers(ctx context.Context, q Querier, org string, sid int64, dois []string, now string) error {
	stub, err := q.PrepareContext(ctx, `INSERT INTO papers (org_id, doi, created_at, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (org_id, doi) DO NOTHING`)
	if err != nil {
		return err
	}
	defer stub.Close()
	get, err := q.PrepareContext(ctx, `SELECT id FROM papers WHERE org_id = ? AND doi = ?`)
	if err != nil {
		return err
	}
	defer get.Close()
	link, err := q.PrepareContext(ctx, `INSERT INTO session_papers (session_id, paper_id, org_id, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return err
	}
	defer link.Close()
	for _, d := range dois {
		if _, err := stub.ExecContext(ctx, org, d, now, now); err != nil {
			return fmt.Errorf("paper stub %q: %w", d, err)
		}
		var pid int64
		if err := get.QueryRowContext(ctx, org, d).Scan(&pid); err != nil {
			return fmt.Errorf("paper %q: %w", d, err)
		}
		if _, err := link.ExecContext(ctx, sid, pid, org, now); err != nil {
			return fmt.Errorf("link paper %q: %w", d, err)
		}
	}
	return nil
}

// LinkSessionClaims links session row sid to the nodes with the ids.
func LinkSessionClaims(ctx context.Context, q Querier, org string, sid int64, ids []int64, now string) error {
	link, err := q.PrepareContext(ctx, `INSERT INTO session_claims (session_id, node_id, org_id, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return err
	}
	defer link.Close()
	for _, id := range ids {
		if _, err := link.ExecContext(ctx, sid, id, org, now); err != nil {
			return fmt.Errorf("link claim %d: %w", id, err)
		}
	}
	return nil
}

// SessionPaper is one session → paper link by row ids.
type SessionPaper struct{ Session, Paper int64 }

// SessionPapers returns every session → paper link of org, by session then
// paper.
func SessionPapers(ctx context.Context, q Querier, org string) ([]SessionPaper, error) {
	rows, err := q.QueryContext(ctx, `SELECT session_id, paper_id FROM session_papers WHERE org_id = ?
		ORDER BY session_id, paper_id`, org)
	return collect(rows, err, func(rows *sql.Rows, l *SessionPaper) error {
		return rows.Scan(&l.Session, &l.Paper)
	})
}

// RelatedEdges returns the weights of org's related edges by (a, b).
func RelatedEdges(ctx context.Context, q Querier, org string) (map[[2]int64]float64, error) {
	rows, err := q.QueryContext(ctx, `SELECT a, b, weight FROM session_edges WHERE org_id = ?`, org)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]int64]float64{}
	for rows.Next() {
		var a, b int64
		var wt float64
		if err := rows.Scan(&a, &b, &wt); err != nil {
			return nil, err
		}
		out[[2]int64{a, b}] = wt
	}
	return out, rows.Err()
}

// Edge is a weighted edge between two rows.
type Edge struct {
	A, B   int64
	Weight float64
}

// EdgeWriter inserts, re-weighs and deletes related edges of a workspace
// through statements prepared once.
type EdgeWriter struct {
	org, now      string
	ins, upd, del *sql.Stmt
}

// NewEdgeWriter prepares the statements of an EdgeWriter writing org's
// edges stamped now; Close releases them.
func NewEdgeWriter(ctx context.Context, q Querier, org, now string) (*EdgeWriter, error) {
	ew := &EdgeWriter{org: org, now: now}
	err := prepare(ctx, q, []**sql.Stmt{&ew.ins, &ew.upd, &ew.del}, []string{
		`INSERT INTO session_edges (a, b, org_id, weight, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		`UPDATE session_edges SET weight = ?, updated_at = ? WHERE org_id = ? AND a = ? AND b = ?`,
		`DELETE FROM session_edges WHERE org_id = ? AND a = ? AND b = ?`,
	})
	if err != nil {
		ew.Close()
		return nil, err
	}
	return ew, nil
}

// Insert adds the edge e.
func (ew *EdgeWriter) Insert(ctx context.Context, e Edge) error {
	_, err := ew.ins.ExecContext(ctx, e.A, e.B, ew.org, e.Weight, ew.now, ew.now)
	return err
}

// Update sets the weight of the edge e.
func (ew *EdgeWriter) Update(ctx context.Context, e Edge) error {
	_, err := ew.upd.ExecContext(ctx, e.Weight, ew.now, ew.org, e.A, e.B)
	return err
}

// Delete removes the edge (a, b).
func (ew *EdgeWriter) Delete(ctx context.Context, a, b int64) error {
	_, err := ew.del.ExecContext(ctx, ew.org, a, b)
	return err
}

// Close releases the prepared statements.
func (ew *EdgeWriter) Close() { closeStmts(ew.ins, ew.upd, ew.del) }

// SessionID returns the row id of org's session sessionID.
func SessionID(ctx context.Context, q Querier, org, sessionID string) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `SELECT id FROM sessions WHERE org_id = ? AND session_id = ?`, org, sessionID).Scan(&id)
	return id, err
}

// PaperID returns the row id of org's paper doi.
func PaperID(ctx context.Context, q Querier, org, doi string) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `SELECT id FROM papers WHERE org_id = ? AND doi = ?`, org, doi).Scan(&id)
	return id, err
}

// NodeIDNotOfKind returns the row id of org's node numbered num when it is
// of a kind other than kind.
func NodeIDNotOfKind(ctx context.Context, q Querier, org string, num int64, kind string) (int64, error) {
	var found int64
	err := queryRow(ctx, q, `SELECT id FROM nodes WHERE org_id = ? AND COALESCE(num, id) = ? AND kind != ?`, org, num, kind).Scan(&found)
	return found, err
}

// SessionAdjacency holds the edges touching a set of session rows.
type SessionAdjacency struct {
	Papers  []Edge // session → paper it uses
	Claims  []Edge // session → node it uses
	Related []Edge // session — session, weighted
}

// SessionNeighbours returns the edges touching org's session rows ids.
func SessionNeighbours(ctx context.Context, q Querier, org string, ids []int64) (*SessionAdjacency, error) {
	in := placeholders(len(ids))
	args := withIDs(ids, org)
	var a SessionAdjacency
	var err error
	if a.Papers, err = edges(ctx, q, `SELECT session_id, paper_id FROM session_papers WHERE org_id = ? AND session_id IN (`+in+`)`, args, false); err != nil {
		return nil, err
	}
	if a.Claims, err = edges(ctx, q, `SELECT session_id, node_id FROM session_claims WHERE org_id = ? AND session_id IN (`+in+`)`, args, false); err != nil {
		return nil, err
	}
	both := append(withIDs(ids, org), args[1:]...)
	if a.Related, err = edges(ctx, q, `SELECT a, b, weight FROM session_edges WHERE org_id = ? AND (a IN (`+in+`) OR b IN (`+in+`))`, both, true); err != nil {
		return nil, err
	}
	return &a, nil
}

// PaperAdjacency holds the edges touching a set of paper rows.
type PaperAdjacency struct {
	Sessions []Edge // session → paper
	Claims   []Edge // node → paper it comes from, for nodes some session links
}

// PaperNeighbours returns the edges touching org's paper rows ids: the
// sessions that use them, and the linked nodes that come from the papers
// or from their analyses.
func PaperNeighbours(ctx context.Context, q Querier, org string, ids []int64) (*PaperAdjacency, error) {
	in := placeholders(len(ids))
	args := withIDs(ids, org)
	var a PaperAdjacency
	var err error
	if a.Sessions, err = edges(ctx, q, `SELECT session_id, paper_id FROM session_papers WHERE org_id = ? AND paper_id IN (`+in+`)`, args, false); err != nil {
		return nil, err
	}
	// Claims from the paper's own nodes and from its analysis, as
	// far as some session links them.
	own, err := edges(ctx, q, `SELECT DISTINCT n.id, n.owner_id FROM nodes n JOIN session_claims sc ON sc.node_id = n.id AND sc.org_id = n.org_id
			WHERE n.org_id = ? AND n.kind = 'paper' AND n.owner_id IN (`+in+`)`, args, false)
	if err != nil {
		return nil, err
	}
	analysed, err := edges(ctx, q, `SELECT DISTINCT n.id, p.id FROM papers p
			JOIN analyses a ON a.org_id = p.org_id AND a.doi = p.doi
			JOIN nodes n ON n.org_id = a.org_id AND n.kind = 'analysis' AND n.owner_id = a.id
			JOIN session_claims sc ON sc.node_id = n.id AND sc.org_id = n.org_id
			WHERE p.org_id = ? AND p.id IN (`+in+`)`, args, false)
	if err != nil {
		return nil, err
	}
	a.Claims = append(own, analysed...)
	return &a, nil
}

// ClaimAdjacency holds the edges touching a set of nodes.
type ClaimAdjacency struct {
	Sessions []Edge // session → node
	Papers   []Edge // node → paper it comes from
}

// ClaimNeighbours returns the edges touching org's nodes ids: the sessions
// that link them and the papers they come from (e is the engine of q).
func ClaimNeighbours(ctx context.Context, q Querier, e Engine, org string, ids []int64) (*ClaimAdjacency, error) {
	in := placeholders(len(ids))
	args := withIDs(ids, org)
	var a ClaimAdjacency
	var err error
	if a.Sessions, err = edges(ctx, q, `SELECT session_id, node_id FROM session_claims WHERE org_id = ? AND node_id IN (`+in+`)`, args, false); err != nil {
		return nil, err
	}
	if a.Papers, err = edges(ctx, q, `SELECT n.id, `+claimPaper+` FROM nodes n `+e.NotIndexed()+` WHERE n.org_id = ? AND n.id IN (`+in+`) AND `+claimPaper+` IS NOT NULL`, args, false); err != nil {
		return nil, err
	}
	return &a, nil
}

// edges runs a query of (a, b) or, when weighted, (a, b, weight) rows;
// unweighted edges weigh 1.
func edges(ctx context.Context, q Querier, query string, args []any, weighted bool) ([]Edge, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	return collect(rows, nil, func(rows *sql.Rows, e *Edge) error {
		e.Weight = 1
		dest := []any{&e.A, &e.B}
		if weighted {
			dest = append(dest, &e.Weight)
		}
		return rows.Scan(dest...)
	})
}

// claimPaper is the SQL expression for the paper row a node n comes from:
// its owner for paper nodes, the analysed paper for analysis nodes, each
// only when of n's workspace; NULL otherwise.
const claimPaper = `(CASE n.kind WHEN 'paper' THEN (SELECT p.id FROM papers p WHERE p.org_id = n.org_id AND p.id = n.owner_id)
	WHEN 'analysis' THEN (SELECT p.id FROM analyses a JOIN papers p ON p.org_id = a.org_id AND p.doi = a.doi
		WHERE a.org_id = n.org_id AND a.id = n.owner_id) END)`

// GraphSession is a session row of the graph.
type GraphSession struct {
	ID                int64
	SessionID, UserID string
}

// GraphSessions returns org's session rows ids (e is the engine of q;
// the ids are looked up by rowid, as PapersByID's).
func GraphSessions(ctx context.Context, q Querier, e Engine, org string, ids []int64) ([]GraphSession, error) {
	var out []GraphSession
	err := each(ctx, q, `SELECT id, session_id, user_id FROM sessions `+e.NotIndexed()+` WHERE org_id = ? AND id`, org, ids, func(sc scanner) error {
		var s GraphSession
		if err := sc.Scan(&s.ID, &s.SessionID, &s.UserID); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// GraphPaper is a paper row of the graph.
type GraphPaper struct {
	ID         int64
	DOI, Title string
	Cached     bool // the paper has text
}

// GraphPapers returns org's paper rows ids (e is the engine of q; the
// ids are looked up by rowid, as PapersByID's).
func GraphPapers(ctx context.Context, q Querier, e Engine, org string, ids []int64) ([]GraphPaper, error) {
	var out []GraphPaper
	err := each(ctx, q, `SELECT id, doi, title, text != '' FROM papers `+e.NotIndexed()+` WHERE org_id = ? AND id`, org, ids, func(sc scanner) error {
		var p GraphPaper
		if err := sc.Scan(&p.ID, &p.DOI, &p.Title, &p.Cached); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// GraphClaim is a node of the graph with the DOI of the paper it comes
// from ("" for none).
type GraphClaim struct {
	ID               int64 // the row id
	Num              int64 // its number in the workspace, the id the API shows
	Label, Text, DOI string
}

// GraphClaims returns org's nodes ids (e is the engine of q). The DOI is
// that of claimPaper, a paper of n's workspace.
func GraphClaims(ctx context.Context, q Querier, e Engine, org string, ids []int64) ([]GraphClaim, error) {
	var out []GraphClaim
	err := each(ctx, q, `SELECT n.id, COALESCE(n.num, n.id), n.label, n.text, coalesce((SELECT doi FROM papers WHERE id = `+claimPaper+`), '')
		FROM nodes n `+e.NotIndexed()+` WHERE n.org_id = ? AND n.id`, org, ids, func(sc scanner) error {
		var c GraphClaim
		if err := sc.Scan(&c.ID, &c.Num, &c.Label, &c.Text, &c.DOI); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// each runs query, which ends in a column to match, with " IN (ids)"
// appended, and calls scan on every row. No ids, no query.
func each(ctx context.Context, q Querier, query, org string, ids []int64, scan func(scanner) error) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, query+` IN (`+placeholders(len(ids))+`)`, withIDs(ids, org)...)
	if err != nil {
		return fmt.Errorf("graph nodes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RecentSessions returns the ids of org's sessions, most recently linked
// first, at most limit of them.
func RecentSessions(ctx context.Context, q Querier, org string, limit int) ([]string, error) {
	return scanStrings(q.QueryContext(ctx, `SELECT session_id FROM sessions WHERE org_id = ?
		ORDER BY updated_at DESC, id DESC LIMIT ?`, org, limit))
}
