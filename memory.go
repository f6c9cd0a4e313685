package papermem

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/recall"
	"github.com/papermem/papermem/internal/store"
)

// Memory is a papermem database: the memory of every workspace stored in
// one SQLite file, or in one PostgreSQL database that several servers may
// share. Its own recall and storage methods act on the default
// workspace (Options.Workspace); Workspace returns a handle for any other.
// A *Memory is safe for concurrent use.
type Memory struct {
	ws *Workspace // the default workspace, which Memory's own methods act on (memory_methods.go)

	db             *store.Reader // the read pool: reads never wait behind writes
	database       *store.DB     // the read pool and the write connection
	writer         *store.Writer // every write transaction, in arrival order
	path           string
	sync           string // Options.Sync
	embedder       Embedder
	index          *nodeindex.Index
	fetcher        Fetcher
	origins        *origins // nil: no origin is asked (origins.go)
	maxIngestBytes int64
	dbTimeout      time.Duration // Options.DBTimeout resolved: 0 means no bound
	now            func() time.Time
	log            *slog.Logger
	recall         *recall.Engine // every recall (internal/recall)
	shared         *store.Shared  // the database as a hosted service over the memory shares it, and its meter (Shared)
	observer       Observer       // Options.Observer: nil for none (observe.go)
	jobs           *jobs          // the background jobs' worker, nil when there is no kind to run (jobs.go)
	zotero         ZoteroOptions  // Options.Zotero, or the zero value
	runs           *importRuns    // imports running in the background (imports.go)
}

// Workspace is one workspace's memory: everything it stores or recalls is
// scoped to its id. A *Workspace is safe for concurrent use.
type Workspace struct {
	m  *Memory
	id string
}

// ValidWorkspaceID reports whether id is a well-formed workspace id: 3 to 64
// characters of lower-case letters, digits, '_' and '-', starting with a
// letter or digit.
func ValidWorkspaceID(id string) bool { return api.ValidWorkspaceID(id) }

