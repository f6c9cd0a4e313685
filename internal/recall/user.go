package recall

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/nodeindex"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/terms"
)

// Conversational recall over one user's memories. The full (hybrid) recall
// works in five steps:
//
//  1. The question is analysed: its content words become weighted terms,
//     stemmed as FTS5 stems them (names and other capitalised words,
//     numbers and keywords weigh more), and cues tell whether it asks about
//     time and which months or years it names.
//  2. Candidates come from the node index, with the user's own document
//     frequencies: the memories that contain the question's informative
//     terms (those rare among the user's memories) best by weighted BM25,
//     and the memories nearest to the question's IDF-weighted vector.
//  3. Each candidate's weighted BM25 is fused with its cosine similarity;
//     a question about time favours memories that carry dates or time
//     expressions and those of the periods it names.
//  4. The best hits bring their neighbours, the memories just before and
//     after them in the same session: a neighbour's score grows by the
//     hit's times neighbourDecay for each step away.
//  5. Spans are packed, best first, into the token budget, skipping text
//     that repeats a span already taken.
//
// BM25-only and vector-only recall (Retrieval) rank by one source alone,
// without steps 3 and 4, to measure what each contributes.

// Tuning of the conversational ranking, chosen on LoCoMo (devtools/cmd/locomo).
const (
	memLexicalPool  = 150  // BM25 candidates
	memVectorPool   = 200  // nearest-vector candidates
	commonShare     = 0.25 // terms in more of the memories do not select candidates
	entityWeight    = 2.0  // weight of a capitalised (name-like) question word
	numberWeight    = 1.5  // weight of a number in the question
	keywordWeight   = 1.5  // weight of a word from the request's keywords
	vectorShare     = 0.25 // share of the cosine similarity in the fused score
	datedBoost      = 0.1  // time question: memories with an occurred_at
	temporalBoost   = 0.3  // time question: memories with time expressions
	periodBoost     = 0.3  // memories from a month or year the question names
	neighbourHits   = 15   // hits whose neighbours are brought
	neighbourWindow = 2    // memories on each side of a hit
	neighbourDecay  = 0.6  // added to a neighbour's score: this share of its hit's per step
)

// memCand is a memory considered for a user recall.
type memCand struct {
	Span
	memID    int64
	session  string
	occurred string
	tags     string  // JSON, decoded into Provenance once packed
	meta     string  // JSON, decoded into Provenance once packed
	lex      float64 // weighted BM25 for the question
	cos      float64 // cosine similarity to the question
}

// memHit is a candidate memory node with its score in the one search of a
// single-source recall, or its BM25 and cosine for the full recall.
type memHit struct {
	id              int64
	score, lex, cos float64
}

// memQuery is the analysed question.
type memQuery struct {
	text     string           // question and keywords
	terms    []nodeindex.Term // weighted content words, as FTS5 and the node index make terms
	temporal bool             // the question asks about time
	quantity bool             // the question asks how many or how much (quantityScale)
	periods  []string         // "2006", "2006-01" or "-01" prefixes of occurred_at it names
}

// UserRequest asks for the memories of user User of workspace Org that
// answer Question within Budget tokens. The caller has validated it as it
// validates a Request.
type UserRequest struct {
	Workspace, User string
	Question        string
	Keywords        []string // extra terms
	Budget          Budget
	Retrieval       Retrieval
}

