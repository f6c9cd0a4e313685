// Package nodeindex is papermem's in-process search index: one part per
// workspace, holding each node's vector as sign bits and as int8
// (vectors.go), the BM25 postings of its text (lexical.go) and what
// searches filter on.
//
// The database stays the record: a part is loaded from the nodes and
// their vectors on first use (internal/store's search.go holds the SQL) and
// kept current by the workspace's vec_version, which every write of nodes
// bumps (store.BumpNodesVersion). A search whose workspace changed (in
// this process or another) first loads the rows it has not seen: node ids
// are never reused, so loading the ids above the highest one seen is
// exact. When the workspace's del_version moved (a trigger counts every
// deletion from node_vectors), deleted nodes are found by counting, then by
// id, and marked dead; a part is rebuilt once a quarter of it is dead.
// Parts beyond Config.MaxBytes of memory in all are dropped, least
// recently used first.
//
// Index.Part returns a workspace's part brought up to date; its methods
// search it: Lexical and WeightedBM25 by BM25, Nearest by cosine
// similarity, and Siblings and Owned look nodes up by their source.
package nodeindex

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testhook"
)

// Config says what an Index holds.
type Config struct {
	// Dim is the number of dimensions of every vector.
	Dim int
	// Embedder names the embedder of the vectors, which a part's files
	// must name to be read (persist.go).
	Embedder string
	// MaxBytes bounds the memory the parts take over all workspaces:
	// beyond it the least recently used parts are dropped, and loaded
	// again when next used. The vectors of a persisted part are on disk
	// and do not count.
	MaxBytes int64
	// Dir, when set, is the directory where the index keeps its parts
	// between runs (persist.go).
	Dir string
	// Coarse is the first of the 128 dimensions whose signs the
	// vector search compares first (vectors.go), a multiple of 64: a run
	// of dense dimensions, whose signs say most about a vector. Past the
	// last dimensions it means the last 128.
	Coarse int
	// Logger reports what fails in the background (writing snapshots).
	Logger *slog.Logger
	// TitleLabel is the label of the nodes whose text begins with their
	// paper's title (papermem.LabelPaper): the title's words count twice.
	TitleLabel string
	// TitledKind is the owner kind whose nodes have a title
	// (papermem.KindPaper). Every node but those of TitleLabel is scored
	// with its section's heading as context (lexical.go), less that title.
	TitledKind string
}

// Index is the in-process search index of every workspace's nodes, read
// from db. An *Index is safe for concurrent use.
type Index struct {
	db         *sql.DB
	dim        int   // vector dimensions
	words      int   // uint64 words per bit vector
	coarseAt   int   // the first of the words the coarse pass compares
	maxBytes   int64 // memory kept over all parts before the least recently used go
	titleLabel string
	titledKind string
	embedder   string   // Config.Embedder
	dir        string   // where parts persist; "" for none
	lock       *os.File // holds dir's lock
	log        *slog.Logger
	saving     sync.WaitGroup // snapshots being written

	mu    sync.Mutex
	orgs  map[string]*Part
	files map[string]*sync.Mutex // serialises the use of each workspace's files
	uses  int64                  // counts part calls, to order parts by last use
}