// Open opens the database at path, creating it (and its directory) when
// missing, and migrates it. Path ":memory:" keeps everything in memory; a
// postgres:// or postgresql:// URL opens that PostgreSQL database (its
// search_path parameter picks the schema), which papermem shares with any
// other server opened on it.
// Opening a database indexed with another embedder fails with ECONFLICT
// unless opts.Reindex is set.
func Open(ctx context.Context, path string, opts *Options) (_ *Memory, err error) {
	defer translate(&err)
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Embedder == nil {
		o.Embedder = NewOfflineEmbedder()
	}
	if o.Workspace == "" {
		o.Workspace = DefaultWorkspace
	}
	if !ValidWorkspaceID(o.Workspace) {
		return nil, Errorf(EINVALID, "Invalid workspace id %q.", o.Workspace)
	}
	if o.MaxIngestBytes <= 0 {
		o.MaxIngestBytes = DefaultMaxIngestBytes
	}
	if o.IndexMaxBytes <= 0 {
		o.IndexMaxBytes = DefaultIndexMaxBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	dim := o.Embedder.Dim()
	if dim <= 0 || dim%8 != 0 {
		return nil, Errorf(EINVALID, "Embedder %s has %d dimensions; papermem needs a positive multiple of 8.", o.Embedder.Name(), dim)
	}
	if o.Sync == "" {
		o.Sync = DefaultSync
	}
	if o.Sync != SyncNormal && o.Sync != SyncFull {
		return nil, Errorf(EINVALID, "Sync must be %q or %q, not %q.", SyncNormal, SyncFull, o.Sync)
	}
	if o.WriteQueue <= 0 {
		o.WriteQueue = DefaultWriteQueue
	}
	if o.WriteWait <= 0 {
		o.WriteWait = DefaultWriteWait
	}
	if o.DBTimeout == 0 {
		o.DBTimeout = DefaultDBTimeout
	}
	files, err := store.OpenTimeout(ctx, path, o.Sync, max(o.DBTimeout, 0))
	if err != nil {
		return nil, err
	}
	index, err := nodeindex.New(files.Read, nodeindex.Config{Dim: dim, Embedder: o.Embedder.Name(), MaxBytes: o.IndexMaxBytes, Dir: indexDir(path, files.Engine, o.IndexDir),
		Coarse: denseFrom(o.Embedder), Logger: o.Logger, TitleLabel: LabelPaper, TitledKind: KindPaper})
	if err != nil {
		files.Close()
		return nil, Errorf(EINVALID, "The search index directory cannot be used: %v.", err)
	}
	m := &Memory{
		db:             files.Reader(),
		database:       files,
		writer:         store.NewWriter(files, o.WriteQueue, writeBatch, o.WriteWait),
		path:           path,
		sync:           o.Sync,
		embedder:       o.Embedder,
		index:          index,
		fetcher:        o.Fetcher,
		maxIngestBytes: o.MaxIngestBytes,
		dbTimeout:      max(o.DBTimeout, 0),
		now:            o.Now,
		log:            o.Logger,
		observer:       o.Observer,
		runs:           newImportRuns(),
	}
	if o.Zotero != nil {
		m.zotero = *o.Zotero
	}
	m.shared = store.NewShared(files, m.writer, path, m.dbTimeout, o.Now, o.Logger, o.Embedder.Name(), dim)
	m.ws = &Workspace{m: m, id: o.Workspace}
	weighted, _ := o.Embedder.(recall.WeightedEmbedder)
	rc := recall.Config{Index: m.index, Store: m.db, Embed: m.embed, Weighted: weighted}
	if m.observer != nil {
		rc.Stage = m.recallStage
	}
	m.recall = recall.New(rc)
	m.origins = newOrigins(m, o.Origins, o.MaxIngestBytes)
	if err := m.checkEmbedder(ctx, o.Reindex); err != nil {
		m.writer.Close()
		index.Close()
		files.Close()
		return nil, err
	}
	m.startJobs()
	return m, nil
}

// indexDir is the directory of the search index's files (Options.IndexDir)
// for the database at path.
func indexDir(path string, engine store.Engine, dir string) string {
	switch {
	case dir == "off":
		return ""
	case dir != "":
		return dir
	case path == store.Memory || engine != store.SQLite:
		return ""
	}
	return path + "-index"
}

// Close runs the writes already queued (and writes the usage a hosted
// service over the memory counted and has not written yet: package hosted)
// and closes the database, checkpointing its WAL into the database file
// (no -wal file is left to recover). In-flight calls must have returned.
func (m *Memory) Close() (err error) {
	defer translate(&err)
	m.runs.close() // the imports running record that they stopped
	m.jobs.stop()
	err = m.shared.Meter.Flush(context.Background())
	m.writer.Close()
	return errors.Join(err, m.index.Close(), m.database.Close())
}

// StorageMode is "memory" for an in-memory database, "postgres" for a
// PostgreSQL database and "sqlite" for a SQLite file.
func (m *Memory) StorageMode() string {
	if m.path == store.Memory {
		return "memory"
	}
	return string(m.database.Engine)
}

// Ping checks that the database answers.
func (m *Memory) Ping(ctx context.Context) (err error) {
	defer translate(&err)
	return store.Ping(ctx, m.db)
}

// Workspace returns the handle of workspace id. The id is not checked here;
// writes through a handle with an invalid id fail with EINVALID.
func (m *Memory) Workspace(id string) *Workspace {
	if id == m.ws.id {
		return m.ws
	}
	return &Workspace{m: m, id: id}
}

// ID returns the workspace id.
func (w *Workspace) ID() string { return w.id }

// timestamp formats t as papermem stores times (store.Timestamp): RFC
// 3339 in UTC, to the millisecond, so that text order is time order.
func timestamp(t time.Time) string { return store.Timestamp(t) }

// nowString is the current time as stored.
func (m *Memory) nowString() string { return timestamp(m.now()) }

// writeBatch is the most writes that share one commit. Measured with
// BenchmarkWriter (internal/store): see README, Configuration.
const writeBatch = 64

// write runs fn in one write transaction, after the writes that arrived
// before it: begin, fn, commit, or roll back on any error. fn gets a
// context without ctx's cancellation (a write that has begun runs to its
// end), so the heavy work of a write (extraction, chunking, embedding)
// belongs before the call. Errors: fn's, EUNAVAILABLE when the queue is
// full or ctx ends (or Options.WriteWait passes) before fn's turn or the
// database cannot be used for now (nothing was stored; or, when the
// connection broke during the commit, the write may have been stored and
// is not run again: the caller checks before retrying), ENOSPACE when the
// disk or database is full. fn may run twice, the first run rolled
// back (a deadlock's victim on PostgreSQL, store.Writer): it sets what it
// hands out rather than adding to it.
func (m *Memory) write(ctx context.Context, fn func(ctx context.Context, tx *store.Tx) error) error {
	ctx, end := m.observe(ctx, OpWrite, "")
	err := m.shared.Write(ctx, fn)
	end(0, err)
	return err
}

// ensureWorkspace registers workspace w on first write, recording the
// embedder its vectors come from, and fails with EUNAVAILABLE when they
// come from another (a server opened with Options.Reindex re-embedded them
// after this one opened), so that no write mixes two embedders' vectors. On PostgreSQL it also locks the
// workspace's row until the transaction ends (ON CONFLICT DO UPDATE locks
// the row it meets even when its WHERE leaves the row as it is): the writes
// that begin with it take turns per workspace across servers, as every
// write takes turns on SQLite. Two things rely on it: a write that reads
// before it writes (UpdateAccount merges the stored account; DeletePaper
// and Forget delete the nodes of the row they read) sees the writes
// committed before its own, and node ids of a workspace are taken
// in commit order, so that the node index of every server, which loads new
// nodes by id (internal/nodeindex), misses none.
func (w *Workspace) ensureWorkspace(ctx context.Context, tx *store.Tx) error {
	return w.m.shared.EnsureWorkspace(ctx, tx, w.id)
}

// Shared returns the memory's database as the hosted service built over
// the memory shares it (package hosted): its read pool and write queue, its
// clock and logger, and the slot of the meter the memory reports its usage
// to (usage.go). Its type is internal to papermem's module: the service,
// not a program embedding the memory, uses it. See docs/design.md, Layout.
func (m *Memory) Shared() *store.Shared { return m.shared }