// RecallUser ranks the memories of req.User for the question, and only
// theirs, and packs them into the budget.
func (e *Engine) RecallUser(ctx context.Context, req UserRequest) (*Result, error) {
	org, user := req.Workspace, req.User
	q := analyseQuestion(req.Question, req.Keywords)
	p, err := e.index.Part(ctx, org)
	if err != nil {
		return nil, err
	}
	var hits []memHit
	switch req.Retrieval {
	case Lexical, Vector:
		hits, err = e.memorySource(ctx, p, user, q.text, req.Retrieval)
	default:
		hits, err = e.memoryCandidates(ctx, p, user, &q)
	}
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 {
		return &Result{Spans: []Span{}}, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	loaded, err := e.loadMemories(ctx, org, user, ids)
	if err != nil {
		return nil, err
	}
	byNode := make(map[int64]*memCand, len(loaded))
	for _, c := range loaded {
		byNode[c.NodeID] = c
	}
	for _, h := range hits {
		if c := byNode[h.id]; c != nil {
			c.Score = h.score
			c.lex, c.cos = h.lex, h.cos
		}
	}
	if req.Retrieval == Hybrid {
		scoreMemories(loaded, q)
		if loaded, err = e.addNeighbours(ctx, org, user, loaded); err != nil {
			return nil, err
		}
	}
	sortSpans(loaded)
	return packMemories(loaded, req.Budget, newRelevance(req.Question, p, user)), nil
}

// questionFiller are words of questions that say what kind of answer is
// wanted rather than what it is about.
var questionFiller = map[string]bool{"kind": true, "kinds": true, "type": true, "types": true, "sort": true,
	"likely": true, "ever": true, "thing": true, "things": true, "something": true, "anything": true,
	"many": true, "much": true}

// analyseQuestion turns the question and keywords into weighted terms and
// temporal cues.
func analyseQuestion(question string, keywords []string) memQuery {
	q := memQuery{text: searchText(question, keywords)}
	at := map[string]int{}
	addTerm := func(word string, weight float64) {
		term := ftsterm.Term(word)
		if i, ok := at[term]; ok {
			q.terms[i].Weight = max(q.terms[i].Weight, weight)
			return
		}
		at[term] = len(q.terms)
		q.terms = append(q.terms, nodeindex.Term{Term: term, Weight: weight})
	}
	for i, raw := range rawWords(question) {
		word := strings.ToLower(raw)
		if terms.Stop[word] || questionFiller[word] {
			continue
		}
		weight := 1.0
		switch r := []rune(raw); {
		case unicode.IsDigit(r[0]):
			weight = numberWeight
		case unicode.IsUpper(r[0]) && (i > 0 || len(r) > 1 && unicode.IsUpper(r[1])):
			weight = entityWeight
		}
		addTerm(word, weight)
	}
	for _, k := range keywords {
		for _, word := range terms.Content(k) {
			addTerm(word, keywordWeight)
		}
	}
	raw := rawWords(question)
	q.temporal = asksTime(raw)
	q.quantity = asksQuantity(question)
	q.periods = namedPeriods(raw)
	return q
}

// rawWords returns the runs of letters and digits of s, as written.
func rawWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// monthNames are the English month names, January first.
var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december"}

// timeQuestionWords mark a question about time, besides timeWords and
// years.
var timeQuestionWords = wordSet(`when since until date dates day days week weeks month months year years`)

// asksTime reports whether a question, as its raw words, asks about time:
// "when", "how long", a date word, a year. "May" counts only capitalised.
func asksTime(raw []string) bool {
	for i, r := range raw {
		w := strings.ToLower(r)
		switch {
		case w == "may":
			if r == "May" && i > 0 {
				return true
			}
		case w == "long":
			if i > 0 && strings.EqualFold(raw[i-1], "how") {
				return true
			}
		case timeQuestionWords[w] || timeWords[w]:
			return true
		case isYear(w):
			return true
		}
	}
	return false
}

// timeWords are words that on their own place an event in time.
var timeWords = wordSet(`yesterday today tonight tomorrow ago recently lately weekend weekends
	january february march april may june july august september october november december
	monday tuesday wednesday thursday friday saturday sunday`)

// timeDeictics start a time expression when a timeUnits word follows
// ("last week"); timeCounts do when a plural unit follows ("two years").
var (
	timeDeictics = wordSet(`last next this past coming previous`)
	timeCounts   = wordSet(`a an one two three four five six seven eight nine ten few several couple`)
	timeUnits    = wordSet(`night morning evening afternoon day days week weeks weekend month months year years
		summer winter spring fall autumn time monday tuesday wednesday thursday friday saturday sunday`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// mentionsTime reports whether words (lower-case, in order) contain a time
// expression: a date word, a year, "last week", "two years" and the like.
func mentionsTime(words []string) bool {
	for i, w := range words {
		switch {
		case timeWords[w] && w != "may":
			return true
		case isYear(w):
			return true
		case i > 0 && timeUnits[w] && (timeDeictics[words[i-1]] || (timeCounts[words[i-1]] || isDigits(words[i-1])) && strings.HasSuffix(w, "s")):
			return true
		}
	}
	return false
}

// isYear reports whether w is a year from 1900 to 2099.
func isYear(w string) bool {
	return len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) && isDigits(w)
}

func isDigits(w string) bool {
	return w != "" && strings.Trim(w, "0123456789") == ""
}

// namedPeriods returns the occurred_at prefixes of the periods a question
// (as its raw words) names: "2023" for a year, "2023-05" for a month and
// year, "-05" for a month alone.
func namedPeriods(raw []string) []string {
	var years, months []string
	for _, r := range raw {
		w := strings.ToLower(r)
		if isYear(w) {
			years = append(years, w)
		}
		if i := slices.Index(monthNames, w); i >= 0 && (w != "may" || r == "May") {
			months = append(months, fmt.Sprintf("-%02d", i+1))
		}
	}
	var out []string
	switch {
	case len(months) == 0:
		out = years
	case len(years) == 0:
		out = months
	default:
		for _, y := range years {
			for _, m := range months {
				out = append(out, y+m)
			}
		}
	}
	return out
}

// inPeriod reports whether occurred_at falls in one of the periods.
func inPeriod(occurred string, periods []string) bool {
	for _, p := range periods {
		switch {
		case strings.HasPrefix(p, "-"):
			if len(occurred) >= 7 && occurred[4:7] == p {
				return true
			}
		case strings.HasPrefix(occurred, p):
			return true
		}
	}
	return false
}

// memorySource returns the memories of user that one search alone finds
// for text: BM25 (Lexical) or the cosine similarity of the IDF-weighted
// question vector (Vector).
func (e *Engine) memorySource(ctx context.Context, p *nodeindex.Part, user, text string, r Retrieval) ([]memHit, error) {
	var err error
	var hits []nodeindex.Hit
	if r == Lexical {
		hits = p.Lexical(nodeindex.Query{User: user, Label: LabelMemory, K: memLexicalPool}, text)
	} else {
		var qv []float32
		if qv, err = e.embedQuery(ctx, p, user, text); err == nil {
			hits, err = p.Nearest(nodeindex.Query{User: user, Label: LabelMemory, K: memVectorPool}, qv)
		}
	}
	out := make([]memHit, len(hits))
	for i, h := range hits {
		out[i] = memHit{id: h.ID, score: h.Score}
	}
	return out, err
}

// memoryCandidates returns the candidates of the full recall with their
// weighted BM25 and cosine similarity: the memLexicalPool best by weighted
// BM25 among the memories that contain an informative term (one in at
// most commonShare of the user's memories; any term when none is), and
// the memVectorPool nearest to the question's vector, each word of which
// weighs by its IDF among the user's memories. Common terms select no
// candidate but count in every BM25 score. Everything comes from the node
// index.
func (e *Engine) memoryCandidates(ctx context.Context, p *nodeindex.Part, user string, q *memQuery) ([]memHit, error) {
	best, lexOf := p.WeightedBM25(nodeindex.Query{User: user, Label: LabelMemory, K: memLexicalPool}, q.terms, commonShare)
	if lexOf == nil {
		return nil, nil // the user has no memories
	}
	qv, err := e.embedQuery(ctx, p, user, q.text)
	if err != nil {
		return nil, err
	}
	vec, err := p.Nearest(nodeindex.Query{User: user, Label: LabelMemory, K: memVectorPool}, qv)
	if err != nil {
		return nil, err
	}
	out := make([]memHit, 0, len(best)+len(vec))
	seen := make(map[int64]bool, len(best)+len(vec))
	for _, h := range best {
		cos, ok, err := p.Cosine(h.ID, qv)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, memHit{id: h.ID, lex: h.Score, cos: max(cos, 0)})
			seen[h.ID] = true
		}
	}
	for _, h := range vec {
		if !seen[h.ID] {
			out = append(out, memHit{id: h.ID, lex: lexOf[h.ID], cos: h.Score})
		}
	}
	return out, nil
}