// Part is one workspace's part of the index. A *Part is safe for
// concurrent use; a part dropped from the index stays usable by those who
// hold it.
type Part struct {
	// Entries are addressed by their position, in node id order; ids,
	// owners, copies, meta and dead have one element per entry.
	dim, words int          // as the Index's
	coarseAt   int          // as the Index's
	coarseN    int          // the words the coarse pass compares: min(coarseWords, words)
	lastUse    int64        // Index.uses at the part's last use; guarded by Index.mu
	size       atomic.Int64 // len(ids), readable without mu
	mem        atomic.Int64 // the part's memory in bytes (heapBytes), readable without mu
	saving     atomic.Bool  // a snapshot is being written

	mu        sync.RWMutex
	version   int64 // vec_version this part reflects; -1 before the first load
	deletes   int64 // del_version this part reflects
	maxID     int64
	saved     int // entries the part's last snapshot holds; guarded by the workspace's file lock too
	fromFiles int // entries read from the part's files when it was loaded
	ids       []int64
	owners    []int64  // the owner id (paper, document, …) of each entry
	copies    []uint64 // the Node.Copy of each entry
	meta      []nodeMeta
	dead      []bool
	ndead     int
	coarse    []uint64  // len(ids)*coarseN: the coarse words of each vector's sign bits…
	bits      []uint64  // len(ids)*(words-coarseN): …and the others, in order
	vecs      *vecStore // each vector as int8…
	scales    []float32 // …times its scale
	lex       lexicon
	labels    map[collection]lexStats   // BM25 statistics of each label's nodes, by collection
	dfs       memo[dfKey, int]          // document frequencies counted for the part as it is
	filters   memo[filterKey, []uint64] // the entries each filter admits (admitted)
	names     []string                  // the meta values, by name id
	nameIDs   map[string]int32          // and back
}

// newPart returns an empty part, not loaded yet.
func newPart(dim, words, coarseAt int) *Part {
	p := &Part{dim: dim, words: words, coarseAt: coarseAt, coarseN: min(coarseWords, words), version: -1}
	p.dfs.limit, p.filters.limit = 1<<16, 16
	return p
}

// collection names the nodes of one label in one user's collection ("" for
// the shared nodes), as name ids.
type collection struct{ user, label int32 }

// nodeMeta is what searches filter nodes on, as name ids.
type nodeMeta struct {
	label, kind, user, domain, sectionType int32
}

// New returns an empty index over the database read through db. With
// c.Dir set, it takes that directory's lock; when another process holds
// it, the index keeps its parts in memory only.
func New(db *sql.DB, c Config) (*Index, error) {
	words := (c.Dim + 63) / 64
	x := &Index{db: db, dim: c.Dim, words: words, coarseAt: max(0, min(c.Coarse/64, words-coarseWords)),
		maxBytes: c.MaxBytes, titleLabel: c.TitleLabel, titledKind: c.TitledKind, embedder: c.Embedder,
		log: cmp.Or(c.Logger, slog.Default()), orgs: map[string]*Part{}, files: map[string]*sync.Mutex{}}
	if c.Dir != "" {
		lock, ok, err := lockDir(c.Dir)
		if err != nil {
			return nil, err
		}
		if ok {
			x.dir, x.lock = c.Dir, lock
		} else {
			x.log.Debug("another process holds the search index directory: this one keeps its index in memory", "dir", c.Dir)
		}
	}
	return x, nil
}

// ErrOtherEmbedder is why Part fails when the database holds a vector of
// another dimension than the index's: another embedder made it.
var ErrOtherEmbedder = errors.New("another embedder made it")

// Close writes the snapshot of every loaded part that gained entries
// since its last, and releases the index's directory. Searches must have
// returned.
func (x *Index) Close() error {
	x.saving.Wait()
	if x.dir == "" {
		return nil
	}
	x.mu.Lock()
	orgs := maps.Clone(x.orgs)
	x.mu.Unlock()
	var errs []error
	for org, p := range orgs {
		errs = append(errs, x.snapshot(org, p, (*Part).unsaved))
	}
	errs = append(errs, x.lock.Close()) // and with it the lock
	x.dir = ""
	return errors.Join(errs...)
}

// fileLock returns the lock of org's files.
func (x *Index) fileLock(org string) *sync.Mutex {
	x.mu.Lock()
	defer x.mu.Unlock()
	l := x.files[org]
	if l == nil {
		l = new(sync.Mutex)
		x.files[org] = l
	}
	return l
}

// snapshot writes p's snapshot when due(p) holds, under org's file lock.
func (x *Index) snapshot(org string, p *Part, due func(*Part) bool) error {
	l := x.fileLock(org)
	l.Lock()
	defer l.Unlock()
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !due(p) {
		return nil
	}
	return x.save(org, p)
}

