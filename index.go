package papermem

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// nodeIndex is the in-process index of every node: one part per workspace,
// holding each node's vector as sign bits and as int8 (vectors.go), the BM25
// postings of its text (lexical.go) and what searches filter on. SQLite
// stays the record: a part is loaded from nodes and node_vectors on first
// use and kept current by the workspace's vec_version, which every write of
// nodes bumps. A search whose workspace changed (in this process or
// another) first loads the rows it has not seen: node ids are never reused,
// so loading the ids above the highest one seen is exact. When the workspace's del_version moved (a trigger
// counts every deletion from node_vectors), deleted nodes are found by
// counting, then by id, and marked dead; a part is rebuilt once a quarter
// of it is dead. Parts beyond maxNodes entries in all are dropped, least
// recently used first.
type nodeIndex struct {
	dim      int // vector dimensions
	words    int // uint64 words per bit vector
	maxNodes int // entries kept over all parts before the least recently used go

	mu   sync.Mutex
	orgs map[string]*orgIndex
	uses int64 // counts part calls, to order parts by last use
}

// orgIndex is one workspace's part of the index. Entries are addressed by
// their position, in node id order; ids, owners, meta and dead have one
// element per entry.
type orgIndex struct {
	lastUse int64        // nodeIndex.uses at the part's last use; guarded by nodeIndex.mu
	size    atomic.Int64 // len(ids), readable without mu

	mu      sync.RWMutex
	version int64 // vec_version this part reflects; -1 before the first load
	deletes int64 // del_version this part reflects
	maxID   int64
	ids     []int64
	owners  []int64 // the owner id (paper, document, …) of each entry
	meta    []nodeMeta
	dead    []bool
	ndead   int
	bits    []uint64  // len(ids)*words: the sign bits of each vector
	vecs    []int8    // len(ids)*dim: each vector as int8…
	scales  []float32 // …times its scale
	lex     lexicon
	labels  map[collection]lexStats // BM25 statistics of each label's nodes, by collection
	names   []string                // the meta values, by name id
	nameIDs map[string]int32        // and back
}

// collection names the nodes of one label in one user's collection ("" for
// the shared nodes), as name ids.
type collection struct{ user, label int32 }

// nodeMeta is what searches filter nodes on, as name ids.
type nodeMeta struct {
	label, kind, user, domain, sectionType int32
}

func newNodeIndex(dim, maxNodes int) *nodeIndex {
	return &nodeIndex{dim: dim, words: (dim + 63) / 64, maxNodes: maxNodes, orgs: map[string]*orgIndex{}}
}

// part returns workspace org's part, brought up to date with the database.
func (x *nodeIndex) part(ctx context.Context, db *sql.DB, org string) (*orgIndex, error) {
	x.mu.Lock()
	p := x.orgs[org]
	if p == nil {
		p = &orgIndex{version: -1}
		x.orgs[org] = p
	}
	x.uses++
	p.lastUse = x.uses
	x.mu.Unlock()
	if err := x.sync(ctx, db, org, p); err != nil {
		return nil, err
	}
	x.evict(org)
	return p, nil
}

// evict drops the least recently used parts, but never keep's, while the
// parts hold more than maxNodes entries. A search still using a dropped
// part finishes with it; the next one reloads the workspace.
func (x *nodeIndex) evict(keep string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var total int64
	for _, p := range x.orgs {
		total += p.size.Load()
	}
	for total > int64(x.maxNodes) {
		victim := ""
		for org, p := range x.orgs {
			if org != keep && (victim == "" || p.lastUse < x.orgs[victim].lastUse) {
				victim = org
			}
		}
		if victim == "" {
			return // keep alone is over the bound: it stays
		}
		total -= x.orgs[victim].size.Load()
		delete(x.orgs, victim)
	}
}

// Warm loads the in-process search index of every workspace, up to
// Options.IndexMaxNodes nodes, so that no recall pays for it: 2–4 s per
// 100k nodes. A server calls it
// once after Open, in the background; recalls meanwhile wait for the
// workspace they search. It returns when ctx is done, with ctx's error.
func (m *Memory) Warm(ctx context.Context) error {
	orgs, err := m.workspaceIDs(ctx)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		if _, err := m.index.part(ctx, m.db, org); err != nil {
			return err
		}
	}
	return nil
}

