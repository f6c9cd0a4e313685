package recall

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/store"
)

// Packing, the last step of a recall: the ranked nodes are loaded with
// their text and provenance, boosted for the request's keywords and scope
// signals, and taken best first while they fit the token budget, leaving
// out text that repeats a span already taken. Paper recall (papers.go)
// loads its best papers' nodes as candidates are loaded here, and user
// recall (user.go) packs its memories with the same packer.

// candidateTexts returns the text and section heading of the best-ranked
// candidates, by fused score, for relevance.scale.
func candidateTexts(cs []*candidate) [][]string {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b *candidate) int { return bestFirst(&a.Span, &b.Span) })
	out := make([][]string, 0, coverTop)
	for _, c := range cs[:min(coverTop, len(cs))] {
		out = append(out, []string{c.Text, c.Provenance.Section})
	}
	return out
}

// candidate is a node considered for a recall.
type candidate struct {
	Span
	ownerID int64
	kind    string
	boost   float64 // the factor rankSpans applied to the score
}

// loadCandidates reads the ranked nodes hs that pass q's filters, with
// their provenance and fused score.
func (e *Engine) loadCandidates(ctx context.Context, q query, hs []ranked) ([]*candidate, error) {
	ids := make([]int64, len(hs))
	score := make(map[int64]float64, len(hs))
	for i, h := range hs {
		ids[i] = h.id
		score[h.id] = h.score
	}
	f := store.NodeFilter{Org: q.org, User: q.user, Label: q.label, Kind: q.kind, Domain: q.domain,
		SectionTypes: q.sectionTypes, Owners: q.owners}
	rows, err := store.Candidates(ctx, e.db, e.db.Engine(), &f, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*candidate, len(rows))
	for i := range rows {
		r := &rows[i]
		c := &candidate{ownerID: r.OwnerID, kind: r.Kind}
		c.NodeID, c.Num, c.Label, c.Text, c.Tokens, c.Score = r.ID, r.Num, r.Label, r.Text, r.Tokens, score[r.ID]
		c.Provenance = Provenance{Kind: r.Kind, DOI: r.DOI, Title: r.Title, Source: r.Source, Retracted: r.Retracted,
			Section: r.Section, SectionType: r.SectionType, Page: r.Page, Row: r.Row, Sheet: r.Sheet,
			CharStart: r.CharStart, CharEnd: r.CharEnd, IngestedAt: r.CreatedAt, Key: r.Key, OccurredAt: r.OccurredAt}
		if c.kind == KindMemory {
			p := &c.Provenance
			p.Tags, p.Metadata = store.Tags(r.Tags), store.Metadata(r.Metadata)
		}
		out[i] = c
	}
	return out, nil
}

// Boost factors applied after fusion.
const (
	signalBoost     = 0.25 // per scope signal whose cues a span carries
	keywordBoost    = 0.15 // per keyword a span contains
	referencesScale = 0.5  // references sections rank low
	retractedScale  = 0.1  // a retracted paper's spans rank below sound evidence
)

// Length penalties: an agent pays for every token, so of two spans that
// rank alike the shorter comes first, and the budget reaches more of the
// evidence. A span longer than a sentence's sentenceTokens scores times
// (sentenceTokens/tokens)^p: p is lengthPenalty for a passage among spans
// of every label (Any), so that of a passage and a sentence that rank
// alike the sentence comes first, and claimLengthPenalty for a claim in
// any recall, a nudge among claims whose scores inside one paper lie
// close together. Chosen on the odd QASPER papers (devtools/cmd/qasper;
// docs/measurements.md): for passages 0.1, 0.2 and 0.3 did the same; for
// claims 0.01 raised para at 700 to 1,500 tokens for both labels, where
// 0.1 on every span had cost strict 0.03.
const (
	sentenceTokens     = 30
	lengthPenalty      = 0.1
	claimLengthPenalty = 0.01
)

