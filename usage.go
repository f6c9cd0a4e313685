package papermem

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/papermem/papermem/internal/store"
)

// Usage counters: the metered events of a workspace, summed per calendar
// month (UTC, by Options.Now).
const (
	CounterAPIRequests       = "api_requests"       // authenticated HTTP requests (counted by the server)
	CounterRecallRequests    = "recall_requests"    // Recall and RecallUser calls
	CounterRecallTokens      = "recall_tokens"      // tokens returned by those calls
	CounterPapersStored      = "papers_stored"      // StorePaper calls, paper files ingested, origin fetches
	CounterDocumentsIngested = "documents_ingested" // files ingested as documents
	CounterBytesIngested     = "bytes_ingested"     // bytes of paper text and ingested files
	CounterFetchRequests     = "fetch_requests"     // successful FetchPaper calls
	CounterFetchWarmHits     = "fetch_warm_hits"    // of which answered from memory
	CounterUserMemories      = "user_memories"      // Remember calls
)

// Counters lists the usage counters in the order they are reported.
var Counters = []string{
	CounterAPIRequests, CounterRecallRequests, CounterRecallTokens, CounterPapersStored,
	CounterDocumentsIngested, CounterBytesIngested, CounterFetchRequests, CounterFetchWarmHits,
	CounterUserMemories,
}

// counterBytesSaved sums the bytes warm fetches did not download. It feeds
// analytics and is not one of the reported Counters.
const counterBytesSaved = "fetch_bytes_saved"

// DefaultUsageFlushInterval is how often counted usage is written to the
// database. Reads of usage flush first, so they are always exact.
const DefaultUsageFlushInterval = 2 * time.Second

// usageKey names one counter of one workspace in one month.
type usageKey struct {
	org     string
	month   int // year*100 + month
	counter string
}

