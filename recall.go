package papermem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/papermem/papermem/internal/recall"
	"github.com/papermem/papermem/internal/store"
)

// Recall itself (ranking, paper context, packing, the relevance scale,
// user recall and the ranking of papers) is internal/recall's Engine: the
// methods here validate a request, convert it, make one call and convert
// the answer.

// Retrieval selects the candidate sources of a recall.
type Retrieval string

// Retrieval modes. The zero value is RetrievalHybrid; the others exist to
// measure each source alone.
const (
	RetrievalHybrid  Retrieval = ""        // full-text and vector candidates, fused
	RetrievalLexical Retrieval = "lexical" // BM25 only
	RetrievalVector  Retrieval = "vector"  // vector kNN only
)

// ScopeSignals lists the scope signals recall understands.
var ScopeSignals = slices.Clone(recall.Signals)

// RecallRequest asks for the spans of a workspace's memory that answer a
// question, within a token budget.
//
// DOIs scopes the recall to papers: only the workspace's own nodes of
// those papers are considered (their title and abstract, passages and
// claims; not their analyses, and no documents, so labels Analysis and
// Document then match nothing), and BM25 weighs words within them, as in
// a workspace of those papers alone. A DOI the workspace does not hold
// matches nothing, so when it holds none of them the result has no spans.
// Duplicates are ignored; a string that is not a DOI (NormalizeDOI), or
// more than MaxRecallDOIs of them, is EINVALID.
//
// Tags and Collections scope the recall the same way, to the papers
// tagged with one of Tags and filed in one of Collections (as imports
// record them, exact names); with DOIs as well, to the papers that are in
// all the scopes given. More than MaxScopeNames names, or an empty one, is
// EINVALID.
type RecallRequest struct {
	Question     string    `json:"question"`      // required
	Keywords     []string  `json:"keywords"`      // extra terms; spans containing them rank higher
	Domain       string    `json:"domain"`        // "" means every domain
	Label        string    `json:"label"`         // "" means LabelClaim; LabelAny means all but per-user memories
	BudgetTokens int       `json:"budget_tokens"` // 0 means DefaultBudgetTokens; at most MaxBudgetTokens
	SectionTypes []string  `json:"section_types"` // nil means all; values from SectionTypes
	ScopeSignals []string  `json:"scope_signals"` // boosts; values from ScopeSignals
	DOIs         []string  `json:"dois"`          // nil or empty means every source, else only these papers
	Tags         []string  `json:"tags"`          // nil or empty means every source, else only papers with one of these tags
	Collections  []string  `json:"collections"`   // nil or empty means every source, else only papers in one of these collections
	Fill         bool      `json:"fill"`          // false: the answer stops when the evidence is in (StopRatio); true: spans are taken while they fit, whatever their score
	MinTokens    int       `json:"min_tokens"`    // 0: none; the answer does not stop before this many tokens (at most the budget)
	Retrieval    Retrieval `json:"-"`             // zero means hybrid
}

// Where an answer ends, unless the request asks for the whole budget
// (RecallRequest.Fill): a recall takes spans best first and stops, once
// MinTokens are taken, before a span from a source it already draws on (a
// paper, document or analysis; a user's memories count as one) that scores
// under StopRatio times the best span taken, or before one from another
// source that scores under SourceStopRatio times it, unless that span holds
// a word of the question (rarer than the commonest words) that the spans
// taken lack. While every span taken comes from one paper, document or
// analysis (a paper alone in its workspace, a recall scoped to one DOI),
// the answer reads that source as a fixed budget would until it holds
// min(budget, SourceDepth) tokens and SourceShare of the budget: inside
// one paper, scores say little of how deep the evidence lies. The budget
// stays a ceiling: a recall returns what answers the question and stops
// there. RecallPapers ends its list before a paper under SourceStopRatio
// times the best unless PaperRecallRequest.Fill is set.
const (
	StopRatio       = recall.StopRatio
	SourceStopRatio = recall.SourceStopRatio
	SourceDepth     = recall.SourceDepth
	SourceShare     = recall.SourceShare
)

// Span is one recalled piece of text with where it came from.
//
// Score is on a scale that means the same from one question to the next:
// the best span's score is the recall's relevance, from 0 to 1, the
// geometric mean of how much of the question's rarer words the best texts
// hold and how near they are to it in meaning (internal/recall); the other
// spans score in proportion to their rank (keywords and scope signals may
// lift a span above the best's). A recall whose relevance is under MinScore
// returns no span, and none scores under MinSpanScore: a question that
// memory holds nothing about gets an empty list. A recall of low
// relevance returns at most LowRelevanceTokens at MinScore, twice as many
// for each LowRelevanceStep above it, whatever its budget.
type Span struct {
	NodeID     int64      `json:"node_id"`
	Label      string     `json:"label"`
	Text       string     `json:"text"`
	Score      float64    `json:"score"` // relevance, 0 to 1: see below
	Tokens     int        `json:"tokens"`
	Provenance Provenance `json:"provenance"`
}

