// Package hostlink links a papermem.Memory to package hosted, the hosted
// service's machinery built over it. The service shares the memory's
// database: its reads take the memory's read pool and its writes the
// memory's write queue, so that on SQLite they take their turns with the
// memory's own writes instead of fighting them for the file's one writer,
// and ":memory:" is one database for both. It meters the usage the memory
// reports. None of that belongs in papermem's exported API, which is the
// memory a Go program embeds; so the root package fills a Memory with it
// (Register, at init) and package hosted reads it (Of). Nothing else
// should.
//
// The package also holds what both sides read of usage: the usage period
// and the stored counters.
package hostlink

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/papermem/papermem/internal/store"
)

// Memory is what package hosted uses of a *papermem.Memory beyond its
// exported methods.
type Memory struct {
	DB        *sql.DB       // the read pool: reads never wait behind writes
	Path      string        // the database as Open was given it: a file, ":memory:" or a postgres:// URL
	DBTimeout time.Duration // Options.DBTimeout resolved: the longest wait for PostgreSQL; 0 means no bound
	Now       func() time.Time
	Log       *slog.Logger

	// Timestamp formats a time as papermem stores times.
	Timestamp func(time.Time) string
	// Write runs fn in one write transaction, in the memory's write queue,
	// and returns its errors as the memory's writes do (EUNAVAILABLE,
	// ENOSPACE, …).
	Write func(ctx context.Context, fn func(ctx context.Context, tx *store.Tx) error) error
	// WriteError translates the error of a write made outside the queue as
	// Write translates its own.
	WriteError func(error) error
	// DBError translates a database error: no rows is ENOTFOUND with the
	// message notFound, a uniqueness failure ECONFLICT; others pass.
	DBError func(err error, notFound string) error
	// EnsureWorkspace registers workspace org within tx on its first write,
	// as every write of the memory does (EINVALID for a malformed id,
	// EUNAVAILABLE when the workspace holds another embedder's vectors).
	EnsureWorkspace func(ctx context.Context, tx *store.Tx, org string) error
	// Meter is where the memory reports the usage it sees.
	Meter *MeterSlot
}

var link func(any) *Memory

// Register sets the function that links a *papermem.Memory. Package
// papermem calls it at init.
func Register(f func(m any) *Memory) { link = f }

// Of returns the link of m, a *papermem.Memory.
func Of(m any) *Memory { return link(m) }

// Meter counts the usage a Memory reports.
type Meter interface {
	// Count adds n to the counter of workspace org in the current period.
	// It is called on the memory's calls as they return: it must be cheap
	// and must not wait for the database.
	Count(org, counter string, n int64)
	// Flush writes what was counted and not yet written.
	Flush(ctx context.Context) error
}

// MeterSlot holds the one Meter a Memory reports to. The zero MeterSlot
// is empty: reports go nowhere and Flush has nothing to write.
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

// Count reports n of counter for workspace org to the meter, if any.
func (s *MeterSlot) Count(org, counter string, n int64) {
	if r := s.p.Load(); r != nil {
		r.m.Count(org, counter, n)
	}
}

// Flush has the meter, if any, write what it counted.
func (s *MeterSlot) Flush(ctx context.Context) error {
	if r := s.p.Load(); r != nil {
		return r.m.Flush(ctx)
	}
	return nil
}

// CounterBytesSaved sums the bytes warm fetches did not download. The
// memory reports it and the hosted service's analytics read it; it is not
// one of the reported papermem.Counters.
const CounterBytesSaved = "fetch_bytes_saved"

// MonthOf is the usage period of t, a calendar month in UTC, as
// year*100 + month.
func MonthOf(t time.Time) int {
	t = t.UTC()
	return t.Year()*100 + int(t.Month())
}

// MonthName names a usage period as usage_counters stores it: "2026-03".
func MonthName(month int) string { return fmt.Sprintf("%04d-%02d", month/100, month%100) }

// MonthSpan returns the first instant of the usage period of t and the
// first instant of the next.
func MonthSpan(t time.Time) (start, end time.Time) {
	t = t.UTC()
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

// ReadCounters reads the stored counters names of workspace org ("" sums
// every workspace) in the usage period of t, each present, zero when
// never counted.
func ReadCounters(ctx context.Context, q store.Querier, org string, t time.Time, names []string) (map[string]int64, error) {
	c := make(map[string]int64, len(names))
	for _, name := range names {
		c[name] = 0
	}
	stored, err := store.UsageCounters(ctx, q, org, MonthName(MonthOf(t)))
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	for name, n := range stored {
		if _, ok := c[name]; ok {
			c[name] = n
		}
	}
	return c, nil
}
