package papermem

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/terms"
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
type RecallRequest struct {
	Question     string    `json:"question"`      // required
	Keywords     []string  `json:"keywords"`      // extra terms; spans containing them rank higher
	Domain       string    `json:"domain"`        // "" means every domain
	Label        string    `json:"label"`         // "" means LabelClaim; LabelAny means all but per-user memories
	BudgetTokens int       `json:"budget_tokens"` // 0 means DefaultBudgetTokens; at most MaxBudgetTokens
	SectionTypes []string  `json:"section_types"` // nil means all; values from SectionTypes
	ScopeSignals []string  `json:"scope_signals"` // boosts; values from ScopeSignals
	Retrieval    Retrieval `json:"-"`             // zero means hybrid
}

// Span is one recalled piece of text with where it came from.
type Span struct {
	NodeID     int64      `json:"node_id"`
	Label      string     `json:"label"`
	Text       string     `json:"text"`
	Score      float64    `json:"score"`
	Tokens     int        `json:"tokens"`
	Provenance Provenance `json:"provenance"`
}

// Provenance says where a span comes from, precisely enough to cite it.
// CharStart and CharEnd are character offsets in the source's text.
type Provenance struct {
	Kind        string         `json:"kind"` // paper, document, analysis or memory
	DOI         string         `json:"doi,omitempty"`
	Title       string         `json:"title,omitempty"`
	Source      string         `json:"source,omitempty"` // file name or source URL
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

// validate checks a request and fills its defaults.
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
// req.Question within req.BudgetTokens. Per-user memories are never
// included (see RecallUser). Errors: EINVALID.
func (w *Workspace) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	q := query{org: w.org, label: req.Label, domain: req.Domain, sectionTypes: req.SectionTypes, retrieval: req.Retrieval}
	if req.Label == LabelAny {
		q.label = ""
	}
	hs, err := w.m.rankInContext(ctx, q, req.Question, req.Keywords)
	if err != nil {
		return nil, err
	}
	res, err := w.m.pack(ctx, q, hs, req.Keywords, req.ScopeSignals, req.BudgetTokens)
	if err != nil {
		return nil, err
	}
	return w.countRecall(res), nil
}

// query is what the candidate search needs to know.
type query struct {
	org          string
	user         string // "" for workspace recall: per-user memories excluded
	label        string // "" for all labels (but Memory unless user is set)
	kind         string // "" for all owner kinds
	domain       string
	sectionTypes []string
	retrieval    Retrieval
	limit        int // candidates per source; 0 means candidateLimit
}

// candidateLimit is how many candidates each source contributes.
const candidateLimit = 200

// candidate is a node considered for a recall.
type candidate struct {
	Span
	ownerID int64
	kind    string
}

// Hybrid fusion. The vector query is moved toward the mean vector of the
// best rocchioNodes full-text hits (Rocchio pseudo-relevance feedback, with
// weight rocchioWeight against the question's own vector), so the vector
// search finds what resembles the best lexical evidence without sharing
// its words; vectorWeight is its share of the fused score. Measured on
// SciFact with cmd/scifact (README): the blend beats either search alone.
const (
	rocchioNodes  = 10
	rocchioWeight = 2
	vectorWeight  = 0.25
)

// ranked is a node found by the searches, with its fused score and the
// id of the paper, document, analysis or memory it belongs to.
type ranked struct {
	id, owner int64
	score     float64
}

// rank runs the full-text and vector searches and fuses their scores, best
// first: each search's scores are divided by its best score, and the fused
// score is the weighted sum (a node one search missed gets 0 from it).
func (m *Memory) rank(ctx context.Context, q query, question string, keywords []string) ([]ranked, error) {
	p, err := m.index.part(ctx, m.db, q.org)
	if err != nil {
		return nil, err
	}
	return m.rankIn(ctx, p, q, question, keywords)
}

