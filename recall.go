package papermem

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/store"
)

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
var ScopeSignals = []string{"open_questions", "mechanisms", "reliability", "what_to_build", "limitations", "evidence"}

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
type RecallRequest struct {
	Question     string    `json:"question"`      // required
	Keywords     []string  `json:"keywords"`      // extra terms; spans containing them rank higher
	Domain       string    `json:"domain"`        // "" means every domain
	Label        string    `json:"label"`         // "" means LabelClaim; LabelAny means all but per-user memories
	BudgetTokens int       `json:"budget_tokens"` // 0 means DefaultBudgetTokens; at most MaxBudgetTokens
	SectionTypes []string  `json:"section_types"` // nil means all; values from SectionTypes
	ScopeSignals []string  `json:"scope_signals"` // boosts; values from ScopeSignals
	DOIs         []string  `json:"dois"`          // nil or empty means every source, else only these papers
	Retrieval    Retrieval `json:"-"`             // zero means hybrid
}

// Span is one recalled piece of text with where it came from.
//
// Score is on a scale that means the same from one question to the next:
// the best span's score is the recall's relevance, from 0 to 1, the
// geometric mean of how much of the question's rarer words the best texts
// hold and how near they are to it in meaning (relevance.go); the other
// spans score in proportion to their rank (keywords and scope signals may
// lift a span above the best's). A recall whose relevance is under MinScore
// returns no span, and none scores under MinSpanScore: a question that
// memory holds nothing about gets an empty list.
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
	return r.Retrieval.valid()
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
	q := query{org: w.org, label: req.Label, domain: req.Domain, sectionTypes: req.SectionTypes, retrieval: req.Retrieval}
	if req.Label == LabelAny {
		q.label = ""
	}
	if len(req.DOIs) > 0 {
		// Scoped to papers: every stage below keeps to their nodes (the
		// searches, paper context and the load filter by owner).
		ids, err := store.PaperIDs(ctx, w.m.db, w.org, req.DOIs)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return w.countRecall(&RecallResult{Spans: []Span{}}), nil
		}
		q.kind, q.owners = KindPaper, ids
	}
	// Candidates come from the node index, fused and put in their sources'
	// context (papercontext.go); the best are loaded, boosted and packed
	// into the budget (pack.go).
	p, err := w.m.part(ctx, q.org)
	if err != nil {
		return nil, err
	}
	hs, err := w.m.rankInContext(ctx, p, q, req.Question, req.Keywords)
	if err != nil {
		return nil, err
	}
	res, err := w.m.pack(ctx, q, hs, req.Keywords, req.ScopeSignals, req.BudgetTokens, newRelevance(req.Question))
	if err != nil {
		return nil, err
	}
	return w.countRecall(res), nil
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
	limit        int // candidates per source; 0 means candidateLimit
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

// Hybrid fusion. The vector query is moved toward the mean vector of the
// best rocchioNodes full-text hits (Rocchio pseudo-relevance feedback, with
// weight rocchioWeight against the question's own vector), so the vector
// search finds what resembles the best lexical evidence without sharing
// its words; vectorWeight is its share of the fused score. Measured on
// SciFact with devtools/cmd/scifact (docs/measurements.md): the blend
// beats either search alone.
const (
	rocchioNodes  = 10
	rocchioWeight = 2
	vectorWeight  = 0.25
)

// ranked is a node found by the searches, with its fused score, and the
// id and kind of the paper, document, analysis or memory it belongs to.
type ranked struct {
	id, owner int64
	kind      string
	score     float64
}

// rank runs the full-text and vector searches and fuses their scores, best
// first: each search's scores are divided by its best score, and the fused
// score is the weighted sum (a node one search missed gets 0 from it).
func (m *Memory) rank(ctx context.Context, q query, question string, keywords []string) ([]ranked, error) {
	p, err := m.part(ctx, q.org)
	if err != nil {
		return nil, err
	}
	return m.rankIn(ctx, p, q, question, keywords)
}

