package papermem

import (
	"context"
	"errors"
	"fmt"

	"github.com/papermem/papermem/internal/hashembed"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/wordvec"
)

// Embedder turns texts into vectors for semantic recall.
type Embedder interface {
	// Name identifies the model; it is recorded per workspace so that
	// vectors of different models are never mixed.
	Name() string
	// Dim is the length of every vector Embed returns.
	Dim() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// NewOfflineEmbedder returns the default embedder, of DefaultDim
// dimensions: words and character n-grams hashed as NewHashEmbedder hashes
// them (512 dimensions), which match words by their spelling, next to an
// average of static GloVe word vectors (100), which relates words of
// similar meaning. It is deterministic and needs neither a model server
// nor a network.
func NewOfflineEmbedder() Embedder { return wordvec.New() }

// NewHashEmbedder returns an embedder of hashed features alone: words and
// character n-grams hashed into dim dimensions (a multiple of 8). It is
// deterministic and needs neither a model nor a network.
func NewHashEmbedder(dim int) Embedder { return hashembed.New(dim) }

// denseFrom returns the first of the dimensions that e fills for every
// text, which the search index compares first (the offline embedder's
// word vectors), or 0: any other embedder's are taken to be dense.
func denseFrom(e Embedder) int {
	if d, ok := e.(interface{ DenseFrom() int }); ok {
		return d.DenseFrom()
	}
	return 0
}

// checkEmbedder makes sure no workspace was indexed with another embedder;
// with reindex it re-embeds every node instead of refusing.
func (m *Memory) checkEmbedder(ctx context.Context, reindex bool) error {
	workspace, name, dim, err := store.OtherEmbedder(ctx, m.db, m.embedder.Name(), m.embedder.Dim())
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check embedder: %w", err)
	}
	if !reindex {
		return Errorf(ECONFLICT, "Workspace %q was indexed with embedder %s (%d dimensions), not %s (%d); open with that embedder or with Options.Reindex.",
			workspace, name, dim, m.embedder.Name(), m.embedder.Dim())
	}
	return m.reindex(ctx)
}

// part returns workspace's part of the node index. Errors:
// EUNAVAILABLE when the database holds vectors of another dimension than
// this embedder's (a server opened with Options.Reindex re-embedded them
// after this one opened).
func (m *Memory) part(ctx context.Context, workspace string) (*nodeindex.Part, error) {
	p, err := m.index.Part(ctx, workspace)
	if err != nil {
		return nil, m.indexError(workspace, err)
	}
	return p, nil
}

// indexError translates the node index's refusal of workspace's part
// (nodeindex.ErrOtherEmbedder) into EUNAVAILABLE; other errors are
// returned as they are.
func (m *Memory) indexError(workspace string, err error) error {
	if errors.Is(err, nodeindex.ErrOtherEmbedder) {
		return &Error{Code: EUNAVAILABLE, Err: err, Message: fmt.Sprintf(
			"Workspace %q holds vectors of another embedder than this server's %s (%d dimensions). Retry on a server that runs that embedder; this one needs a restart with it.",
			workspace, m.embedder.Name(), m.embedder.Dim())}
	}
	return err
}

// reindex re-embeds every node of every workspace with the current embedder,
// in one transaction.
func (m *Memory) reindex(ctx context.Context) error {
	m.log.Info("reindexing vectors", "embedder", m.embedder.Name(), "dim", m.embedder.Dim())
	return m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return tx.Reembed(ctx, m.embedder.Name(), m.embedder.Dim(), func(texts []string) ([][]float32, error) {
			return m.embed(ctx, texts)
		})
	})
}

// embed embeds texts and L2-normalises the vectors, checking their length.
func (m *Memory) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vs, err := m.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, &Error{Code: EUPSTREAM, Message: "The embedder failed.", Err: err}
	}
	if len(vs) != len(texts) {
		return nil, Errorf(EUPSTREAM, "The embedder returned %d vectors for %d texts.", len(vs), len(texts))
	}
	for _, v := range vs {
		if len(v) != m.embedder.Dim() {
			return nil, Errorf(EUPSTREAM, "The embedder returned a vector of %d dimensions, not %d.", len(v), m.embedder.Dim())
		}
		nodeindex.Normalize(v)
	}
	return vs, nil
}