// snapshotLater writes p's snapshot in the background when it is due.
func (x *Index) snapshotLater(org string, p *Part) {
	if x.dir == "" || !p.saving.CompareAndSwap(false, true) {
		return
	}
	x.saving.Go(func() {
		defer p.saving.Store(false)
		if err := x.snapshot(org, p, (*Part).snapshotDue); err != nil {
			x.log.Error("search index snapshot", "workspace", org, "err", err)
		}
	})
}

// Part returns workspace org's part, brought up to date with the database
// (empty for a workspace not registered).
func (x *Index) Part(ctx context.Context, org string) (*Part, error) {
	x.mu.Lock()
	p := x.orgs[org]
	if p == nil {
		p = newPart(x.dim, x.words, x.coarseAt)
		x.orgs[org] = p
	}
	x.uses++
	p.lastUse = x.uses
	x.mu.Unlock()
	if err := x.sync(ctx, org, p); err != nil {
		return nil, err
	}
	x.evict(org)
	return p, nil
}

// Stats returns the number of parts loaded, their entries and the memory
// they take in bytes.
func (x *Index) Stats() (parts int, entries, bytes int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, p := range x.orgs {
		parts++
		entries += p.size.Load()
		bytes += p.mem.Load()
	}
	return parts, entries, bytes
}

// Warm loads the part of every registered workspace, up to Config.MaxBytes.
// It returns when ctx is done, with ctx's error.
func (x *Index) Warm(ctx context.Context) error {
	orgs, err := store.WorkspaceIDs(ctx, x.db)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		if _, err := x.Part(ctx, org); err != nil {
			return err
		}
	}
	return nil
}

// evict drops the least recently used parts, but never keep's, while the
// parts take more than maxBytes, writing the snapshot of each that gained
// entries since its last. A search still using a dropped part finishes
// with it; the next one reloads the workspace.
func (x *Index) evict(keep string) {
	x.mu.Lock()
	var total int64
	for _, p := range x.orgs {
		total += p.mem.Load()
	}
	var victims []string
	dropped := map[string]*Part{}
	for total > x.maxBytes {
		victim := ""
		for org, p := range x.orgs {
			if org != keep && (victim == "" || p.lastUse < x.orgs[victim].lastUse) {
				victim = org
			}
		}
		if victim == "" {
			break // keep alone is over the bound: it stays
		}
		total -= x.orgs[victim].mem.Load()
		victims, dropped[victim] = append(victims, victim), x.orgs[victim]
		delete(x.orgs, victim)
	}
	x.mu.Unlock()
	if x.dir == "" {
		return
	}
	for _, org := range victims {
		if err := x.snapshot(org, dropped[org], (*Part).unsaved); err != nil {
			x.log.Error("search index snapshot", "workspace", org, "err", err)
		}
	}
}