// rankIn is rank over part p of the node index, already brought up to
// date, for callers that search it more than once.
func (m *Memory) rankIn(ctx context.Context, p *nodeindex.Part, q query, question string, keywords []string) ([]ranked, error) {
	if q.limit == 0 {
		q.limit = candidateLimit
	}
	var err error
	var lex, vec []nodeindex.Hit
	text := strings.TrimSpace(question + " " + strings.Join(keywords, " "))
	if q.retrieval != RetrievalVector {
		lex = p.Lexical(q.indexQuery(), text)
	}
	if q.retrieval != RetrievalLexical {
		if vec, err = m.vector(ctx, p, q, text, lex); err != nil {
			return nil, err
		}
	}
	wv := vectorWeight
	switch q.retrieval {
	case RetrievalLexical:
		wv = 0
	case RetrievalVector:
		wv = 1
	}
	fused := make(map[int64]ranked, len(lex)+len(vec))
	for _, s := range []struct {
		hs     []nodeindex.Hit
		weight float64
	}{{lex, 1 - wv}, {vec, wv}} {
		for _, h := range s.hs {
			r := fused[h.ID]
			r.id, r.owner, r.kind = h.ID, h.Owner, h.Kind
			r.score += s.weight * h.Score / s.hs[0].Score
			fused[h.ID] = r
		}
	}
	out := make([]ranked, 0, len(fused))
	for _, r := range fused {
		out = append(out, r)
	}
	sortRanked(out)
	return out, nil
}

// sortRanked orders hs best first, then by id.
func sortRanked(hs []ranked) { slices.SortFunc(hs, cmpRanked) }

// cmpRanked orders a before b when it scores higher, or as high with a
// lower id.
func cmpRanked(a, b ranked) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// vector returns nodes of part p ranked by cosine similarity to text, best
// first. When lexical hits are given, the query vector moves toward the
// mean of the best of them (Rocchio pseudo-relevance feedback).
func (m *Memory) vector(ctx context.Context, p *nodeindex.Part, q query, text string, lex []nodeindex.Hit) ([]nodeindex.Hit, error) {
	qv, err := m.embedQuery(ctx, p, q.user, text)
	if err != nil {
		return nil, err
	}
	if len(lex) > 0 {
		fb := p.Mean(lex[:min(rocchioNodes, len(lex))])
		for i := range qv {
			qv[i] += rocchioWeight * fb[i]
		}
		normalize(qv)
	}
	return p.Nearest(q.indexQuery(), qv), nil
}

// weightedEmbedder is an Embedder that can stress some words of a text;
// the offline embedder is one.
type weightedEmbedder interface {
	EmbedWeighted(ctx context.Context, text string, weight func(word string) float64) ([]float32, error)
}

// embedQuery embeds a question. With a weightedEmbedder each word counts by
// its inverse document frequency in the collection of user ("" for the
// shared nodes) of part p, as BM25 weighs it, so that rare words lead the
// vector search.
func (m *Memory) embedQuery(ctx context.Context, p *nodeindex.Part, user, text string) ([]float32, error) {
	we, ok := m.embedder.(weightedEmbedder)
	if !ok {
		vs, err := m.embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		return vs[0], nil
	}
	var v []float32
	err := p.WithIDF(user, func(idf func(string) float64) (err error) {
		v, err = we.EmbedWeighted(ctx, text, idf)
		return err
	})
	if err != nil {
		return nil, &Error{Code: EUPSTREAM, Message: "The embedder failed.", Err: err}
	}
	normalize(v)
	return v, nil
}

// Warm loads the in-process search index of every workspace, up to
// Options.IndexMaxNodes nodes, so that no recall pays for it: 2–4 s per
// 100k nodes. A server calls it once after Open, in the background;
// recalls meanwhile wait for the workspace they search. It returns when
// ctx is done, with ctx's error.
func (m *Memory) Warm(ctx context.Context) error { return m.index.Warm(ctx) }