// scoreMemories gives each candidate its fused score: its BM25 and cosine
// similarity, each divided by the best among the candidates, weighed by
// vectorShare, then the boosts of time questions and named periods, and
// quantityScale for a memory without a numeral when the question asks how
// many or how much.
func scoreMemories(cs []*memCand, q memQuery) {
	var maxLex, maxCos float64
	for _, c := range cs {
		maxLex, maxCos = max(maxLex, c.lex), max(maxCos, c.cos)
	}
	for _, c := range cs {
		s := 0.0
		if maxLex > 0 {
			s += (1 - vectorShare) * c.lex / maxLex
		}
		if maxCos > 0 {
			s += vectorShare * c.cos / maxCos
		}
		if q.temporal {
			f := 1.0
			if c.occurred != "" {
				f += datedBoost
			}
			if mentionsTime(terms.Words(c.Text)) {
				f += temporalBoost
			}
			s *= f
		}
		if len(q.periods) > 0 && inPeriod(c.occurred, q.periods) {
			s *= 1 + periodBoost
		}
		if q.quantity && !numeral.MatchString(c.Text) {
			s *= quantityScale
		}
		c.Score = s
	}
}

// addNeighbours brings, for each of the best hits, the memories next to it
// in its session: a neighbour's score grows by the hit's score times
// neighbourDecay per step away (the largest such share when several hits
// reach it), and a neighbour that was not a candidate enters with that
// share alone.
func (e *Engine) addNeighbours(ctx context.Context, org, user string, cs []*memCand) ([]*memCand, error) {
	sortSpans(cs)
	byNode := make(map[int64]*memCand, len(cs))
	byMem := make(map[int64]*memCand, len(cs))
	for _, c := range cs {
		byNode[c.NodeID], byMem[c.memID] = c, c
	}
	var ids []int64
	for _, c := range cs[:min(len(cs), neighbourHits)] {
		if c.session != "" && c.Score > 0 {
			ids = append(ids, c.memID)
		}
	}
	if len(ids) == 0 {
		return cs, nil
	}
	near, err := store.MemoryNeighbours(ctx, e.db, e.db.Engine(), org, user, ids, neighbourWindow)
	if err != nil {
		return nil, err
	}
	want := map[int64]float64{} // node id -> score it would get
	for _, nb := range near {
		for _, side := range [][]int64{nb.Before, nb.After} {
			s := byMem[nb.Memory].Score
			for _, id := range side {
				s *= neighbourDecay
				want[id] = max(want[id], s)
			}
		}
	}
	var missing []int64
	for id, s := range want {
		if c := byNode[id]; c != nil {
			c.Score += s
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return cs, nil
	}
	more, err := e.loadMemories(ctx, org, user, missing)
	if err != nil {
		return nil, err
	}
	for _, c := range more {
		c.Score = want[c.NodeID]
	}
	return append(cs, more...), nil
}

// loadMemories returns the memories of org's user with the given node ids,
// as spans with provenance, from the memory row cache or else the
// database.
func (e *Engine) loadMemories(ctx context.Context, org, user string, ids []int64) ([]*memCand, error) {
	out, missing := e.memRows.get(org, user, ids)
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := store.MemoryNodes(ctx, e.db, e.db.Engine(), org, user, missing)
	if err != nil {
		return nil, err
	}
	loaded := make([]memCand, len(rows))
	for i := range rows {
		r, c := &rows[i], &loaded[i]
		c.NodeID, c.Num, c.Label, c.Text, c.Tokens = r.NodeID, r.Num, LabelMemory, r.Text, r.Tokens
		c.Provenance = Provenance{Kind: KindMemory, CharEnd: r.CharEnd, IngestedAt: r.CreatedAt, Key: r.Key, OccurredAt: r.OccurredAt}
		c.memID, c.session, c.occurred, c.tags, c.meta = r.MemoryID, r.Session, r.OccurredAt, r.Tags, r.Metadata
	}
	e.memRows.put(org, user, loaded)
	for i := range loaded {
		out = append(out, &loaded[i])
	}
	return out, nil
}

// memoryRows caches, by node id, the memory rows user recall reads. A
// memory node's row never changes: remembering a key again replaces the
// node, node ids are never reused, and a deleted node is never a candidate
// again (the node index drops it), so entries need no invalidation. Each
// entry keeps its workspace and user, which a lookup must match. The cache
// empties itself before it would hold more than maxMemoryRows entries.
type memoryRows struct {
	mu   sync.Mutex
	rows map[int64]memoryRow
}

// memoryRow is one cached row.
type memoryRow struct {
	org, user string
	c         memCand
}

// maxMemoryRows bounds the memory row cache.
const maxMemoryRows = 50000

// get returns copies of the cached rows of ids for workspace org and user,
// and the ids it does not hold.
func (r *memoryRows) get(org, user string, ids []int64) (found []*memCand, missing []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	found = make([]*memCand, 0, len(ids))
	for _, id := range ids {
		row, ok := r.rows[id]
		if !ok || row.org != org || row.user != user {
			missing = append(missing, id)
			continue
		}
		c := row.c
		found = append(found, &c)
	}
	return found, missing
}

// put caches rows read for workspace org and user.
func (r *memoryRows) put(org, user string, cs []memCand) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows == nil || len(r.rows)+len(cs) > maxMemoryRows {
		r.rows = make(map[int64]memoryRow, len(cs))
	}
	for _, c := range cs {
		r.rows[c.NodeID] = memoryRow{org: org, user: user, c: c}
	}
}

