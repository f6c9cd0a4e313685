// Package recall answers questions from a workspace's memory: it ranks the
// nodes of the in-process search index (internal/nodeindex) for a question,
// by BM25 and by vector, fused, puts them in the context of the papers
// they come from, loads the best with their provenance (internal/store),
// boosts them for keywords and scope signals, puts their scores on the
// relevance scale and packs them into a token budget. It ranks one user's
// memories the same way with a ranking made for conversations, and a
// workspace's papers by their title and abstract.
//
// An Engine is the one entry point: Recall, RecallUser and RecallPapers.
// The root package validates a request, converts it, calls the engine once
// and converts its answer; this package owns every step in between.
//
// A workspace recall reads top-down in this package's files:
//
//  1. recall.go: the request, its scope (Request.DOIs) and the steps;
//  2. rank.go: the full-text and vector searches, fused;
//  3. context.go: paper context, which adds each node's source's score;
//  4. pack.go: loading, boosts (signals.go) and packing into the budget;
//  5. relevance.go: the scale a returned score is on.
//
// user.go is the recall of one user's memories and papers.go the ranking
// of papers; both share the steps above that fit them.
package recall

import (
	"context"
	"strings"

	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/store"
)

// Node labels and owner kinds, as package papermem names them (its
// LabelClaim, KindPaper, …).
const (
	LabelClaim   = "Claim"
	LabelPassage = "Passage"
	LabelPaper   = "Paper"
	LabelMemory  = "Memory"

	KindPaper    = "paper"
	KindAnalysis = "analysis"
	KindMemory   = "memory"
)

// Retrieval selects the candidate sources of a recall, as package
// papermem's Retrieval does.
type Retrieval string

// Retrieval modes: Hybrid (the zero value) fuses both searches; the others
// exist to measure each alone.
const (
	Hybrid  Retrieval = ""
	Lexical Retrieval = "lexical"
	Vector  Retrieval = "vector"
)

// WeightedEmbedder is an embedder that can stress some words of a text;
// the offline embedder is one.
type WeightedEmbedder interface {
	EmbedWeighted(ctx context.Context, text string, weight func(word string) float64) ([]float32, error)
}

// EmbedderError is a WeightedEmbedder's failure to embed a question.
type EmbedderError struct{ Err error }

func (e *EmbedderError) Error() string { return "embed the question: " + e.Err.Error() }

func (e *EmbedderError) Unwrap() error { return e.Err }

// Config is what an Engine is built from.
type Config struct {
	Index *nodeindex.Index // the search index
	Store *store.Reader    // the read pool
	// Embed embeds texts as unit vectors of the index's dimension, checked
	// (a question is embedded with it when Weighted is nil); its errors
	// are returned as they are.
	Embed func(ctx context.Context, texts []string) ([][]float32, error)
	// Weighted is the embedder when it can stress some words of a text,
	// else nil; its errors are returned as *EmbedderError.
	Weighted WeightedEmbedder
	// Stage, when not nil, is called as each stage of a recall begins
	// ("index", "rank", "pack"); it returns the stage's context and the
	// function called with the stage's error as it ends (for traces).
	Stage func(ctx context.Context, name string) (context.Context, func(error))
}

// Engine answers recalls. Its errors are the store's, Config.Embed's,
// *EmbedderError, and nodeindex.ErrOtherEmbedder (wrapped) when the
// workspace's vectors come from another embedder. An *Engine is safe for
// concurrent use.
type Engine struct {
	index    *nodeindex.Index
	db       *store.Reader
	embed    func(ctx context.Context, texts []string) ([][]float32, error)
	weighted WeightedEmbedder
	memRows  memoryRows // memory rows read by user recall, by node id (user.go)
	stage    func(ctx context.Context, name string) (context.Context, func(error))
}

// New returns an engine over c's index and store.
func New(c Config) *Engine {
	return &Engine{index: c.Index, db: c.Store, embed: c.Embed, weighted: c.Weighted, stage: c.Stage}
}

// Request asks for the spans of workspace Org's memory that answer
// Question within Budget tokens. The caller has validated it: Question is
// trimmed and not empty, Budget is positive, Label, SectionTypes, Signals
// and Retrieval are known values and DOIs are normalised and distinct.
type Request struct {
	Workspace    string
	Question     string
	Keywords     []string // extra terms; spans containing them rank higher
	Label        string   // "" for every label but LabelMemory
	Domain       string   // "" for every domain
	SectionTypes []string // nil for all
	Signals      []string // scope signals, from Signals
	DOIs         []string // nil or empty for every source, else only these papers' own nodes
	Budget       Budget
	Retrieval    Retrieval
}

// Budget is how many tokens a recall may return, and whether it stops
// when the evidence is in. Tokens is a ceiling. A recall takes spans best
// first and, unless Fill is set, ends its answer before a span much
// weaker than the best one taken (StopRatio, SourceStopRatio), once
// MinTokens are taken; with Fill it takes spans while they fit, none
// left out for scoring under MinSpanScore.
type Budget struct {
	Tokens    int
	Fill      bool
	MinTokens int
}

