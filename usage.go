package papermem

import (
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
)

// Usage counters (package api defines them): the metered events of a
// workspace, summed per calendar month (UTC, by Options.Now). A plan's
// quotas and overage rates name them (Quotas, OverageRate) and the bill
// prices them (Billing).
//
// Metering is the hosted service's (package hosted): the memory reports
// the events it sees — recalls, papers stored, files ingested, fetches,
// notes remembered — to the meter of the hosted service built over it, if
// one is (Memory.Shared's MeterSlot), which counts them. An embedded
// Memory reports to nothing and counts nothing.
const (
	CounterAPIRequests       = api.CounterAPIRequests       // authenticated /v1 requests and dashboard pages that work on memory (counted by the server)
	CounterRecallRequests    = api.CounterRecallRequests    // Recall and RecallUser calls
	CounterRecallTokens      = api.CounterRecallTokens      // tokens returned by those calls
	CounterPapersStored      = api.CounterPapersStored      // StorePaper calls, paper files ingested, origin fetches
	CounterDocumentsIngested = api.CounterDocumentsIngested // files ingested as documents
	CounterBytesIngested     = api.CounterBytesIngested     // bytes of paper text and ingested files
	CounterFetchRequests     = api.CounterFetchRequests     // successful FetchPaper calls
	CounterFetchWarmHits     = api.CounterFetchWarmHits     // of which answered from memory
	CounterUserMemories      = api.CounterUserMemories      // Remember calls
)

// Counters lists the usage counters in the order they are reported.
var Counters = api.Counters

// count reports n of a counter of workspace to the meter, if any. It
// only touches memory.
func (m *Memory) count(workspace, counter string, n int64) {
	if n != 0 {
		m.shared.Meter.Count(workspace, counter, n)
	}
}

// countRecall meters a recall and returns its result unchanged.
func (w *Workspace) countRecall(r *RecallResult) *RecallResult {
	w.m.count(w.id, CounterRecallRequests, 1)
	w.m.count(w.id, CounterRecallTokens, int64(r.TotalTokens))
	return r
}

// countPaper meters a stored paper with textBytes bytes of text.
func (w *Workspace) countPaper(textBytes int) {
	w.m.count(w.id, CounterPapersStored, 1)
	w.m.count(w.id, CounterBytesIngested, int64(textBytes))
}

// countDocument meters a file ingested as a document, of size bytes.
func (w *Workspace) countDocument(size int64) {
	w.m.count(w.id, CounterDocumentsIngested, 1)
	w.m.count(w.id, CounterBytesIngested, size)
}

// countFetch meters a paper fetch and returns its result unchanged.
func (w *Workspace) countFetch(r *FetchResult) *FetchResult {
	w.m.count(w.id, CounterFetchRequests, 1)
	if r.Warm {
		w.m.count(w.id, CounterFetchWarmHits, 1)
		w.m.count(w.id, store.CounterBytesSaved, int64(r.BytesSaved))
	}
	return r
}

// countMemory meters a remembered user memory.
func (w *Workspace) countMemory() { w.m.count(w.id, CounterUserMemories, 1) }
