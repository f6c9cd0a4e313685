package api

import (
	"regexp"
	"strings"
	"time"
)

// Node labels.
const (
	LabelClaim    = "Claim"    // a sentence that asserts a finding
	LabelPassage  = "Passage"  // a chunk of a section
	LabelPaper    = "Paper"    // a paper's title and abstract
	LabelAnalysis = "Analysis" // a chunk of an analysis
	LabelDocument = "Document" // a chunk of an ingested document
	LabelMemory   = "Memory"   // a per-user memory
	LabelAny      = "Any"      // in a recall request: every label
)

// Owner kinds, as reported in provenance.
const (
	KindPaper    = "paper"
	KindDocument = "document"
	KindAnalysis = "analysis"
	KindMemory   = "memory"
)

// Component health statuses.
const (
	HealthOK       = "ok"       // a component answered correctly
	HealthError    = "error"    // a component failed its check
	HealthDegraded = "degraded" // overall: at least one component failed
)

// Usage counters: the metered events of a workspace, summed per calendar
// month (UTC, by Options.Now). A plan's quotas and overage rates name them
// (Quotas, OverageRate) and the bill prices them (Billing).
// The memory reports the events it sees to the meter of the hosted
// service built over it, if any, which counts them.
const (
	CounterAPIRequests       = "api_requests"       // authenticated /v1 requests and dashboard pages that work on memory (counted by the server)
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

// MaxBudgetTokens is the largest recall budget accepted.
const MaxBudgetTokens = 200000

// DefaultTokenTTL is a new workspace's session-token lifetime.
const DefaultTokenTTL = 24 * time.Hour

// timeLayouts are the ISO-8601 forms accepted for times.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02"}

// ParseTime parses an ISO-8601 date or date-time. Errors: EINVALID.
func ParseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, Errorf(EINVALID, "%q is not an ISO-8601 date or time.", s)
}

// workspaceID is the rule for workspace ids.
var workspaceID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{2,63}$`)

// ValidWorkspaceID reports whether id is a well-formed workspace id: 3 to 64
// characters of lower-case letters, digits, '_' and '-', starting with a
// letter or digit.
func ValidWorkspaceID(id string) bool { return workspaceID.MatchString(id) }
