package papermem

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// vectorIndex is the in-process Hamming index over the sign bits of every
// node vector, one part per workspace, loaded from node_vectors on first use
// and kept current by each workspace's vec_version: a search whose workspace
// changed (in this process or another) first loads the new rows. Node ids are
// never reused, so loading only ids above the highest one seen is exact;
// deleted nodes linger until rescoring drops them, and a part is reloaded
// whole once a quarter of it is gone.
//
// Measured on this project's 2-core machine, sqlite-vec's vec0 kNN costs
// O(n·k) for its top-k selection and reads vectors row by row: 100–500 ms
// at 35k vectors, against about a millisecond for this scan. sqlite-vec
// still scores every candidate exactly (vec_distance_cosine).
type vectorIndex struct {
	words int // uint64 words per bit vector

	mu   sync.Mutex
	orgs map[string]*orgVectors
}

// orgVectors is one workspace's part of the index.
type orgVectors struct {
	mu      sync.RWMutex
	version int64 // vec_version this part reflects; -1 before the first load
	maxID   int64
	ids     []int64
	meta    []vectorMeta
	bits    []uint64 // len(ids)*words
}

type vectorMeta struct {
	label, kind, user string
}

func newVectorIndex(dim int) *vectorIndex {
	return &vectorIndex{words: (dim + 63) / 64, orgs: map[string]*orgVectors{}}
}

func (x *vectorIndex) part(org string) *orgVectors {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.orgs[org]
	if p == nil {
		p = &orgVectors{version: -1}
		x.orgs[org] = p
	}
	return p
}

// bumpVectors records in tx that the vectors of workspace org changed.
func bumpVectors(ctx context.Context, tx *sql.Tx, org string) error {
	_, err := tx.ExecContext(ctx, `UPDATE workspaces SET vec_version = vec_version + 1 WHERE org_id = ?`, org)
	return err
}

// sync brings part p of workspace org up to date with the database.
func (x *vectorIndex) sync(ctx context.Context, db *sql.DB, org string, p *orgVectors) error {
	var version int64
	err := db.QueryRowContext(ctx, `SELECT vec_version FROM workspaces WHERE org_id = ?`, org).Scan(&version)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("vector index version: %w", err)
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
	if len(p.ids) > 0 {
		var live int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM node_vectors WHERE org_id = ?`, org).Scan(&live); err != nil {
			return fmt.Errorf("vector index size: %w", err)
		}
		if len(p.ids)-live > len(p.ids)/4 {
			p.ids, p.meta, p.bits, p.maxID = p.ids[:0], p.meta[:0], p.bits[:0], 0
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT v.node_id, n.label, n.kind, n.user_id, v.bits
		FROM node_vectors v JOIN nodes n ON n.id = v.node_id AND n.org_id = v.org_id
		WHERE v.org_id = ? AND v.node_id > ? ORDER BY v.node_id`, org, p.maxID)
	if err != nil {
		return fmt.Errorf("load vector index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var m vectorMeta
		var b []byte
		if err := rows.Scan(&id, &m.label, &m.kind, &m.user, &b); err != nil {
			return err
		}
		p.ids = append(p.ids, id)
		p.meta = append(p.meta, m)
		p.bits = appendWords(p.bits, b, x.words)
		p.maxID = id
	}
	if err := rows.Err(); err != nil {
		return err
	}
	p.version = version
	return nil
}

// size returns how many vectors workspace org has, deleted ones included
// until the next reload.
func (x *vectorIndex) size(ctx context.Context, db *sql.DB, org string) (int, error) {
	p := x.part(org)
	if err := x.sync(ctx, db, org, p); err != nil {
		return 0, err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.ids), nil
}

// appendWords appends bit vector b as exactly n little-endian words.
func appendWords(dst []uint64, b []byte, n int) []uint64 {
	var buf [8]byte
	for i := range n {
		clear(buf[:])
		if 8*i < len(b) {
			copy(buf[:], b[8*i:])
		}
		dst = append(dst, binary.LittleEndian.Uint64(buf[:]))
	}
	return dst
}

// vectorQuery selects the nodes a vector search may return.
type vectorQuery struct {
	org, user, label, kind string
	k                      int // results wanted
}

func (q vectorQuery) admits(m vectorMeta) bool {
	switch {
	case m.user != q.user:
		return false
	case q.label != "" && m.label != q.label:
		return false
	case q.label == "" && q.user == "" && m.label == LabelMemory:
		return false
	case q.kind != "" && m.kind != q.kind:
		return false
	}
	return true
}

// hit is a node found by a search with the search's score: BM25 for the
// full-text search, cosine similarity for the vector search.
type hit struct {
	id    int64
	score float64
}

// prefilterFactor is how many Hamming candidates are rescored exactly for
// each result wanted.
const prefilterFactor = 4

// nearest returns up to q.k nodes with the highest cosine similarity to qv
// (unit length), best first, each with a positive similarity.
func (m *Memory) nearest(ctx context.Context, q vectorQuery, qv []float32) ([]hit, error) {
	if !slices.ContainsFunc(qv, func(x float32) bool { return x != 0 }) {
		return nil, nil // nothing to compare: the text has no features
	}
	x := m.vectors
	p := x.part(q.org)
	if err := x.sync(ctx, m.db, q.org, p); err != nil {
		return nil, err
	}
	query := appendWords(nil, bitsBlob(qv), x.words)
	ids := p.hamming(query, q, prefilterFactor*q.k)
	if len(ids) == 0 {
		return nil, nil
	}
	args := []any{vectorBlob(qv), q.org}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := m.db.QueryContext(ctx, `SELECT node_id, COALESCE(1 - vec_distance_cosine(embedding, ?), 0) AS sim
		FROM node_vectors WHERE org_id = ? AND node_id IN (`+placeholders(len(ids))+`)
		ORDER BY sim DESC LIMIT ?`, append(args, q.k)...)
	if err != nil {
		return nil, fmt.Errorf("vector rescoring: %w", err)
	}
	defer rows.Close()
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.score); err != nil {
			return nil, err
		}
		if h.score > 0 {
			hits = append(hits, h)
		}
	}
	return hits, rows.Err()
}

// hamming returns the ids of the (about) n admitted entries nearest to
// query in Hamming distance: a histogram of distances finds the cut-off, so
// selection is linear.
func (p *orgVectors) hamming(query []uint64, q vectorQuery, n int) []int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	w := len(query)
	dist := make([]int32, len(p.ids))
	hist := make([]int, 64*w+1)
	for i := range p.ids {
		if !q.admits(p.meta[i]) {
			dist[i] = -1
			continue
		}
		d := 0
		row := p.bits[i*w : i*w+w]
		for j, qw := range query {
			d += bits.OnesCount64(qw ^ row[j])
		}
		dist[i] = int32(d)
		hist[d]++
	}
	cut, total := 0, 0
	for cut < len(hist) && total+hist[cut] <= n {
		total += hist[cut]
		cut++
	}
	// Entries at distance < cut all fit; fill up with entries at cut.
	room := n - total
	var out []int64
	for i, d := range dist {
		switch {
		case d < 0:
		case int(d) < cut:
			out = append(out, p.ids[i])
		case int(d) == cut && room > 0:
			out = append(out, p.ids[i])
			room--
		}
	}
	return out
}