// sync brings part p of workspace org up to date with the database. It
// reads one snapshot, so what it loads is consistent. A persisted part is
// read from its files on first use, then catches up.
func (x *Index) sync(ctx context.Context, org string, p *Part) error {
	version, err := store.NodesVersion(ctx, x.db, org)
	if err != nil {
		return err
	}
	p.mu.RLock()
	current := p.version == version
	p.mu.RUnlock()
	if current {
		return nil
	}
	if x.dir != "" {
		l := x.fileLock(org) // before p.mu, as snapshot takes them
		l.Lock()
		defer l.Unlock()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.version == version {
		return nil
	}
	snap, err := store.SnapshotNodes(ctx, x.db, org)
	if err != nil {
		return err
	}
	defer snap.Close()
	version, deletes, err := snap.Versions(ctx)
	if err != nil {
		return err
	}
	if p.version < 0 && testhook.IndexLoad != nil {
		testhook.IndexLoad()
	}
	if p.vecs == nil {
		p.vecs = newVecStore(p.dim, nil, 0)
		if x.dir != "" {
			x.restore(org, p, version, deletes)
		}
	}
	if err := x.load(ctx, snap, p); err != nil {
		return err
	}
	if deletes != p.deletes {
		if err := p.markDeleted(ctx, snap); err != nil {
			return err
		}
	}
	if p.ndead > len(p.ids)/4 {
		if err := x.rebuild(ctx, snap, org, p); err != nil {
			return err
		}
	}
	if err := p.vecs.flush(); err != nil {
		x.log.Error("search index: the new vectors stay in memory", "workspace", org, "err", err)
	}
	p.dfs.clear()
	p.filters.clear()
	p.version, p.deletes = version, deletes
	p.size.Store(int64(len(p.ids)))
	p.mem.Store(p.heapBytes())
	if p.snapshotDue() {
		x.snapshotLater(org, p)
	}
	return nil
}

// rebuild loads p again from the snapshot, without its dead entries. A
// persisted part's .idx file goes first, since it describes the entries
// its .vec file is about to lose.
func (x *Index) rebuild(ctx context.Context, snap *store.NodeSnapshot, org string, p *Part) error {
	if x.dir != "" {
		idx, _ := partFiles(x.dir, org)
		if err := os.Remove(idx); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("index snapshot: %w", err)
		}
	}
	p.reset()
	p.vecs.reset()
	return x.load(ctx, snap, p)
}

// heapBytes estimates the memory p takes. The caller holds p.mu.
func (p *Part) heapBytes() int64 {
	n := int64(len(p.ids))
	perEntry := int64(8+8+8+20+1+4+4) + 8*int64(p.words) // ids, owners, copies, meta, dead, scales, length; bits
	return n*perEntry + p.vecs.heapBytes() + p.lex.heapBytes()
}

// load appends the nodes of the snapshot that p has not seen.
func (x *Index) load(ctx context.Context, snap *store.NodeSnapshot, p *Part) error {
	q := make([]int8, 0, x.dim)
	return snap.Nodes(ctx, p.maxID, x.titledKind, func(n store.IndexedNode) error {
		if n.Vector.Dim() != x.dim {
			return fmt.Errorf("node %d has a vector of %d dimensions, not %d: %w", n.ID, n.Vector.Dim(), x.dim, ErrOtherEmbedder)
		}
		q = p.add(n, n.Label == x.titleLabel, q)
		return nil
	})
}

// add appends node n, whose text begins with its paper's title when
// titled, using q as scratch, which it returns. The stored vector holds
// the int8 components, scale and signs the index keeps.
func (p *Part) add(n store.IndexedNode, titled bool, q []int8) []int8 {
	q = q[:0]
	cs, bs := len(p.coarse), len(p.bits)
	p.coarse = append(p.coarse, make([]uint64, p.coarseN)...)
	p.bits = append(p.bits, make([]uint64, p.words-p.coarseN)...)
	for i := range n.Vector.Dim() {
		c, positive := n.Vector.Component(i)
		q = append(q, c)
		if positive {
			*p.signWord(cs, bs, i/64) |= 1 << (i % 64)
		}
	}
	p.vecs.add(q)
	m := nodeMeta{p.nameID(n.Label), p.nameID(n.Kind), p.nameID(n.User), p.nameID(n.Domain), p.nameID(n.SectionType)}
	p.ids = append(p.ids, n.ID)
	p.owners = append(p.owners, n.Owner)
	p.copies = append(p.copies, copyKey(n.Label, n.SectionType, n.Text))
	p.meta = append(p.meta, m)
	p.dead = append(p.dead, false)
	p.scales = append(p.scales, n.Vector.Scale())
	if titled {
		p.lex.add(int32(len(p.ids)-1), n.User, n.Text, n.Title, "")
	} else {
		p.lex.add(int32(len(p.ids)-1), n.User, n.Text, "", nodeContext(n.Title, n.Section))
	}
	p.count(len(p.ids)-1, 1)
	p.maxID = n.ID
	return q
}

