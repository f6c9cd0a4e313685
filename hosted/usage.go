package hosted

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
)

// Usage metering: the memory reports the events it sees (a recall, a
// stored paper: papermem.Counters) to the service's meter, and the HTTP
// layer counts the requests it serves (Workspace.CountAPIRequest). Counts
// are kept in memory, so that metering adds no write to the calls it
// meters, and written to usage_counters in batches: every
// DefaultUsageFlushInterval, before every read of usage, and at Close.

// DefaultUsageFlushInterval is how often counted usage is written to the
// database. Reads of usage flush first, so they are always exact.
const DefaultUsageFlushInterval = 2 * time.Second

// usageKey names one counter of one workspace in one month.
type usageKey struct {
	workspace string
	month     int // year*100 + month
	counter   string
}

// meter accumulates counted usage in memory; Flush moves it to
// usage_counters in one transaction. It is the store.Meter the memory
// reports to.
type meter struct {
	s *Service

	mu      sync.Mutex
	pending map[usageKey]int64

	flushMu sync.Mutex // one flush at a time, so a read after Flush sees every earlier count

	stopOnce sync.Once
	stopped  chan struct{}
	done     chan struct{}
}

// Count adds n to a counter of workspace for the current month. It only
// touches memory.
func (u *meter) Count(workspace, counter string, n int64) {
	if n == 0 {
		return
	}
	k := usageKey{workspace: workspace, month: store.MonthOf(u.s.now()), counter: counter}
	u.mu.Lock()
	if u.pending == nil {
		u.pending = map[usageKey]int64{}
	}
	u.pending[k] += n
	u.mu.Unlock()
}

// start starts the periodic flush of counted usage.
func (u *meter) start(interval time.Duration) {
	u.stopped = make(chan struct{})
	u.done = make(chan struct{})
	log := u.s.shared.Log
	go func() {
		defer close(u.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		down := false // the database was unavailable at the last flush: logged once
		for {
			select {
			case <-u.stopped:
				return
			case <-t.C:
				err := u.Flush(context.Background())
				switch {
				case err == nil && down:
					down = false
					log.Info("flush usage: database available again")
				case papermem.ErrorCode(err) == papermem.EUNAVAILABLE && !down:
					down = true
					log.Warn("flush usage: database unavailable; counts kept until it answers", "err", err)
				case err != nil && papermem.ErrorCode(err) != papermem.EUNAVAILABLE:
					log.Error("flush usage", "err", err)
				}
			}
		}
	}()
}

// stop stops the periodic flush.
func (u *meter) stop() {
	u.stopOnce.Do(func() {
		close(u.stopped)
		<-u.done
	})
}

// Flush writes the counted usage to the database in one transaction.
// On failure the counts are kept for the next flush.
func (u *meter) Flush(ctx context.Context) error {
	u.flushMu.Lock()
	defer u.flushMu.Unlock()
	u.mu.Lock()
	batch := u.pending
	u.pending = nil
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := u.s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		counts := make([]store.UsageCount, 0, len(batch))
		for k, n := range batch {
			counts = append(counts, store.UsageCount{Org: k.workspace, Period: store.MonthName(k.month), Counter: k.counter, Value: n})
		}
		return store.AddUsage(ctx, tx, counts)
	})
	if err != nil {
		u.mu.Lock()
		if u.pending == nil {
			u.pending = map[usageKey]int64{}
		}
		for k, n := range batch {
			u.pending[k] += n
		}
		u.mu.Unlock()
		return fmt.Errorf("flush usage: %w", err)
	}
	return nil
}

// CountAPIRequest counts one API request against the workspace. It is
// cheap: the count is kept in memory and written in batches.
func (w *Workspace) CountAPIRequest() { w.s.usage.Count(w.id, papermem.CounterAPIRequests, 1) }

// Usage is a workspace's metered usage over one billing period.
type Usage = api.Usage

// Usage returns the workspace's usage over the current calendar month. It
// is exact: counts not yet written are flushed first.
func (w *Workspace) Usage(ctx context.Context) (_ *Usage, err error) {
	defer translate(&err)
	if err := w.s.usage.Flush(ctx); err != nil {
		return nil, err
	}
	now := w.s.now()
	c, err := store.ReadCounters(ctx, w.s.db, w.id, now, papermem.Counters)
	if err != nil {
		return nil, err
	}
	start, end := store.MonthSpan(now)
	return &Usage{WorkspaceID: w.id, PeriodStart: w.s.timestamp(start), PeriodEnd: w.s.timestamp(end), Counters: c}, nil
}

// usageTotal sums counter over every period of workspace.
func (s *Service) usageTotal(ctx context.Context, workspace, counter string) (int64, error) {
	n, err := store.UsageTotal(ctx, s.db, workspace, counter)
	if err != nil {
		return 0, fmt.Errorf("read usage: %w", err)
	}
	return n, nil
}

// MemoryStats is the size of a workspace's memory.
type MemoryStats = api.MemoryStats

func (w *Workspace) memoryStats(ctx context.Context) (MemoryStats, error) {
	r, err := store.MemoryStatsOf(ctx, w.s.db, w.id)
	s := MemoryStats{Nodes: r.Nodes, Papers: r.Papers, Documents: r.Documents, Analyses: r.Analyses, Memories: r.Memories, Bytes: r.Bytes}
	if err != nil {
		return s, fmt.Errorf("memory stats: %w", err)
	}
	return s, nil
}

// Analytics describes a workspace's memory and how it is used.
type Analytics = api.Analytics

// CacheStats measures how often paper fetches were answered from memory, over
// the workspace's whole history.
type CacheStats = api.CacheStats

// DomainCount is how many papers and documents carry a domain.
type DomainCount = api.DomainCount

// topDomains is how many domains Analytics reports.
const topDomains = 10

// Analytics returns the size of the workspace's memory, the cache
// efficiency of its paper fetches (as metered) and its largest domains.
func (w *Workspace) Analytics(ctx context.Context) (_ *Analytics, err error) {
	defer translate(&err)
	if err := w.s.usage.Flush(ctx); err != nil {
		return nil, err
	}
	a := &Analytics{WorkspaceID: w.id, TopDomains: []DomainCount{}}
	if a.Memory, err = w.memoryStats(ctx); err != nil {
		return nil, err
	}
	c := &a.Cache
	for _, f := range []struct {
		counter string
		dst     *int64
	}{{papermem.CounterFetchRequests, &c.Fetches}, {papermem.CounterFetchWarmHits, &c.WarmHits}, {store.CounterBytesSaved, &c.BytesSaved}} {
		if *f.dst, err = w.s.usageTotal(ctx, w.id, f.counter); err != nil {
			return nil, err
		}
	}
	if c.Fetches > 0 {
		c.HitRate = math.Round(float64(c.WarmHits)/float64(c.Fetches)*10000) / 10000
	}
	domains, err := store.TopDomains(ctx, w.s.db, w.id, topDomains)
	if err != nil {
		return nil, fmt.Errorf("top domains: %w", err)
	}
	for _, d := range domains {
		a.TopDomains = append(a.TopDomains, DomainCount{Domain: d.Domain, Count: d.Count})
	}
	return a, nil
}