// workspaceIDs lists the registered workspaces.
func (m *Memory) workspaceIDs(ctx context.Context) ([]string, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT org_id FROM workspaces ORDER BY org_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var org string
		if err := rows.Scan(&org); err != nil {
			return nil, err
		}
		out = append(out, org)
	}
	return out, rows.Err()
}

// bumpVectors records in tx that the nodes of workspace org changed.
func bumpVectors(ctx context.Context, tx *sql.Tx, org string) error {
	_, err := tx.ExecContext(ctx, `UPDATE workspaces SET vec_version = vec_version + 1 WHERE org_id = ?`, org)
	return err
}

// sync brings part p of workspace org up to date with the database. It
// reads in one transaction, so what it loads is one consistent snapshot.
func (x *nodeIndex) sync(ctx context.Context, db *sql.DB, org string, p *orgIndex) error {
	// A point read on every search: it does not watch ctx, for which the
	// SQLite driver would start a goroutine per statement.
	var version int64
	err := db.QueryRowContext(context.WithoutCancel(ctx), `SELECT vec_version FROM workspaces WHERE org_id = ?`, org).Scan(&version)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("node index version: %w", err)
	}
	p.mu.RLock()
	current := p.version == version
	p.mu.RUnlock()
	if current {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.version == version {
		return nil
	}
	// A deferred transaction on one connection: a read snapshot that
	// waits for no writer (BeginTx would take the write lock: _txlock).
	tx, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer tx.Close()
	if _, err := tx.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("node index snapshot: %w", err)
	}
	defer tx.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	var deletes int64
	err = tx.QueryRowContext(ctx, `SELECT vec_version, del_version FROM workspaces WHERE org_id = ?`, org).Scan(&version, &deletes)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("node index version: %w", err)
	}
	if err := x.load(ctx, tx, org, p); err != nil {
		return err
	}
	if deletes != p.deletes {
		if err := p.markDeleted(ctx, tx, org); err != nil {
			return err
		}
	}
	if p.ndead > len(p.ids)/4 {
		p.ids, p.owners, p.meta, p.dead, p.maxID, p.ndead = nil, nil, nil, nil, 0, 0
		p.bits, p.vecs, p.scales, p.lex, p.labels = nil, nil, nil, lexicon{}, nil
		if err := x.load(ctx, tx, org, p); err != nil {
			return err
		}
	}
	p.version, p.deletes = version, deletes
	p.size.Store(int64(len(p.ids)))
	return nil
}