// usageBuffer accumulates counted usage in memory so that metering adds no
// write to the calls it meters; flush moves it to usage_counters in one
// transaction.
type usageBuffer struct {
	mu      sync.Mutex
	pending map[usageKey]int64

	flushMu sync.Mutex // one flush at a time, so a read after flush sees every earlier count

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// monthOf is the usage period of t.
func monthOf(t time.Time) int {
	t = t.UTC()
	return t.Year()*100 + int(t.Month())
}

func periodName(month int) string { return fmt.Sprintf("%04d-%02d", month/100, month%100) }

// Period is a billing period: a calendar month in UTC.
type Period struct {
	Start time.Time // first instant of the month
	End   time.Time // first instant of the next month
}

// currentPeriod is the calendar month of Options.Now.
func (m *Memory) currentPeriod() Period {
	t := m.now().UTC()
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return Period{Start: start, End: start.AddDate(0, 1, 0)}
}

// count adds n to a counter of workspace org for the current month. It only
// touches memory.
func (m *Memory) count(org, counter string, n int64) {
	if n == 0 {
		return
	}
	k := usageKey{org: org, month: monthOf(m.now()), counter: counter}
	u := &m.usage
	u.mu.Lock()
	if u.pending == nil {
		u.pending = map[usageKey]int64{}
	}
	u.pending[k] += n
	u.mu.Unlock()
}

// startUsage starts the periodic flush of counted usage.
func (m *Memory) startUsage(interval time.Duration) {
	u := &m.usage
	u.stop = make(chan struct{})
	u.done = make(chan struct{})
	go func() {
		defer close(u.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		down := false // the database was unavailable at the last flush: logged once
		for {
			select {
			case <-u.stop:
				return
			case <-t.C:
				err := m.flushUsage(context.Background())
				switch {
				case err == nil && down:
					down = false
					m.log.Info("flush usage: database available again")
				case ErrorCode(err) == EUNAVAILABLE && !down:
					down = true
					m.log.Warn("flush usage: database unavailable; counts kept until it answers", "err", err)
				case err != nil && ErrorCode(err) != EUNAVAILABLE:
					m.log.Error("flush usage", "err", err)
				}
			}
		}
	}()
}

// stopUsage stops the periodic flush and writes what is left.
func (m *Memory) stopUsage() error {
	u := &m.usage
	u.stopOnce.Do(func() {
		close(u.stop)
		<-u.done
	})
	return m.flushUsage(context.Background())
}

// flushUsage writes the counted usage to the database in one transaction.
// On failure the counts are kept for the next flush.
func (m *Memory) flushUsage(ctx context.Context) error {
	u := &m.usage
	u.flushMu.Lock()
	defer u.flushMu.Unlock()
	u.mu.Lock()
	batch := u.pending
	u.pending = nil
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := m.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		counts := make([]store.UsageCount, 0, len(batch))
		for k, n := range batch {
			counts = append(counts, store.UsageCount{Org: k.org, Period: periodName(k.month), Counter: k.counter, Value: n})
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
func (w *Workspace) CountAPIRequest() { w.m.count(w.org, CounterAPIRequests, 1) }

// countRecall meters a recall and returns its result unchanged.
func (w *Workspace) countRecall(r *RecallResult) *RecallResult {
	w.m.count(w.org, CounterRecallRequests, 1)
	w.m.count(w.org, CounterRecallTokens, int64(r.TotalTokens))
	return r
}

// countPaper meters a stored paper with textBytes bytes of text.
func (w *Workspace) countPaper(textBytes int) {
	w.m.count(w.org, CounterPapersStored, 1)
	w.m.count(w.org, CounterBytesIngested, int64(textBytes))
}

// countDocument meters a file ingested as a document, of size bytes.
func (w *Workspace) countDocument(size int64) {
	w.m.count(w.org, CounterDocumentsIngested, 1)
	w.m.count(w.org, CounterBytesIngested, size)
}

// countFetch meters a paper fetch and returns its result unchanged.
func (w *Workspace) countFetch(r *FetchResult) *FetchResult {
	w.m.count(w.org, CounterFetchRequests, 1)
	if r.Warm {
		w.m.count(w.org, CounterFetchWarmHits, 1)
		w.m.count(w.org, counterBytesSaved, int64(r.BytesSaved))
	}
	return r
}

// countMemory meters a remembered user memory.
func (w *Workspace) countMemory() { w.m.count(w.org, CounterUserMemories, 1) }

// Usage is a workspace's metered usage over one billing period.
type Usage struct {
	OrgID       string           `json:"org_id"`
	PeriodStart string           `json:"period_start"`
	PeriodEnd   string           `json:"period_end"`
	Counters    map[string]int64 `json:"counters"` // every name in Counters, zero included
}

// Usage returns the workspace's usage over the current calendar month. It
// is exact: counts not yet written are flushed first.
func (w *Workspace) Usage(ctx context.Context) (*Usage, error) {
	if err := w.m.flushUsage(ctx); err != nil {
		return nil, err
	}
	p := w.m.currentPeriod()
	c, err := w.m.usageCounters(ctx, w.m.db, w.org, p)
	if err != nil {
		return nil, err
	}
	return &Usage{OrgID: w.org, PeriodStart: timestamp(p.Start), PeriodEnd: timestamp(p.End), Counters: c}, nil
}

// usageCounters reads the reported counters of org over period p; org ""
// sums every workspace.
func (m *Memory) usageCounters(ctx context.Context, q store.Querier, org string, p Period) (map[string]int64, error) {
	c := make(map[string]int64, len(Counters))
	for _, name := range Counters {
		c[name] = 0
	}
	stored, err := store.UsageCounters(ctx, q, org, periodName(monthOf(p.Start)))
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

// usageTotal sums counter over every period of org.
func (m *Memory) usageTotal(ctx context.Context, org, counter string) (int64, error) {
	n, err := store.UsageTotal(ctx, m.db, org, counter)
	if err != nil {
		return 0, fmt.Errorf("read usage: %w", err)
	}
	return n, nil
}

// MemoryStats is the size of a workspace's memory.
type MemoryStats struct {
	Nodes     int64 `json:"nodes"`     // recallable units, per-user memories included
	Papers    int64 `json:"papers"`    //
	Documents int64 `json:"documents"` //
	Analyses  int64 `json:"analyses"`  //
	Memories  int64 `json:"memories"`  // per-user memories
	Bytes     int64 `json:"bytes"`     // stored source text: papers, documents, analyses, memories
}

func (w *Workspace) memoryStats(ctx context.Context) (MemoryStats, error) {
	r, err := store.MemoryStatsOf(ctx, w.m.db, w.org)
	s := MemoryStats{Nodes: r.Nodes, Papers: r.Papers, Documents: r.Documents, Analyses: r.Analyses, Memories: r.Memories, Bytes: r.Bytes}
	if err != nil {
		return s, fmt.Errorf("memory stats: %w", err)
	}
	return s, nil
}

// Analytics describes a workspace's memory and how it is used.
type Analytics struct {
	OrgID      string        `json:"org_id"`
	Memory     MemoryStats   `json:"memory"`
	Cache      CacheStats    `json:"cache"`
	TopDomains []DomainCount `json:"top_domains"` // at most 10, largest first
}

// CacheStats measures how often paper fetches were answered from memory,
// over the workspace's whole history.
type CacheStats struct {
	Fetches    int64   `json:"fetches"`
	WarmHits   int64   `json:"warm_hits"`
	HitRate    float64 `json:"hit_rate"`    // WarmHits / Fetches, 0 without fetches, 4 decimals
	BytesSaved int64   `json:"bytes_saved"` // bytes not downloaded thanks to warm hits
}

// DomainCount is how many papers and documents carry a domain.
type DomainCount struct {
	Domain string `json:"domain"`
	Count  int64  `json:"count"`
}

// topDomains is how many domains Analytics reports.
const topDomains = 10

// Analytics returns the size of the workspace's memory, the cache
// efficiency of its paper fetches and its largest domains.
func (w *Workspace) Analytics(ctx context.Context) (*Analytics, error) {
	if err := w.m.flushUsage(ctx); err != nil {
		return nil, err
	}
	a := &Analytics{OrgID: w.org, TopDomains: []DomainCount{}}
	var err error
	if a.Memory, err = w.memoryStats(ctx); err != nil {
		return nil, err
	}
	c := &a.Cache
	for _, f := range []struct {
		counter string
		dst     *int64
	}{{CounterFetchRequests, &c.Fetches}, {CounterFetchWarmHits, &c.WarmHits}, {counterBytesSaved, &c.BytesSaved}} {
		if *f.dst, err = w.m.usageTotal(ctx, w.org, f.counter); err != nil {
			return nil, err
		}
	}
	if c.Fetches > 0 {
		c.HitRate = math.Round(float64(c.WarmHits)/float64(c.Fetches)*10000) / 10000
	}
	domains, err := store.TopDomains(ctx, w.m.db, w.org, topDomains)
	if err != nil {
		return nil, fmt.Errorf("top domains: %w", err)
	}
	for _, d := range domains {
		a.TopDomains = append(a.TopDomains, DomainCount{Domain: d.Domain, Count: d.Count})
	}
	return a, nil
}
