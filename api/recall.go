package api

// Retrieval selects the candidate sources of a recall.
type Retrieval string

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

// RecallResult is the answer to a recall: spans, best first, whose tokens
// add up to TotalTokens, never more than the budget.
type RecallResult struct {
	Spans       []Span `json:"spans"`
	TotalTokens int    `json:"total_tokens"`
}

// RecallInput asks for the spans of a workspace's memory that answer a
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
type RecallInput struct {
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