// Where an answer ends, on the relevance scale: before a span from a
// source the answer already draws on (a paper, document or analysis) that
// scores under StopRatio times the best span taken, before a memory of
// the user's (a user's memories are one source) under UserStopRatio times
// it, and before a span from another source that scores under
// SourceStopRatio times it, so that once the best source's evidence is
// in, a source clearly weaker than it does not follow; but not before a
// span holding a word of the question that the spans taken lack, one
// rarer than the common words (packer.ends). Chosen on SciFact's odd
// claims, QASPER's odd papers and LoCoMo conversations 0–2
// (docs/measurements.md): SourceStopRatio and UserStopRatio leave the
// answers at 2,000 tokens there room under the ceilings of 1,000
// and 1,200 tokens on average (931 and 1,065 tokens).
const (
	StopRatio       = 0.3
	SourceStopRatio = 0.62
	UserStopRatio   = 0.32
)

// How deep an answer that draws on one source reads it. Inside one paper
// the scores say little of how deep a question's evidence lies, so while
// every span taken comes from one paper, document or analysis (a paper
// alone in its workspace, a recall scoped to one DOI, or a question one
// paper answers so far), the answer reads that source as a fixed budget
// of max(min(budget, SourceDepth), SourceShare of the budget) tokens
// would: a span of it is taken when it fits that depth, none ends the
// answer or is left out for scoring under MinSpanScore, and one that does
// not fit is passed over. A span of another source is judged as before
// (SourceStopRatio), and a user's memories are not one source here (they
// stop at UserStopRatio). A budget of 2,000 tokens thus returns, inside one
// paper, the answer of a fixed 1,000-token budget: the evidence recall the
// fixed budget of 1,000 gives, in at most 1,000 tokens (QASPER's papers,
// docs/measurements.md).
const (
	SourceDepth = 1000
	SourceShare = 0.5
)

// Result is the answer to a recall: spans, best first, whose tokens add up
// to TotalTokens, never more than the budget. Spans is never nil.
type Result struct {
	Spans       []Span
	TotalTokens int
}

// Span is one recalled piece of text with where it came from; Score is on
// the relevance scale (relevance.go). Its fields are those of package
// papermem's Span.
type Span struct {
	NodeID     int64 // the node's row id
	Num        int64 // its number in the workspace: the id the API shows
	Label      string
	Text       string
	Score      float64
	Tokens     int
	Provenance Provenance
}

// Provenance says where a span comes from; its fields are those of package
// papermem's Provenance, which converts from it.
type Provenance struct {
	Kind        string
	DOI         string
	Title       string
	Source      string
	Retracted   bool
	Section     string
	SectionType string
	Page        int
	Row         int
	Sheet       string
	CharStart   int
	CharEnd     int
	IngestedAt  string
	Key         string
	Tags        []string
	OccurredAt  string
	Metadata    map[string]any
}

// Recall returns the spans of workspace req.Org's memory that best answer
// req.Question within req.Budget, only of the papers req.DOIs when it is
// set. Per-user memories are never included (see RecallUser).
func (e *Engine) Recall(ctx context.Context, req Request) (*Result, error) {
	q := query{org: req.Workspace, label: req.Label, domain: req.Domain, sectionTypes: req.SectionTypes, retrieval: req.Retrieval,
		quantity: asksQuantity(req.Question)}
	if len(req.DOIs) > 0 {
		// Scoped to papers: every stage below keeps to their nodes (the
		// searches, paper context and the load filter by owner).
		ids, err := store.PaperIDs(ctx, e.db, req.Workspace, req.DOIs)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return &Result{Spans: []Span{}}, nil
		}
		q.kind, q.owners = KindPaper, ids
	}
	// Candidates come from the node index, fused (rank.go) and put in
	// their sources' context (context.go); the best are loaded, boosted
	// and packed into the budget (pack.go), their scores on the relevance
	// scale (relevance.go).
	sctx, end := e.startStage(ctx, "index")
	p, err := e.index.Part(sctx, q.org)
	end(err)
	if err != nil {
		return nil, err
	}
	sctx, end = e.startStage(ctx, "rank")
	hs, common, err := e.rankInContext(sctx, p, q, req.Question, req.Keywords)
	end(err)
	if err != nil {
		return nil, err
	}
	sctx, end = e.startStage(ctx, "pack")
	res, err := e.pack(sctx, q, hs, common, req.Keywords, req.Signals, req.Budget, newRelevance(req.Question, p, q.user))
	end(err)
	return res, err
}

// startStage starts a stage of a recall (Config.Stage).
func (e *Engine) startStage(ctx context.Context, name string) (context.Context, func(error)) {
	if e.stage == nil {
		return ctx, func(error) {}
	}
	return e.stage(ctx, name)
}

// query is what the candidate search needs to know.
type query struct {
	org          string
	user         string  // "" for workspace recall: per-user memories excluded
	label        string  // "" for all labels (but Memory unless user is set)
	kind         string  // "" for all owner kinds
	owners       []int64 // nil for all owners, else only these (of kind)
	domain       string
	sectionTypes []string
	retrieval    Retrieval
	limit        int  // candidates per source; 0 means candidateLimit
	quantity     bool // the question asks how many or how much (quantityScale)
}

// candidateLimit is how many candidates each source contributes.
const candidateLimit = 200

// indexQuery returns the node index's query for q: workspace recall of
// every label leaves out the per-user memories.
func (q query) indexQuery() nodeindex.Query {
	iq := nodeindex.Query{User: q.user, Label: q.label, Kind: q.kind, Owners: q.owners, Domain: q.domain,
		SectionTypes: q.sectionTypes, K: q.limit}
	if q.label == "" && q.user == "" {
		iq.ExceptLabel = LabelMemory
	}
	return iq
}

// searchText is the text both searches look for: the question and the
// keywords.
func searchText(question string, keywords []string) string {
	return strings.TrimSpace(question + " " + strings.Join(keywords, " "))
}