// rankIn is rank over part p of the node index, already brought up to
// date, for callers that search it more than once.
func (m *Memory) rankIn(ctx context.Context, p *orgIndex, q query, question string, keywords []string) ([]ranked, error) {
	if q.limit == 0 {
		q.limit = candidateLimit
	}
	var err error
	var lex, vec []hit
	text := strings.TrimSpace(question + " " + strings.Join(keywords, " "))
	if q.retrieval != RetrievalVector {
		lex = p.lexical(q, text)
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
	scores := map[int64]float64{}
	for _, s := range []struct {
		hs     []hit
		weight float64
	}{{lex, 1 - wv}, {vec, wv}} {
		for _, h := range s.hs {
			scores[h.id] += s.weight * h.score / s.hs[0].score
		}
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]ranked, 0, len(scores))
	for id, s := range scores {
		if e, ok := p.entry(id); ok {
			out = append(out, ranked{id, p.owners[e], s})
		}
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

// filters returns the SQL conditions on nodes n shared by both searches and
// their arguments; the workspace and user conditions are always present.
func (q query) filters() (string, []any) {
	conds := []string{"n.org_id = ?", "n.user_id = ?"}
	args := []any{q.org, q.user}
	if q.label != "" {
		conds = append(conds, "n.label = ?")
		args = append(args, q.label)
	}
	if q.kind != "" {
		conds = append(conds, "n.kind = ?")
		args = append(args, q.kind)
	}
	if q.domain != "" {
		conds = append(conds, "n.domain = ?")
		args = append(args, q.domain)
	}
	if len(q.sectionTypes) > 0 {
		conds = append(conds, "n.section_type IN ("+placeholders(len(q.sectionTypes))+")")
		for _, s := range q.sectionTypes {
			args = append(args, s)
		}
	}
	return strings.Join(conds, " AND "), args
}

// lexical returns nodes ranked by BM25 for the content words of text, best
// first, scored as FTS5's bm25() scores them (higher is better), from the
// postings: FTS5 itself ranks every node that matches any word and has no
// top-k pruning.
func (p *orgIndex) lexical(q query, text string) []hit {
	words := distinct(terms.Content(text))
	if len(words) == 0 {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.bm25(words, q.searchQuery(), q.limit)
}

// distinct returns the words of ws without repeats, in order.
func distinct(ws []string) []string {
	seen := map[string]bool{}
	out := ws[:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// searchQuery returns the node-index query for q.
func (q query) searchQuery() searchQuery {
	return searchQuery{org: q.org, user: q.user, label: q.label, kind: q.kind, domain: q.domain, sectionTypes: q.sectionTypes, k: q.limit}
}

// vector returns nodes of part p ranked by cosine similarity to text, best
// first. When lexical hits are given, the query vector moves toward the
// mean of the best of them (Rocchio pseudo-relevance feedback).
func (m *Memory) vector(ctx context.Context, p *orgIndex, q query, text string, lex []hit) ([]hit, error) {
	qv, err := m.embedQuery(ctx, p, q, text)
	if err != nil {
		return nil, err
	}
	if len(lex) > 0 {
		fb := p.feedback(lex[:min(rocchioNodes, len(lex))], m.index.dim)
		for i := range qv {
			qv[i] += rocchioWeight * fb[i]
		}
		normalize(qv)
	}
	return m.index.nearest(p, q.searchQuery(), qv), nil
}

// weightedEmbedder is an Embedder that can stress some words of a text;
// the offline embedder is one.
type weightedEmbedder interface {
	EmbedWeighted(ctx context.Context, text string, weight func(word string) float64) ([]float32, error)
}

// embedQuery embeds a question. With a weightedEmbedder each word counts by
// its inverse document frequency in q's collection of part p, as BM25
// weighs it, so that rare words lead the vector search.
func (m *Memory) embedQuery(ctx context.Context, p *orgIndex, q query, text string) ([]float32, error) {
	we, ok := m.embedder.(weightedEmbedder)
	if !ok {
		vs, err := m.embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		return vs[0], nil
	}
	p.mu.RLock()
	n := float64(p.lex.stats[q.user].docs)
	user, found := p.nameIDs[q.user]
	if !found {
		user = anyName
	}
	all := p.onlyCollection(q.user)
	idf := func(word string) float64 {
		df := float64(p.docFreq(ftsterm.Term(word), user, anyName, all))
		return math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	v, err := we.EmbedWeighted(ctx, text, idf)
	p.mu.RUnlock()
	if err != nil {
		return nil, &Error{Code: EUPSTREAM, Message: "The embedder failed.", Err: err}
	}
	normalize(v)
	return v, nil
}

// feedback returns the mean vector of the given nodes.
func (p *orgIndex) feedback(hs []hit, dim int) []float32 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	mean := make([]float32, dim)
	for _, h := range hs {
		e, ok := p.entry(h.id)
		if !ok {
			continue
		}
		for i, x := range p.vecs[e*dim : (e+1)*dim] {
			mean[i] += float32(x) * p.scales[e] / float32(len(hs))
		}
	}
	return mean
}

// loadCandidates reads the ranked nodes that pass q's filters, with their
// provenance and fused score. NOT INDEXED (SQLite only) makes SQLite look
// each id up by rowid: without it, the planner scans the workspace's nodes_label entries
// (50 ms at 100k nodes for 200 ids).
func (m *Memory) loadCandidates(ctx context.Context, q query, hs []ranked) ([]*candidate, error) {
	where, args := q.filters()
	idArgs := make([]any, len(hs))
	score := make(map[int64]float64, len(hs))
	for i, h := range hs {
		idArgs[i] = h.id
		score[h.id] = h.score
	}
	rows, err := m.db.QueryContext(ctx, `SELECT n.id, n.kind, n.owner_id, n.label,
		n.section, n.section_type, n.text, n.tokens, n.page, n.row, n.sheet, n.char_start, n.char_end, n.created_at,
		COALESCE(p.doi, a.doi, ''), COALESCE(p.title, ap.title, d.title, ''), COALESCE(d.name, p.source_url, ''),
		COALESCE(mm.key, ''), COALESCE(mm.tags, '[]'), COALESCE(mm.occurred_at, ''), COALESCE(mm.metadata, '{}')
		FROM nodes n `+m.files.Engine.NotIndexed()+`
		LEFT JOIN papers p ON n.kind = 'paper' AND p.org_id = n.org_id AND p.id = n.owner_id
		LEFT JOIN analyses a ON n.kind = 'analysis' AND a.org_id = n.org_id AND a.id = n.owner_id
		LEFT JOIN papers ap ON n.kind = 'analysis' AND ap.org_id = a.org_id AND ap.doi = a.doi
		LEFT JOIN documents d ON n.kind = 'document' AND d.org_id = n.org_id AND d.id = n.owner_id
		LEFT JOIN memories mm ON n.kind = 'memory' AND mm.org_id = n.org_id AND mm.id = n.owner_id
		WHERE `+where+` AND n.id IN (`+placeholders(len(hs))+`)`, append(args, idArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("load candidates: %w", err)
	}
	defer rows.Close()
	var out []*candidate
	for rows.Next() {
		c := &candidate{}
		p := &c.Provenance
		var tags, meta string
		if err := rows.Scan(&c.NodeID, &c.kind, &c.ownerID, &c.Label,
			&p.Section, &p.SectionType, &c.Text, &c.Tokens, &p.Page, &p.Row, &p.Sheet, &p.CharStart, &p.CharEnd, &p.IngestedAt,
			&p.DOI, &p.Title, &p.Source, &p.Key, &tags, &p.OccurredAt, &meta); err != nil {
			return nil, err
		}
		p.Kind = c.kind
		c.Score = score[c.NodeID]
		if c.kind == KindMemory {
			json.Unmarshal([]byte(tags), &p.Tags)
			json.Unmarshal([]byte(meta), &p.Metadata)
			if len(p.Metadata) == 0 {
				p.Metadata = nil
			}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Boost factors applied after fusion.
const (
	signalBoost     = 0.25 // per scope signal whose cues a span carries
	keywordBoost    = 0.15 // per keyword a span contains
	referencesScale = 0.5  // references sections rank low
)

// rankSpans applies the boosts and sorts candidates by score, best first.
func rankSpans(cs []*candidate, keywords, signals []string) {
	var kws []string
	for _, k := range keywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			kws = append(kws, k)
		}
	}
	for _, c := range cs {
		f := 1.0
		low := strings.ToLower(c.Text)
		for _, k := range kws {
			if strings.Contains(low, k) {
				f += keywordBoost
			}
		}
		for _, s := range signals {
			if signalCues[s].MatchString(c.Text) {
				f += signalBoost
			}
		}
		if c.Provenance.SectionType == "references" {
			f *= referencesScale
		}
		c.Score *= f
	}
	slices.SortStableFunc(cs, func(a, b *candidate) int { return bestFirst(&a.Span, &b.Span) })
}

// bestFirst orders spans by score, highest first, then by node id.
func bestFirst(a, b *Span) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(a.NodeID, b.NodeID)
}

// First and later sizes of the batches in which pack loads candidates.
const (
	firstBatch = 64
	maxBatch   = 512
)

// pack loads the ranked nodes a batch at a time, in order, applies the
// boosts (rankSpans) and takes spans while they fit the budget, skipping
// any whose text repeats or nearly repeats a span already taken; it stops
// loading once the budget is full. A loaded span is taken only when no
// node still unloaded could outrank it after boosts (its fused score times
// the largest boost), so the spans are those of ranking every node first.
func (m *Memory) pack(ctx context.Context, q query, hs []ranked, keywords, signals []string, budget int) (*RecallResult, error) {
	maxBoost := 1 + keywordBoost*float64(len(keywords)) + signalBoost*float64(len(signals))
	p := newPacker(budget)
	var pending []*candidate
	next, size := 0, firstBatch
	for !p.full() && (next < len(hs) || len(pending) > 0) {
		if next < len(hs) {
			batch := hs[next:min(next+size, len(hs))]
			next += len(batch)
			size = min(2*size, maxBatch)
			loaded, err := m.loadCandidates(ctx, q, batch)
			if err != nil {
				return nil, err
			}
			rankSpans(loaded, keywords, signals)
			pending = append(pending, loaded...)
			slices.SortStableFunc(pending, func(a, b *candidate) int { return bestFirst(&a.Span, &b.Span) })
		}
		bound := math.Inf(-1)
		if next < len(hs) {
			bound = hs[next].score * maxBoost
		}
		taken := 0
		for ; taken < len(pending) && pending[taken].Score > bound && !p.full(); taken++ {
			c := pending[taken]
			p.add(c.Span, c.kind+":"+strconv.FormatInt(c.ownerID, 10))
		}
		pending = pending[taken:]
	}
	return &p.res, nil
}

// packer fills a RecallResult within a token budget: the budget invariant
// and de-duplication of every recall live here.
type packer struct {
	budget int
	res    RecallResult
	// The sketches of the spans taken, indexed by what a repeat must share
	// with one of them (textSketch.repeats): its normalised text, its
	// source, or a number of distinct words within 10% of its own.
	norms   map[string]bool
	byOwner map[string][]textSketch
	bySize  map[int][]textSketch
}

func newPacker(budget int) *packer {
	return &packer{budget: budget, res: RecallResult{Spans: []Span{}},
		norms: map[string]bool{}, byOwner: map[string][]textSketch{}, bySize: map[int][]textSketch{}}
}

// add appends span s, whose text comes from source owner ("" for none),
// unless it does not fit what is left of the budget or repeats a span
// already taken; it reports whether s was added.
func (p *packer) add(s Span, owner string) bool {
	if s.Tokens <= 0 || s.Tokens > p.budget-p.res.TotalTokens {
		return false
	}
	t := sketch(s.Text, owner)
	if p.repeated(t) {
		return false
	}
	p.norms[t.norm] = true
	if owner != "" {
		p.byOwner[owner] = append(p.byOwner[owner], t)
	}
	p.bySize[len(t.words)] = append(p.bySize[len(t.words)], t)
	p.res.Spans = append(p.res.Spans, s)
	p.res.TotalTokens += s.Tokens
	return true
}

// repeated reports whether t repeats a span taken, looking only where a
// repeat can be.
func (p *packer) repeated(t textSketch) bool {
	if p.norms[t.norm] || t.owner != "" && slices.ContainsFunc(p.byOwner[t.owner], t.repeats) {
		return true
	}
	n := len(t.words)
	for m := n * 9 / 10; m*9 <= n*10; m++ {
		if m*10 >= n*9 && slices.ContainsFunc(p.bySize[m], t.repeats) {
			return true
		}
	}
	return false
}

// full reports whether no span can fit any more.
func (p *packer) full() bool { return p.res.TotalTokens >= p.budget }

// textSketch is a text normalised for de-duplication: the normalised text
// and the sorted hashes of its distinct words. owner names the source the
// text comes from ("" for none).
type textSketch struct {
	norm  string
	owner string
	words []uint64
}

func sketch(text, owner string) textSketch {
	norm := make([]byte, 0, len(text))
	var words []uint64
	start := -1 // where the current word begins in norm
	end := func() {
		if start >= 0 {
			words = append(words, fnv64a(norm[start:]))
			start = -1
		}
	}
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			end()
			continue
		}
		if start < 0 {
			if len(norm) > 0 {
				norm = append(norm, ' ')
			}
			start = len(norm)
		}
		norm = utf8.AppendRune(norm, unicode.ToLower(r))
	}
	end()
	slices.Sort(words)
	return textSketch{norm: string(norm), owner: owner, words: slices.Compact(words)}
}

// fnv64a is the 64-bit FNV-1a hash of s, without hash.Hash's allocation.
func fnv64a[T string | []byte](s T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// repeats reports whether t repeats u: the same normalised text, one text
// inside the other when both come from the same source (a claim and its
// passage), or at least 90% of their distinct words shared.
func (t textSketch) repeats(u textSketch) bool {
	if t.norm == u.norm {
		return true
	}
	if t.owner != "" && t.owner == u.owner && (strings.Contains(t.norm, u.norm) || strings.Contains(u.norm, t.norm)) {
		return true
	}
	a, b := t.words, u.words
	if len(a) == 0 || len(b) == 0 || min(len(a), len(b))*10 < max(len(a), len(b))*9 {
		return false // the overlap cannot reach 90% of the union
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return inter*10 >= 9*(len(a)+len(b)-inter)
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
