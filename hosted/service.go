package hosted

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/store"
)

// Options configure New. A nil *Options means all defaults.
type Options struct {
	// Payments takes the payments of paid plans (Workspace.Checkout,
	// Workspace.ConfirmCheckout); NewSignedOrders is the built-in provider.
	// Nil means paid plans cannot be bought: Checkout fails with EUPSTREAM.
	Payments PaymentProvider
}

// Service is the hosted service over one Memory: accounts and their
// sessions, API keys, checkouts, usage metering and rate limits, and the
// founder console, kept in the memory's database. Its own methods act
// across workspaces; Workspace returns the handle of one. A *Service is
// safe for concurrent use.
type Service struct {
	m        *papermem.Memory
	shared   *store.Shared // the memory's database, shared (papermem.Memory.Shared)
	db       *sql.DB       // the memory's read pool
	payments PaymentProvider

	usage      *meter           // metered usage not yet written (usage.go)
	keys       keyCache         // API keys verified, for the current credential generation (auth.go)
	sessions   credCache[*User] // the users of session tokens verified, by token id (authsession.go)
	ratePruned atomic.Int64     // when TakeRequest last pruned full rate buckets, Unix ns (ratelimit.go)
	buckets    *sql.DB          // PostgreSQL: the rate buckets' own pool (ratelimit.go); nil on SQLite

	closeOnce sync.Once
	closeErr  error
}

// New returns the hosted service over m, which must stay open until the
// service is closed. It starts the periodic write of metered usage and, on
// PostgreSQL, opens the rate buckets' pool (its connections are made when
// first needed). A Memory serves one Service at a time: the memory reports
// its usage to it. Errors: ECONFLICT (m serves another Service, not yet
// closed), and those of opening the pool.
func New(m *papermem.Memory, opts *Options) (_ *Service, err error) {
	defer translate(&err)
	var o Options
	if opts != nil {
		o = *opts
	}
	sh := m.Shared()
	buckets, err := store.OpenBuckets(sh.Path, sh.Timeout)
	if err != nil {
		return nil, err
	}
	s := &Service{m: m, shared: sh, db: sh.DB.Read, payments: o.Payments, buckets: buckets}
	s.usage = &meter{s: s}
	if !sh.Meter.Attach(s.usage) {
		if buckets != nil {
			buckets.Close()
		}
		return nil, papermem.Errorf(papermem.ECONFLICT, "This memory serves another hosted service; close that one first.")
	}
	s.usage.start(DefaultUsageFlushInterval)
	return s, nil
}

// Close stops the periodic write of metered usage, writes what is left,
// stops metering the memory and closes the rate buckets' pool. The memory
// stays open: close it after the service. In-flight calls must have
// returned. Closing twice returns the first Close's error.
func (s *Service) Close() (err error) {
	defer translate(&err)
	s.closeOnce.Do(func() {
		s.usage.stop()
		s.shared.Meter.Detach(s.usage)
		err := s.usage.Flush(context.Background())
		if s.buckets != nil {
			err = errors.Join(err, s.buckets.Close())
		}
		s.closeErr = err
	})
	return s.closeErr
}

// Memory returns the memory the service is built over.
func (s *Service) Memory() *papermem.Memory { return s.m }

// Workspace is the hosted service's handle on one workspace. A *Workspace
// is safe for concurrent use.
type Workspace struct {
	s  *Service
	id string
}

// Workspace returns the handle of workspace id. The id is not checked
// here; writes through a handle with an invalid id fail with EINVALID.
func (s *Service) Workspace(id string) *Workspace { return &Workspace{s: s, id: id} }

// ID returns the workspace id.
func (w *Workspace) ID() string { return w.id }

// memory is the memory's handle on the same workspace.
func (w *Workspace) memory() *papermem.Workspace { return w.s.m.Workspace(w.id) }

// write runs fn in one write transaction of the memory's write queue.
func (s *Service) write(ctx context.Context, fn func(ctx context.Context, tx *store.Tx) error) error {
	return s.shared.Write(ctx, fn)
}

// execWrite runs exec, one statement, as a write and returns the number of
// rows it changed.
func (s *Service) execWrite(ctx context.Context, exec func(ctx context.Context, tx *store.Tx) (int64, error)) (int64, error) {
	var n int64
	err := s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		var err error
		n, err = exec(ctx, tx)
		return err
	})
	return n, err
}

// now is the memory's clock (papermem.Options.Now).
func (s *Service) now() time.Time { return s.shared.Now() }

// nowString is the current time as stored.
func (s *Service) nowString() string { return store.Timestamp(s.shared.Now()) }

// timestamp formats t as papermem stores times.
func (s *Service) timestamp(t time.Time) string { return store.Timestamp(t) }

// dbError translates database errors as the memory does (store.Translate):
// no rows becomes ENOTFOUND with the given message, a uniqueness failure
// ECONFLICT, an outage EUNAVAILABLE.
func (s *Service) dbError(err error, notFound string) error { return store.Translate(err, notFound) }

// ensureWorkspace registers workspace within tx on its first write.
func (s *Service) ensureWorkspace(ctx context.Context, tx *store.Tx, workspace string) error {
	return s.shared.EnsureWorkspace(ctx, tx, workspace)
}

// mustExist fails with ENOTFOUND unless workspace is registered.
func mustExist(ctx context.Context, tx *store.Tx, workspace string) error {
	ok, err := store.WorkspaceExists(ctx, tx, workspace)
	if err != nil {
		return err
	}
	if !ok {
		return papermem.Errorf(papermem.ENOTFOUND, "Workspace %q does not exist.", workspace)
	}
	return nil
}

// translate turns an error of the store that reached an exported method
// untranslated into the contract's (store.Translate), as the memory's
// methods do: every exported method that can fail defers it.
func translate(err *error) { *err = store.Translate(*err, "Not found.") }