// Provenance says where a span comes from, precisely enough to cite it.
// CharStart and CharEnd are character offsets in the source's text.
type Provenance struct {
	Kind        string         `json:"kind"` // paper, document, analysis or memory
	DOI         string         `json:"doi,omitempty"`
	Title       string         `json:"title,omitempty"`
	Source      string         `json:"source,omitempty"`    // file name or source URL
	Retracted   bool           `json:"retracted,omitempty"` // the paper (or the paper analysed) is retracted; its spans rank below sound evidence
	Section     string         `json:"section,omitempty"`
	SectionType string         `json:"section_type,omitempty"`
	Page        int            `json:"page,omitempty"`
	Row         int            `json:"row,omitempty"`
	Sheet       string         `json:"sheet,omitempty"`
	CharStart   int            `json:"char_start"`
	CharEnd     int            `json:"char_end"`
	IngestedAt  string         `json:"ingested_at"`
	Key         string         `json:"key,omitempty"`         // memory key
	Tags        []string       `json:"tags,omitempty"`        // memory tags
	OccurredAt  string         `json:"occurred_at,omitempty"` // memory event time
	Metadata    map[string]any `json:"metadata,omitempty"`    // memory metadata
}

// MinScore is the relevance under which a recall returns nothing: the
// lowest score of its best span or paper (see Span.Score). MinSpanScore is
// the lowest score of any span or paper it returns.
const (
	MinScore     = recall.MinScore
	MinSpanScore = recall.MinSpanScore
)

// A recall (RecallUser too) of low relevance returns at most
// LowRelevanceTokens at MinScore, twice as many for each LowRelevanceStep
// of relevance above it, whatever its budget: its best spans, not a
// budget's worth of near misses. A budget of LowRelevanceTokens is never
// cut.
const (
	LowRelevanceTokens = recall.LimitAtMin
	LowRelevanceStep   = recall.LimitDoubling
)

// RecallResult is the answer to a recall: spans, best first, whose tokens
// add up to TotalTokens, never more than the budget.
type RecallResult struct {
	Spans       []Span `json:"spans"`
	TotalTokens int    `json:"total_tokens"`
}

// validate checks a request, fills its defaults and normalises its DOIs.
func (r *RecallRequest) validate() error {
	r.Question = strings.TrimSpace(r.Question)
	if r.Question == "" {
		return Errorf(EINVALID, "question is required.")
	}
	switch {
	case r.BudgetTokens == 0:
		r.BudgetTokens = DefaultBudgetTokens
	case r.BudgetTokens < 1 || r.BudgetTokens > MaxBudgetTokens:
		return Errorf(EINVALID, "budget_tokens must be between 1 and %d.", MaxBudgetTokens)
	}
	if r.MinTokens < 0 || r.MinTokens > r.BudgetTokens {
		return Errorf(EINVALID, "min_tokens must be between 0 and budget_tokens (%d).", r.BudgetTokens)
	}
	if r.Label == "" {
		r.Label = LabelClaim
	}
	if !slices.Contains([]string{LabelClaim, LabelPassage, LabelPaper, LabelAnalysis, LabelDocument, LabelAny}, r.Label) {
		return Errorf(EINVALID, "label must be one of Claim, Passage, Paper, Analysis, Document or Any.")
	}
	for _, s := range r.SectionTypes {
		if !slices.Contains(SectionTypes, s) {
			return Errorf(EINVALID, "Unknown section type %q; allowed: %s.", s, strings.Join(SectionTypes, ", "))
		}
	}
	for _, s := range r.ScopeSignals {
		if !slices.Contains(ScopeSignals, s) {
			return Errorf(EINVALID, "Unknown scope signal %q; allowed: %s.", s, strings.Join(ScopeSignals, ", "))
		}
	}
	if len(r.DOIs) > 0 {
		dois, err := normalizeDOIs(r.DOIs, "dois", MaxRecallDOIs)
		if err != nil {
			return err
		}
		r.DOIs = dois
	}
	var err error
	if r.Tags, err = checkNames(r.Tags, "tags"); err != nil {
		return err
	}
	if r.Collections, err = checkNames(r.Collections, "collections"); err != nil {
		return err
	}
	return r.Retrieval.valid()
}