// load appends the nodes of workspace org that p has not seen.
func (x *nodeIndex) load(ctx context.Context, tx *sql.Conn, org string, p *orgIndex) error {
	rows, err := tx.QueryContext(ctx, `SELECT v.node_id, n.owner_id, n.label, n.kind, n.user_id, n.domain, n.section_type, n.text, v.embedding,
		CASE WHEN n.label = ? THEN (SELECT title FROM papers WHERE org_id = n.org_id AND id = n.owner_id) END
		FROM node_vectors v JOIN nodes n ON n.id = v.node_id AND n.org_id = v.org_id
		WHERE v.org_id = ? AND v.node_id > ? ORDER BY v.node_id`, LabelPaper, org, p.maxID)
	if err != nil {
		return fmt.Errorf("load node index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, owner int64
		var label, kind, user, domain, sectionType, text string
		var b []byte
		var title sql.NullString
		if err := rows.Scan(&id, &owner, &label, &kind, &user, &domain, &sectionType, &text, &b, &title); err != nil {
			return err
		}
		m := nodeMeta{p.nameID(label), p.nameID(kind), p.nameID(user), p.nameID(domain), p.nameID(sectionType)}
		p.ids = append(p.ids, id)
		p.owners = append(p.owners, owner)
		p.meta = append(p.meta, m)
		p.dead = append(p.dead, false)
		v := blobVector(b)
		if len(v) != x.dim {
			return fmt.Errorf("node %d has a vector of %d dimensions, not %d", id, len(v), x.dim)
		}
		var scale float32
		p.vecs, scale = appendInt8(p.vecs, v)
		p.scales = append(p.scales, scale)
		p.bits = appendWords(p.bits, bitsBlob(v), x.words)
		p.lex.add(int32(len(p.ids)-1), user, text, title.String)
		p.count(len(p.ids)-1, 1)
		p.maxID = id
	}
	return rows.Err()
}

// count adds (by 1) or removes (by -1) entry e in its label's statistics.
func (p *orgIndex) count(e, by int) {
	if p.labels == nil {
		p.labels = map[collection]lexStats{}
	}
	c := collection{p.meta[e].user, p.meta[e].label}
	st := p.labels[c]
	st.docs += by
	st.tokens += by * int(p.lex.length[e])
	p.labels[c] = st
}

// nameID returns the name id of s, adding it when new.
func (p *orgIndex) nameID(s string) int32 {
	id, ok := p.nameIDs[s]
	if !ok {
		if p.nameIDs == nil {
			p.nameIDs = map[string]int32{}
		}
		id = int32(len(p.names))
		p.names = append(p.names, s)
		p.nameIDs[s] = id
	}
	return id
}

// markDeleted marks dead the entries whose node is gone from the database.
// Counting comes first: reading every id is needed only when some are gone.
func (p *orgIndex) markDeleted(ctx context.Context, tx *sql.Conn, org string) error {
	var stored int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM node_vectors WHERE org_id = ?`, org).Scan(&stored); err != nil {
		return fmt.Errorf("node index size: %w", err)
	}
	if stored == len(p.ids)-p.ndead {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT node_id FROM node_vectors WHERE org_id = ? ORDER BY node_id`, org)
	if err != nil {
		return fmt.Errorf("node index ids: %w", err)
	}
	defer rows.Close()
	live := make([]int64, 0, stored)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		live = append(live, id)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i, id := range p.ids {
		if _, found := slices.BinarySearch(live, id); !found && !p.dead[i] {
			p.dead[i] = true
			p.ndead++
			p.lex.remove(int32(i), p.names[p.meta[i].user])
			p.count(i, -1)
		}
	}
	return nil
}

// entry returns the position of node id in p.
func (p *orgIndex) entry(id int64) (int, bool) {
	return slices.BinarySearch(p.ids, id)
}

// searchQuery selects the nodes a search of the index may return; user
// also names the collection whose statistics a BM25 search uses.
type searchQuery struct {
	org, user, label, kind, domain string
	sectionTypes                   []string
	k                              int // results wanted
}

// entryFilter is a searchQuery resolved to one part's name ids; anyName
// stands for no condition.
type entryFilter struct {
	user, label, notLabel, kind, domain int32
	sectionTypes                        []int32
}

const anyName = -1

// filter resolves q for p. It reports false when no entry can pass: q
// names a value no entry has.
func (p *orgIndex) filter(q searchQuery) (entryFilter, bool) {
	f := entryFilter{label: anyName, notLabel: anyName, kind: anyName, domain: anyName}
	ok := true
	id := func(s string) int32 {
		n, found := p.nameIDs[s]
		ok = ok && found
		return n
	}
	f.user = id(q.user)
	if q.label != "" {
		f.label = id(q.label)
	}
	if q.kind != "" {
		f.kind = id(q.kind)
	}
	if q.domain != "" {
		f.domain = id(q.domain)
	}
	if q.label == "" && q.user == "" {
		if n, found := p.nameIDs[LabelMemory]; found {
			f.notLabel = n // workspace recall never shows per-user memories
		}
	}
	for _, s := range q.sectionTypes {
		if n, found := p.nameIDs[s]; found {
			f.sectionTypes = append(f.sectionTypes, n)
		}
	}
	if len(q.sectionTypes) > 0 && len(f.sectionTypes) == 0 {
		ok = false
	}
	return f, ok
}

// admits reports whether entry i is live and passes f.
func (p *orgIndex) admits(i int, f *entryFilter) bool {
	if p.dead[i] {
		return false
	}
	m := &p.meta[i]
	return m.user == f.user &&
		(f.label == anyName || m.label == f.label) &&
		(f.notLabel == anyName || m.label != f.notLabel) &&
		(f.kind == anyName || m.kind == f.kind) &&
		(f.domain == anyName || m.domain == f.domain) &&
		(f.sectionTypes == nil || slices.Contains(f.sectionTypes, m.sectionType))
}
