package papermem

import (
	"log/slog"
	"time"

	"github.com/papermem/papermem/internal/wordvec"
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultWorkspace      = "default"   // workspace of the Memory's own methods
	DefaultDim            = wordvec.Dim // dimensions of the offline embedder
	DefaultBudgetTokens   = 8000        // recall budget when none is given
	MaxBudgetTokens       = 200000      // largest recall budget accepted
	DefaultMaxIngestBytes = 25 << 20    // largest file IngestFile reads
	DefaultPassageTokens  = 200         // largest passage made from a section
	DefaultIndexMaxNodes  = 2_000_000   // nodes kept in the in-process search index (~1.6 KB each)
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

	// MaxIngestBytes caps the size of an ingested file. Zero means
	// DefaultMaxIngestBytes.
	MaxIngestBytes int64

	// IndexMaxNodes bounds the in-process search index: when the
	// workspaces loaded hold more nodes, those used least recently are
	// dropped and reloaded from SQLite when next searched. Zero means
	// DefaultIndexMaxNodes.
	IndexMaxNodes int

	// Payments takes the payments of paid plans (Checkout,
	// ConfirmCheckout); NewSignedOrders is the built-in provider. Nil means
	// paid plans cannot be bought: Checkout fails with EUPSTREAM.
	Payments PaymentProvider

	// Now returns the current time. Nil means time.Now.
	Now func() time.Time

	// Logger receives papermem's logs. Nil means slog.Default().
	Logger *slog.Logger
}
