package papermem

import (
	"context"

	"github.com/papermem/papermem/internal/extract"
)

// Operations an Observer is told of (Observer.Start's op).
const (
	OpRecall      = "recall"       // a workspace or per-user recall; detail: "workspace" or "user"; n: the tokens returned
	OpRecallStage = "recall.stage" // one stage of a recall; detail: "index", "rank" or "pack"
	OpWrite       = "write"        // one write transaction: its wait in the write queue and its commit
	OpIngest      = "ingest"       // an IngestFile; detail: the format, or "unknown"
	OpOrigin      = "origin"       // one HTTP request to an origin or for a download; detail: its host; n: the status (0 without an answer)
)

// Observer watches a Memory's work for metrics and traces; package
// internal/telemetry implements it over Prometheus and OpenTelemetry. It
// is told nothing of a workspace, a user or a paper: an op and a detail
// from a small fixed set (a format, a host), never an id.
type Observer interface {
	// Start is called as operation op (one of the Op constants) begins
	// under ctx. It returns the context the operation runs in (carrying a
	// span, say) and the function called once as it ends, with a count
	// (see the constants) and its error.
	Start(ctx context.Context, op, detail string) (context.Context, func(n int, err error))
}

// observe starts op when an Observer is set.
func (m *Memory) observe(ctx context.Context, op, detail string) (context.Context, func(int, error)) {
	if m.observer == nil {
		return ctx, ignoreEnd
	}
	return m.observer.Start(ctx, op, detail)
}

func ignoreEnd(int, error) {}

// recallStage adapts observe to the recall engine's stages.
func (m *Memory) recallStage(ctx context.Context, stage string) (context.Context, func(error)) {
	ctx, end := m.observer.Start(ctx, OpRecallStage, stage)
	return ctx, func(err error) { end(0, err) }
}

// observeOrigin is observe for the origins' requests (fetch.Observe).
func (m *Memory) observeOrigin(ctx context.Context, server string) (context.Context, func(int, error)) {
	return m.observer.Start(ctx, OpOrigin, server)
}

// ingestFormat is the format of a file named name, or "unknown", as
// OpIngest's detail.
func ingestFormat(name string) string {
	if f, ok := extract.FormatFor(name); ok {
		return string(f)
	}
	return "unknown"
}

// Stats are figures of a Memory's machinery at one moment, cheap to read.
type Stats struct {
	WriteQueue      int   // writes waiting for their turn
	IndexWorkspaces int   // workspaces whose search index is loaded
	IndexNodes      int64 // entries of the loaded search indexes
	IndexBytes      int64 // memory the loaded search indexes take (Options.IndexMaxBytes bounds it)
}

// Stats returns the Memory's figures now.
func (m *Memory) Stats() Stats {
	parts, nodes, bytes := m.index.Stats()
	return Stats{WriteQueue: m.writer.Queued(), IndexWorkspaces: parts, IndexNodes: nodes, IndexBytes: bytes}
}
