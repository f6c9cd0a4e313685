package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/papermem/papermem/api"
)

// Shared is an open database as the memory that opened it (package
// papermem) shares it with the hosted service built over it (package
// hosted), which keeps its records in the same database: the service's
// reads take the memory's read pool and its writes the memory's write
// queue, so that on SQLite they take their turns with the memory's own
// writes instead of fighting them for the file's one writer, and
// ":memory:" is one database for both. The memory makes it at Open and
// hands it out typed (papermem.Memory.Shared); the service meters the
// usage the memory reports through Meter. A *Shared is safe for
// concurrent use.
type Shared struct {
	DB      *DB              // the read pool and the write connection
	Path    string           // the database as opened: a file, ":memory:" or a postgres:// URL
	Timeout time.Duration    // the longest wait for PostgreSQL; 0 means no bound
	Now     func() time.Time // the memory's clock (papermem.Options.Now)
	Log     *slog.Logger     // the memory's logger
	Meter   MeterSlot        // where the memory reports the usage it sees

	writer   *Writer
	embedder string // the memory's embedder, whose vectors every workspace written holds
	dim      int
}

// NewShared returns the shared view of db, whose writes go through
// writer, for a memory whose embedder is embedder of dim dimensions.
func NewShared(db *DB, writer *Writer, path string, timeout time.Duration, now func() time.Time, log *slog.Logger, embedder string, dim int) *Shared {
	return &Shared{DB: db, Path: path, Timeout: timeout, Now: now, Log: log, writer: writer, embedder: embedder, dim: dim}
}

// Write runs fn in one write transaction, after the writes that arrived
// before it (Writer.Do), and returns its errors translated
// (TranslateWrite).
func (s *Shared) Write(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	return TranslateWrite(s.writer.Do(ctx, fn))
}

// EnsureWorkspace registers workspace within tx on its first write,
// recording the memory's embedder (EnsureWorkspace). Errors: EINVALID for a
// malformed id, EUNAVAILABLE when the workspace holds another embedder's
// vectors (a server opened with a reindex re-embedded them after this one
// opened), so that no write mixes two embedders' vectors.
func (s *Shared) EnsureWorkspace(ctx context.Context, tx *Tx, workspace string) error {
	if !api.ValidWorkspaceID(workspace) {
		return api.Errorf(api.EINVALID, "Invalid workspace id %q.", workspace)
	}
	err := EnsureWorkspace(ctx, tx, workspace, s.embedder, s.dim, Timestamp(s.Now()))
	var other *OtherEmbedderError
	if errors.As(err, &other) {
		return &api.Error{Code: api.EUNAVAILABLE, Err: err, Message: fmt.Sprintf(
			"Workspace %q holds vectors of embedder %s (%d dimensions), not of this server's %s (%d); nothing was stored. Retry on a server that runs %s; this one needs a restart with it.",
			workspace, other.Embedder, other.Dim, s.embedder, s.dim, other.Embedder)}
	}
	return err
}

// SetPlan moves workspace to the plan of slug within tx, registering the
// workspace when needed (EnsureWorkspace).
func (s *Shared) SetPlan(ctx context.Context, tx *Tx, workspace, slug string) error {
	if err := s.EnsureWorkspace(ctx, tx, workspace); err != nil {
		return err
	}
	if err := SetPlan(ctx, tx, workspace, slug); err != nil {
		return fmt.Errorf("set plan: %w", err)
	}
	return nil
}

// Meter counts the usage a memory reports.
type Meter interface {
	// Count adds n to the counter of workspace in the current period. It
	// is called on the memory's calls as they return: it must be cheap
	// and must not wait for the database.
	Count(workspace, counter string, n int64)
	// Flush writes what was counted and not yet written.
	Flush(ctx context.Context) error
}

// MeterSlot holds the one Meter a memory reports to. The zero MeterSlot
// is empty: reports go nowhere and Flush has nothing to write. An atomic
// pointer, so that a report costs a memory without a meter one load.
type MeterSlot struct{ p atomic.Pointer[meterRef] }

type meterRef struct{ m Meter }

// Attach makes m the slot's meter. It reports false, changing nothing,
// when the slot holds a meter already.
func (s *MeterSlot) Attach(m Meter) bool { return s.p.CompareAndSwap(nil, &meterRef{m}) }

// Detach empties the slot if it holds m.
func (s *MeterSlot) Detach(m Meter) {
	if r := s.p.Load(); r != nil && r.m == m {
		s.p.CompareAndSwap(r, nil)
	}
}

// Count reports n of counter for workspace to the meter, if any.
func (s *MeterSlot) Count(workspace, counter string, n int64) {
	if r := s.p.Load(); r != nil {
		r.m.Count(workspace, counter, n)
	}
}

// Flush has the meter, if any, write what it counted.
func (s *MeterSlot) Flush(ctx context.Context) error {
	if r := s.p.Load(); r != nil {
		return r.m.Flush(ctx)
	}
	return nil
}