// sortSpans orders candidates by score, best first, then by node id.
func sortSpans(cs []*memCand) {
	slices.SortStableFunc(cs, func(a, b *memCand) int { return bestFirst(&a.Span, &b.Span) })
}

// dateWords writes a memory's event time as a question names a day ("7
// May 2023"), for the relevance scale; "" for none.
func dateWords(occurred string) string {
	if occurred == "" {
		return ""
	}
	t, err := api.ParseTime(occurred)
	if err != nil {
		return ""
	}
	return t.Format("2 January 2006")
}

// packMemories takes spans in score order while they fit the budget, do
// not end the answer (packer.ends) and score at least MinSpanScore on
// rel's scale (any score with Budget.Fill), none when the recall's
// relevance is under MinScore and no more than its token limit
// (relevance.go), skipping any whose text repeats or nearly repeats one
// already taken, and decodes the provenance of those it takes. A memory's
// event day counts as its heading.
func packMemories(cs []*memCand, budget Budget, rel relevance) *Result {
	p := newPacker(budget, rel.weight)
	if len(cs) == 0 {
		return &p.res
	}
	var texts [][]string
	for _, c := range cs[:min(coverTop, len(cs))] {
		texts = append(texts, []string{c.Text, dateWords(c.occurred)})
	}
	scale, limit, ok := rel.scale(cs[0].Score, texts)
	if !ok {
		return &p.res // the user's memories hold nothing about the question
	}
	p.budget = min(p.budget, limit)
	for _, c := range cs {
		if c.Score *= scale; p.full() || p.under(c.Score, "") || p.ends(&c.Span, "") {
			break
		}
		if !p.add(c.Span, "") {
			continue
		}
		prov := &p.res.Spans[len(p.res.Spans)-1].Provenance
		prov.Tags, prov.Metadata = store.Tags(c.tags), store.Metadata(c.meta)
	}
	return &p.res
}