// nodeContext is the context field of a node (see lexicon.add): the
// heading of its section, without its paper's title where the heading
// path begins with it (a Markdown file's title is its first heading). The
// title belongs to the paper, which paper context ranks, not to a node.
func nodeContext(title, section string) string {
	if title != "" && strings.HasPrefix(section, title) {
		return strings.TrimPrefix(strings.TrimPrefix(section, title), " > ")
	}
	return section
}

// count adds (by 1) or removes (by -1) entry e in its label's statistics.
func (p *Part) count(e, by int) {
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
func (p *Part) nameID(s string) int32 {
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
func (p *Part) markDeleted(ctx context.Context, snap *store.NodeSnapshot) error {
	stored, err := snap.CountVectors(ctx)
	if err != nil {
		return err
	}
	if stored == len(p.ids)-p.ndead {
		return nil
	}
	live, err := snap.VectorIDs(ctx)
	if err != nil {
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

// Size returns the number of entries of the part, deleted nodes not yet
// dropped included.
func (p *Part) Size() int { return int(p.size.Load()) }

// Node is a node of the index with the source it belongs to.
type Node struct {
	ID    int64
	Owner int64  // the id of the paper, document, analysis or memory
	Kind  string // the owner's kind
	// Copy is a hash of the node's label, section type and text: nodes
	// that differ in any of them have different Copy (but for a 64-bit
	// hash's collisions), and copies of one text under the same label and
	// section type have the same.
	Copy uint64
}

// node returns entry e as a Node.
func (p *Part) node(e int) Node {
	return Node{p.ids[e], p.owners[e], p.names[p.meta[e].kind], p.copies[e]}
}

// copyKey returns the Node.Copy of a node: the FNV-1a hash of its label,
// section type and text, each ended by a zero byte.
func copyKey(label, sectionType, text string) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range [...]string{label, sectionType, text} {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		h *= 1099511628211 // a zero byte: h ^= 0 leaves h as it is
	}
	return h
}

// entry returns the position of node id in p.
func (p *Part) entry(id int64) (int, bool) {
	return slices.BinarySearch(p.ids, id)
}

// Siblings returns the nodes admitted by q among those of the source node
// id belongs to (itself included), in id order; none when id is not in
// the part. A source's nodes are stored together, so they are its
// neighbours with its owner and kind.
func (p *Part) Siblings(id int64, q Query) []Node {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.entry(id)
	if !ok {
		return nil
	}
	f, ok := p.filter(q)
	if !ok {
		return nil
	}
	same := func(i int) bool {
		return p.owners[i] == p.owners[e] && p.meta[i].kind == p.meta[e].kind
	}
	lo, hi := e, e+1
	for lo > 0 && same(lo-1) {
		lo--
	}
	for hi < len(p.ids) && same(hi) {
		hi++
	}
	var out []Node
	for i := lo; i < hi; i++ {
		if p.admits(i, &f) {
			out = append(out, p.node(i))
		}
	}
	return out
}

// Owned returns the nodes admitted by q whose owner is the given one of
// the given kind, in id order.
func (p *Part) Owned(kind string, owner int64, q Query) []Node {
	p.mu.RLock()
	defer p.mu.RUnlock()
	k, found := p.nameIDs[kind]
	f, ok := p.filter(q)
	if !found || !ok {
		return nil
	}
	var out []Node
	for e := range p.ids {
		if p.owners[e] == owner && p.meta[e].kind == k && p.admits(e, &f) {
			out = append(out, p.node(e))
		}
	}
	return out
}

// Query selects the nodes a search may return, and how many. User also
// names the collection whose statistics a BM25 search uses.
type Query struct {
	User         string   // "" for the workspace's shared nodes, else one user's
	Label        string   // "" for every label
	ExceptLabel  string   // when set, a label left out
	Kind         string   // "" for every owner kind
	Owners       []int64  // nil for every owner, else only these (owners of Kind); empty admits none
	Domain       string   // "" for every domain
	SectionTypes []string // nil for every section type
	K            int      // results wanted
}

// entryFilter is a Query resolved to one part's name ids; anyName stands
// for no condition.
type entryFilter struct {
	user, label, notLabel, kind, domain int32
	sectionTypes                        []int32
	owners                              []int64 // sorted; nil for any owner
}

const anyName = -1

// filter resolves q for p. It reports false when no entry can pass: q
// names a value no entry has, or an empty list of owners.
func (p *Part) filter(q Query) (entryFilter, bool) {
	f := entryFilter{label: anyName, notLabel: anyName, kind: anyName, domain: anyName}
	ok := true
	id := func(s string) int32 {
		n, found := p.nameIDs[s]
		ok = ok && found
		return n
	}
	f.user = id(q.User)
	if q.Label != "" {
		f.label = id(q.Label)
	}
	if q.Kind != "" {
		f.kind = id(q.Kind)
	}
	if q.Domain != "" {
		f.domain = id(q.Domain)
	}
	if q.ExceptLabel != "" {
		if n, found := p.nameIDs[q.ExceptLabel]; found {
			f.notLabel = n
		}
	}
	for _, s := range q.SectionTypes {
		if n, found := p.nameIDs[s]; found {
			f.sectionTypes = append(f.sectionTypes, n)
		}
	}
	if len(q.SectionTypes) > 0 && len(f.sectionTypes) == 0 {
		ok = false
	}
	if q.Owners != nil {
		f.owners = slices.Clone(q.Owners) // not nil, even when empty
		slices.Sort(f.owners)
		ok = ok && len(f.owners) > 0
	}
	return f, ok
}

// admits reports whether entry i is live and passes f.
func (p *Part) admits(i int, f *entryFilter) bool {
	if p.dead[i] {
		return false
	}
	m := &p.meta[i]
	return m.user == f.user &&
		(f.label == anyName || m.label == f.label) &&
		(f.notLabel == anyName || m.label != f.notLabel) &&
		(f.kind == anyName || m.kind == f.kind) &&
		(f.domain == anyName || m.domain == f.domain) &&
		(f.sectionTypes == nil || slices.Contains(f.sectionTypes, m.sectionType)) &&
		(f.owners == nil || hasOwner(f.owners, p.owners[i]))
}

// filterKey is an entryFilter without owners, as admitted caches it.
type filterKey struct {
	user, label, notLabel, kind, domain int32
	sectionTypes                        string
}

// admitted returns the entries f admits as a bitmap (entry e is bit e%64
// of word e/64), nil when f admits every entry, so that a search need not
// look entries up (has holds nil true); it is kept for the part as it is
// unless f names owners, which vary from one search to the next. The
// caller holds p.mu.
func (p *Part) admitted(f *entryFilter) []uint64 {
	if f.owners != nil {
		return p.admittedBitmap(f)
	}
	key := filterKey{f.user, f.label, f.notLabel, f.kind, f.domain, fmt.Sprint(f.sectionTypes)}
	if b, ok := p.filters.get(key); ok {
		return b
	}
	b := p.admittedBitmap(f)
	p.filters.put(key, b)
	return b
}

// admittedBitmap computes what admitted returns.
func (p *Part) admittedBitmap(f *entryFilter) []uint64 {
	b := make([]uint64, (len(p.ids)+63)/64)
	n := 0
	for e := range p.ids {
		if p.admits(e, f) {
			b[e/64] |= 1 << (e % 64)
			n++
		}
	}
	if n == len(p.ids) {
		return nil
	}
	return b
}

// has reports whether bitmap b (nil for every entry) holds entry e.
func has(b []uint64, e int) bool { return b == nil || b[e/64]&(1<<(e%64)) != 0 }

// hasOwner reports whether the sorted owners hold owner.
func hasOwner(owners []int64, owner int64) bool {
	_, found := slices.BinarySearch(owners, owner)
	return found
}