// budget returns the recall engine's budget of a validated request.
func (r *RecallRequest) budget() recall.Budget {
	return recall.Budget{Tokens: r.BudgetTokens, Fill: r.Fill, MinTokens: r.MinTokens}
}

func (r Retrieval) valid() error {
	switch r {
	case RetrievalHybrid, RetrievalLexical, RetrievalVector:
		return nil
	}
	return Errorf(EINVALID, "Unknown retrieval mode %q.", r)
}

// Recall returns the spans of the workspace's memory that best answer
// req.Question within req.BudgetTokens, only of the papers req.DOIs when
// it is set. Per-user memories are never included (see RecallUser).
// Errors: EINVALID.
func (w *Workspace) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	label := req.Label
	if label == LabelAny {
		label = ""
	}
	dois, ok, err := w.scopeDOIs(ctx, req.DOIs, req.Tags, req.Collections)
	if err != nil {
		return nil, err
	}
	if !ok {
		return w.countRecall(&RecallResult{Spans: []Span{}}), nil
	}
	ctx, end := w.m.observe(ctx, OpRecall, "workspace")
	res, err := w.m.recall.Recall(ctx, recall.Request{Org: w.id, Question: req.Question, Keywords: req.Keywords,
		Label: label, Domain: req.Domain, SectionTypes: req.SectionTypes, Signals: req.ScopeSignals, DOIs: dois,
		Budget: req.budget(), Retrieval: recall.Retrieval(req.Retrieval)})
	if err != nil {
		err = w.recallError(err)
		end(0, err)
		return nil, err
	}
	out, err := w.resultOf(ctx, res)
	if err != nil {
		end(0, err)
		return nil, err
	}
	end(out.TotalTokens, nil)
	return w.countRecall(out), nil
}

// recallMemories recalls the memories of user for r, validated (RecallUser).
func (w *Workspace) recallMemories(ctx context.Context, user string, r RecallRequest) (*RecallResult, error) {
	ctx, end := w.m.observe(ctx, OpRecall, "user")
	res, err := w.m.recall.RecallUser(ctx, recall.UserRequest{Org: w.id, User: user, Question: r.Question,
		Keywords: r.Keywords, Budget: r.budget(), Retrieval: recall.Retrieval(r.Retrieval)})
	if err != nil {
		err = w.recallError(err)
		end(0, err)
		return nil, err
	}
	out, err := w.resultOf(ctx, res)
	if err != nil {
		end(0, err)
		return nil, err
	}
	end(out.TotalTokens, nil)
	return out, nil
}

// resultOf converts the recall engine's result, whose spans name their
// nodes by row id, to the spans the caller sees, which name them by their
// number in the workspace. A node deleted since it was recalled is left
// out, with its tokens.
func (w *Workspace) resultOf(ctx context.Context, r *recall.Result) (*RecallResult, error) {
	ids := make([]int64, len(r.Spans))
	for i, s := range r.Spans {
		ids[i] = s.NodeID
	}
	nums, err := store.NodeNums(ctx, w.m.db, w.m.database.Engine, w.id, ids)
	if err != nil {
		return nil, fmt.Errorf("recall: node numbers: %w", err)
	}
	out := &RecallResult{Spans: make([]Span, 0, len(r.Spans)), TotalTokens: r.TotalTokens}
	for _, s := range r.Spans {
		num, ok := nums[s.NodeID]
		if !ok {
			out.TotalTokens -= s.Tokens
			continue
		}
		out.Spans = append(out.Spans, Span{NodeID: num, Label: s.Label, Text: s.Text, Score: s.Score, Tokens: s.Tokens,
			Provenance: Provenance(s.Provenance)})
	}
	return out, nil
}

// recallError translates the recall engine's errors: an embedder's failure
// is EUPSTREAM, vectors of another embedder EUNAVAILABLE (Memory.part).
func (w *Workspace) recallError(err error) error {
	if ee, ok := errors.AsType[*recall.EmbedderError](err); ok {
		return &Error{Code: EUPSTREAM, Message: "The embedder failed.", Err: ee.Err}
	}
	return w.m.indexError(w.id, err)
}

// Warm loads the in-process search index of every workspace, up to
// Options.IndexMaxBytes, so that no recall pays for it: 2–4 s per 100k
// nodes from the database, much less from the index's files (IndexDir). A server calls it once after Open, in the background;
// recalls meanwhile wait for the workspace they search. It returns when
// ctx is done, with ctx's error.
func (m *Memory) Warm(ctx context.Context) error { return m.index.Warm(ctx) }