// rankSpans applies the boosts, the length penalties (a passage's only
// when the spans are of every label, mixed) and, when the question asks
// for a quantity, quantityScale to spans without a numeral, and sorts
// candidates by score, best first.
func rankSpans(cs []*candidate, keywords, signals []string, mixed, quantity bool) {
	var kws []string
	for _, k := range keywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			kws = append(kws, k)
		}
	}
	for _, c := range cs {
		f := 1.0
		if len(kws) > 0 {
			low := strings.ToLower(c.Text)
			for _, k := range kws {
				if strings.Contains(low, k) {
					f += keywordBoost
				}
			}
		}
		for _, s := range signals {
			if signalCues[s].MatchString(c.Text) {
				f += signalBoost
			}
		}
		if quantity && !numeral.MatchString(c.Text) {
			f *= quantityScale
		}
		if c.Provenance.SectionType == "references" {
			f *= referencesScale
		}
		if c.Provenance.Retracted {
			f *= retractedScale
		}
		if c.Tokens > sentenceTokens {
			switch {
			case c.Label == LabelClaim:
				f *= math.Pow(sentenceTokens/float64(c.Tokens), claimLengthPenalty)
			case mixed:
				f *= math.Pow(sentenceTokens/float64(c.Tokens), lengthPenalty)
			}
		}
		c.Score *= f
		c.boost = f
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

// pack loads the ranked nodes a batch at a time, in order (batches), applies
// the boosts (rankSpans) and takes spans while they fit the budget, skipping
// any whose text repeats or nearly repeats a span already taken; it stops
// loading once the budget is full. A loaded span is taken only when no
// node still unloaded could outrank it after boosts (its fused score times
// the largest boost), so the spans are those of ranking every node first.
// Scores are put on rel's scale once the first batch is ranked: a recall
// whose relevance is under MinScore takes nothing, one of low relevance no
// more than that relevance's token limit, and a span under MinSpanScore
// (but with Budget.Fill) or much weaker than the best taken (packer.ends)
// ends the packing (relevance.go).
//
// The score every candidate shares (common: the paper context that all of
// them got) is left out of the scale: a span scores rel times its boosted
// score less common (boosted alike) over the best rank score less common,
// and no more than the span before it.
func (e *Engine) pack(ctx context.Context, q query, hs []ranked, common float64, keywords, signals []string, budget Budget, rel relevance) (*Result, error) {
	maxBoost := 1 + keywordBoost*float64(len(keywords)) + signalBoost*float64(len(signals))
	p := newPacker(budget, rel.weight)
	var pending []*candidate
	scale := -1.0       // the factor from rank scores to rel's scale, once known
	prev := math.Inf(1) // the score of the span before
	b := newBatches(hs)
	for !p.full() && (b.more() || len(pending) > 0) {
		if b.more() {
			loaded, err := b.load(ctx, e, q)
			if err != nil {
				return nil, err
			}
			if scale < 0 {
				var ok bool
				var limit int
				if scale, limit, ok = rel.scale(hs[0].score-common, candidateTexts(loaded)); !ok {
					return &p.res, nil // memory holds nothing about the question
				}
				p.budget = min(p.budget, limit)
			}
			rankSpans(loaded, keywords, signals, q.label == "", q.quantity)
			pending = append(pending, loaded...)
			slices.SortStableFunc(pending, func(a, b *candidate) int { return bestFirst(&a.Span, &b.Span) })
		}
		bound := b.nextScore() * maxBoost
		taken := 0
		for ; taken < len(pending) && pending[taken].Score > bound && !p.full(); taken++ {
			c := pending[taken]
			s, owner := c.Span, c.kind+":"+strconv.FormatInt(c.ownerID, 10)
			s.Score = min(max(s.Score-common*c.boost, 0)*scale, prev)
			if prev = s.Score; p.under(s.Score, owner) || p.ends(&s, owner) {
				return &p.res, nil
			}
			p.add(s, owner)
		}
		pending = pending[taken:]
	}
	return &p.res, nil
}

// batches hands out ranked nodes to load, in order, a batch at a time,
// each one larger than the last, leaving out the copies of a text loaded
// already (the same label, section type and text: nodeindex.Node.Copy).
// Copies rank alike, the first highest, and are boosted alike, so the
// packer would take the first and skip the others as repeats; a workspace
// that holds a text many times over would load them all for nothing. A
// copy is loaded after all when the first did not load (the node is gone)
// or comes from a retracted paper, whose spans rank lower.
type batches struct {
	hs     []ranked
	next   int // the position in hs of the next node to hand out
	size   int // the size of the next batch
	copies map[uint64]copyState
}

// copyState is what a batch knows of a text's copies.
type copyState uint8

const (
	copyNone    copyState = iota // none handed out yet
	copyLoading                  // one is in the batch being loaded
	copyLoaded                   // one loaded, from a sound source: the others are left out
	copyEach                     // each is loaded
)

// newBatches returns the batches of hs, the first of firstBatch nodes.
func newBatches(hs []ranked) *batches {
	return &batches{hs: hs, size: firstBatch, copies: map[uint64]copyState{}}
}

// more reports whether nodes are left to load.
func (b *batches) more() bool { return b.next < len(b.hs) }

// nextScore returns the fused score of the next node to load, the best
// of those left; -Inf when none is.
func (b *batches) nextScore() float64 {
	if !b.more() {
		return math.Inf(-1)
	}
	return b.hs[b.next].score
}

// load returns the candidates of the next batch (Engine.loadCandidates),
// the copies it held back included when they must load after all.
func (b *batches) load(ctx context.Context, e *Engine, q query) ([]*candidate, error) {
	var batch, held []ranked
	for ; b.more() && len(batch) < b.size; b.next++ {
		h := b.hs[b.next]
		switch b.copies[h.copy] {
		case copyNone:
			b.copies[h.copy] = copyLoading
		case copyLoading:
			held = append(held, h)
			continue
		case copyLoaded:
			continue
		}
		batch = append(batch, h)
	}
	b.size = min(2*b.size, maxBatch)
	loaded, err := e.loadCandidates(ctx, q, batch)
	if err != nil {
		return nil, err
	}
	sound := make(map[int64]bool, len(loaded))
	for _, c := range loaded {
		sound[c.NodeID] = !c.Provenance.Retracted
	}
	for _, h := range batch {
		if b.copies[h.copy] == copyLoading {
			b.copies[h.copy] = copyEach
			if sound[h.id] {
				b.copies[h.copy] = copyLoaded
			}
		}
	}
	held = slices.DeleteFunc(held, func(h ranked) bool { return b.copies[h.copy] == copyLoaded })
	for b.more() && b.copies[b.hs[b.next].copy] == copyLoaded {
		b.next++ // so that the bound on what is left to load is the next node's score
	}
	if len(held) == 0 {
		return loaded, nil
	}
	again, err := e.loadCandidates(ctx, q, held)
	return append(loaded, again...), err
}

// packer fills a Result within a token budget: the budget invariant,
// the stop and de-duplication of every recall live here.
type packer struct {
	budget    int
	fill      bool               // Budget.Fill: no stop
	minTokens int                // Budget.MinTokens
	best      float64            // the best score of the spans taken
	words     map[string]float64 // the question's words, as relevance weighs them (nil: none)
	covered   map[string]bool    // those the spans taken hold
	res       Result
	// The sketches of the spans taken, indexed by what a repeat must share
	// with one of them (textSketch.repeats): its normalised text, its
	// source, or a number of distinct words within 10% of its own.
	norms   map[string]bool
	byOwner map[string][]textSketch
	bySize  map[int][]textSketch
}

// newPacker returns a packer of budget b; words are the question's words
// (relevance.weight), which the stop reads.
func newPacker(b Budget, words map[string]float64) *packer {
	return &packer{budget: b.Tokens, fill: b.Fill, minTokens: min(b.MinTokens, b.Tokens), res: Result{Spans: []Span{}},
		words: words, covered: map[string]bool{},
		norms: map[string]bool{}, byOwner: map[string][]textSketch{}, bySize: map[int][]textSketch{}}
}

// ends reports whether span s, scored on the relevance scale, from source
// owner ("" for a user's memories) ends the answer before it is taken (see
// StopRatio): not when the request asks for the whole budget, nor before
// MinTokens are taken, nor while the answer draws on owner alone (sole:
// it is read as a fixed budget of depth tokens reads it), nor when it
// holds a word of the question that the spans taken lack, one rarer than
// the common words relevance weighs least (the answer goes on until the
// question's words are covered; "help" or "study" alone bring no span
// about another subject).
func (p *packer) ends(s *Span, owner string) bool {
	if p.fill || len(p.res.Spans) == 0 || p.res.TotalTokens < p.minTokens || p.sole(owner) {
		return false
	}
	_, taken := p.byOwner[owner]
	ratio := SourceStopRatio
	switch {
	case owner == "":
		ratio = UserStopRatio
	case taken:
		ratio = StopRatio
	}
	return s.Score < ratio*p.best && !p.adds(s)
}

// sole reports whether the answer draws on source owner alone so far, a
// paper, document or analysis (not a user's memories), and the request
// does not ask for the whole budget: a span of it is then taken when it
// fits the depth, as a fixed budget of depth tokens would take it (see
// SourceDepth).
func (p *packer) sole(owner string) bool {
	_, taken := p.byOwner[owner]
	return !p.fill && taken && len(p.byOwner) == 1
}

// depth returns the tokens to which an answer that draws on one source
// reads it: max(min(budget, SourceDepth), SourceShare of the budget), no
// fewer than MinTokens, no more than the budget.
func (p *packer) depth() int {
	d := max(min(p.budget, SourceDepth), int(SourceShare*float64(p.budget)), p.minTokens)
	return min(d, p.budget)
}

// adds reports whether span s holds a word of the question that the spans
// taken lack, one that weighs more than a common word (minWeight).
func (p *packer) adds(s *Span) bool {
	added := false
	eachTerm(s, func(t string) {
		if w, ok := p.words[t]; ok && w > minWeight && !p.covered[t] {
			added = true
		}
	})
	return added
}

// eachTerm calls f with each term of a span's text and section heading, as
// the node index makes terms.
func eachTerm(s *Span, f func(term string)) {
	ftsterm.Terms(s.Text, f)
	ftsterm.Terms(s.Provenance.Section, f)
}

// under reports whether a span scoring score, from source owner ("" for a
// user's memories), is left out for scoring under MinSpanScore, as it is
// unless the request asks for the whole budget or the answer draws on
// owner alone (sole).
func (p *packer) under(score float64, owner string) bool {
	return !p.fill && score < MinSpanScore && !p.sole(owner)
}

// add appends span s, whose text comes from source owner ("" for none),
// unless it does not fit what is left of the budget (of the depth, when
// the answer draws on owner alone: sole) or repeats a span already taken;
// it reports whether s was added.
func (p *packer) add(s Span, owner string) bool {
	limit := p.budget
	if p.sole(owner) {
		limit = p.depth()
	}
	if s.Tokens <= 0 || s.Tokens > limit-p.res.TotalTokens {
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
	p.best = max(p.best, s.Score)
	if p.words != nil && !p.fill {
		eachTerm(&s, func(t string) {
			if _, ok := p.words[t]; ok {
				p.covered[t] = true
			}
		})
	}
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
	for i := 0; i < len(text); {
		// ASCII, most of any text, is read a byte at a time.
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		if !wordRune(r) {
			end()
			continue
		}
		if start < 0 {
			if len(norm) > 0 {
				norm = append(norm, ' ')
			}
			start = len(norm)
		}
		if r < utf8.RuneSelf {
			norm = append(norm, byte(unicode.ToLower(r)))
		} else {
			norm = utf8.AppendRune(norm, unicode.ToLower(r))
		}
	}
	end()
	slices.Sort(words)
	return textSketch{norm: string(norm), owner: owner, words: slices.Compact(words)}
}

// wordRune reports whether r belongs to a word: a letter or a digit, as
// unicode says, with ASCII answered without its tables.
func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
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
