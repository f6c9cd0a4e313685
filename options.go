package papermem

import (
	"log/slog"
	"time"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/wordvec"
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultWorkspace      = "default"           // workspace of the Memory's own methods
	DefaultDim            = wordvec.Dim         // dimensions of the offline embedder
	DefaultBudgetTokens   = 8000                // recall budget when none is given
	MaxBudgetTokens       = api.MaxBudgetTokens // largest recall budget accepted
	MaxRecallDOIs         = 100                 // most DOIs a recall may be scoped to (RecallRequest.DOIs)
	DefaultMaxIngestBytes = 25 << 20            // largest file IngestFile reads
	DefaultPassageTokens  = 200                 // largest passage made from a section
	DefaultIndexMaxBytes  = 1 << 30             // memory of the in-process search index over all workspaces
	DefaultSync           = SyncNormal          // durability of a commit (see Options.Sync)
	DefaultWriteQueue     = 1024                // writes that may wait for their turn at once
	DefaultWriteWait      = 10 * time.Second
	DefaultDBTimeout      = 3 * time.Second // longest wait for PostgreSQL (see Options.DBTimeout)
)

// Values of Options.Sync.
const (
	// SyncNormal (PRAGMA synchronous=NORMAL with the WAL): a commit
	// survives a crash of the process; the last commits before a power
	// loss or an operating-system crash may be lost, the database stays
	// consistent. A commit writes the WAL without waiting for the disk.
	SyncNormal = store.SyncNormal
	// SyncFull (synchronous=FULL): every commit waits until the WAL is on
	// the disk, so it survives power loss too.
	SyncFull = store.SyncFull
)

// Options configure Open. A nil *Options means all defaults.
type Options struct {
	// Embedder turns text into vectors. Nil means the offline embedder
	// of DefaultDim dimensions (NewOfflineEmbedder).
	Embedder Embedder

	// Reindex, when the database was indexed with another embedder,
	// re-embeds every node with Embedder during Open. False means Open
	// refuses such a database with ECONFLICT.
	Reindex bool

	// Workspace is the id of the workspace that Memory's own methods use.
	// Empty means DefaultWorkspace.
	Workspace string

	// Fetcher downloads a paper's full text from its source_url for
	// FetchPaper. Nil means origin downloads fail with EUPSTREAM.
	Fetcher Fetcher

	// Origins, when not nil, lets papermem look papers up at Crossref,
	// Unpaywall, OpenAlex and arXiv: a title's DOI, a DOI's metadata and
	// retractions, open-access full texts (StorePaper, FetchPaper). Nil
	// means no origin is asked: everything works offline.
	Origins *OriginOptions

	// Zotero configures the Zotero imports (StartImport). Nil means the
	// public web API and the local API at their usual addresses.
	Zotero *ZoteroOptions

	// MaxIngestBytes caps the size of an ingested file. Zero means
	// DefaultMaxIngestBytes.
	MaxIngestBytes int64

	// IndexMaxBytes bounds the memory of the in-process search index:
	// when the workspaces loaded take more, those used least recently are
	// dropped and loaded again (from IndexDir, else from the database)
	// when next searched. The vectors of a persisted index are on disk and
	// do not count. Zero means DefaultIndexMaxBytes.
	IndexMaxBytes int64

	// IndexDir is where the search index keeps its files between runs, so
	// that a restart reads them instead of every node: a directory one
	// process owns at a time (another one keeps its index in memory only).
	// Empty means the database file's path with "-index" appended, and no
	// directory for ":memory:" or PostgreSQL; "off" means none.
	IndexDir string

	// Now returns the current time. Nil means time.Now.
	Now func() time.Time

	// Logger receives papermem's logs. Nil means slog.Default().
	Logger *slog.Logger

	// Sync is how durable a commit is: SyncNormal or SyncFull. Empty means
	// DefaultSync; any other value fails Open with EINVALID. On PostgreSQL
	// SyncFull sets synchronous_commit=on for papermem's writes and
	// SyncNormal leaves the server's own setting.
	Sync string

	// WriteQueue is how many writes may wait for their turn at once (writes
	// run one at a time, in arrival order); one more fails at once with
	// EUNAVAILABLE. Zero means DefaultWriteQueue.
	WriteQueue int

	// DBTimeout is, on PostgreSQL, the longest papermem waits for the
	// database at a time: to make a connection (to each host of a
	// multi-host URL in turn, unless the URL sets connect_timeout), and
	// for the server's answer once a statement is sent (a connection on
	// which the server has sent nothing for that long is closed; a long
	// result that keeps coming is not cut). A stalled server, or one
	// unreachable without refusing, so fails a call with EUNAVAILABLE
	// instead of holding it until the server is back: within three times
	// DBTimeout at most (one wait for an answer, one for a connection, and
	// a write's wait for the write in progress), and at once while no
	// connection is tried (for DBTimeout after the server last failed to
	// answer in time). The migration at Open waits as long as Open's ctx
	// allows. A statement that waits
	// this long for a lock fails so too, before the write connection's
	// 10 s lock_timeout. Zero means DefaultDBTimeout; negative means no
	// bound. SQLite ignores it.
	DBTimeout time.Duration

	// Observer, when not nil, is told of recalls and their stages, writes,
	// ingests and origin requests, for metrics and traces. Nil means none.
	Observer Observer

	// WriteWait is the longest a write waits for its turn before failing
	// with EUNAVAILABLE (its context's deadline also ends the wait). Zero
	// means DefaultWriteWait.
	WriteWait time.Duration
}
