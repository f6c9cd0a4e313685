package papermem

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/recall"
)

// Recall itself (ranking, paper context, packing, the relevance scale,
// user recall and the ranking of papers) is internal/recall's Engine: the
// methods here validate a request, convert it, make one call and convert
// the answer.

// Retrieval selects the candidate sources of a recall.
type Retrieval = api.Retrieval

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
// question, within a token budget (api.RecallInput).
type RecallRequest = api.RecallInput

// Where an answer ends, unless the request asks for the whole budget
// (RecallRequest.Fill): a recall takes spans best first and stops, once
// MinTokens are taken, before a span from a source it already draws on (a
// paper, document or analysis) that scores under StopRatio times the best
// span taken, a memory of the user's under UserStopRatio times it, or one
// from another source under SourceStopRatio times it, unless that span
// holds a word of the question (rarer than the commonest words) that the
// spans taken lack. While every span taken comes from one paper, document
// or analysis (a paper alone in its workspace, a recall scoped to one
// DOI), the answer is the one a fixed budget of max(min(budget,
// SourceDepth), SourceShare of the budget) tokens gives (1,000 at a budget
// of 2,000): inside one paper, scores say little of how deep the evidence
// lies. The budget stays a ceiling: a recall returns what answers the
// question and stops there. RecallPapers ends its list before a paper
// under SourceStopRatio times the best unless PaperRecallRequest.Fill is
// set.
const (
	StopRatio       = recall.StopRatio
	SourceStopRatio = recall.SourceStopRatio
	UserStopRatio   = recall.UserStopRatio
	SourceDepth     = recall.SourceDepth
	SourceShare     = recall.SourceShare
)

// Span is one recalled piece of text with where it came from (api.Span).
type Span = api.Span

// Provenance says where a span comes from, precisely enough to cite it.
type Provenance = api.Provenance

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

// RecallResult is the answer to a recall: spans, best first, whose tokens add
// up to TotalTokens, never more than the budget.
type RecallResult = api.RecallResult

// validate checks a request, fills its defaults and normalises its DOIs.
func validateRecall(r *RecallRequest) error {
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
	return validRetrieval(r.Retrieval)
}

// recallBudget returns the recall engine's budget of a validated request.
func recallBudget(r *RecallRequest) recall.Budget {
	return recall.Budget{Tokens: r.BudgetTokens, Fill: r.Fill, MinTokens: r.MinTokens}
}

func validRetrieval(r Retrieval) error {
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
func (w *Workspace) Recall(ctx context.Context, req RecallRequest) (_ *RecallResult, err error) {
	defer translate(&err)
	if err := validateRecall(&req); err != nil {
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
	res, err := w.m.recall.Recall(ctx, recall.Request{Workspace: w.id, Question: req.Question, Keywords: req.Keywords,
		Label: label, Domain: req.Domain, SectionTypes: req.SectionTypes, Signals: req.ScopeSignals, DOIs: dois,
		Budget: recallBudget(&req), Retrieval: recall.Retrieval(req.Retrieval)})
	out, err := w.recalled(ctx, end, res, err)
	if err != nil {
		return nil, err
	}
	return w.countRecall(out), nil
}

// recallMemories recalls the memories of user for r, validated (RecallUser).
func (w *Workspace) recallMemories(ctx context.Context, user string, r RecallRequest) (*RecallResult, error) {
	ctx, end := w.m.observe(ctx, OpRecall, "user")
	res, err := w.m.recall.RecallUser(ctx, recall.UserRequest{Workspace: w.id, User: user, Question: r.Question,
		Keywords: r.Keywords, Budget: recallBudget(&r), Retrieval: recall.Retrieval(r.Retrieval)})
	return w.recalled(ctx, end, res, err)
}

// recalled converts the recall engine's answer res, or its error err, and
// ends the recall's observation (end) with the tokens returned.
func (w *Workspace) recalled(ctx context.Context, end func(int, error), res *recall.Result, err error) (*RecallResult, error) {
	if err != nil {
		err = w.recallError(err)
		end(0, err)
		return nil, err
	}
	out := resultOf(res)
	end(out.TotalTokens, nil)
	return out, nil
}

// resultOf converts the recall engine's result to the spans the caller
// sees, which name their nodes by their number in the workspace (loaded
// with the spans' text), not by row id.
func resultOf(r *recall.Result) *RecallResult {
	out := &RecallResult{Spans: make([]Span, len(r.Spans)), TotalTokens: r.TotalTokens}
	for i, s := range r.Spans {
		out.Spans[i] = Span{NodeID: s.Num, Label: s.Label, Text: s.Text, Score: s.Score, Tokens: s.Tokens,
			Provenance: Provenance(s.Provenance)}
	}
	return out
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
func (m *Memory) Warm(ctx context.Context) (err error) {
	defer translate(&err)
	return m.index.Warm(ctx)
}
