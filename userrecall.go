package papermem

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/papermem/papermem/internal/terms"
)

// Conversational recall over one user's memories. The full (hybrid) recall
// works in five steps:
//
//  1. The question is analysed: its content words become weighted terms
//     (names and other capitalised words, numbers and keywords weigh more),
//     and cues tell whether it asks about time and which months or years it
//     names.
//  2. Candidates come from FTS5 (BM25 over the user's memories) and from a
//     kNN over the user's vectors.
//  3. Each candidate is rescored with BM25 computed from the user's own
//     document frequencies and the term weights, fused with its cosine
//     similarity; a question about time favours memories that carry dates
//     or time expressions and those of the periods it names.
//  4. The best hits bring their neighbours, the memories just before and
//     after them in the same session, at a fraction of their score.
//  5. Spans are packed, best first, into the token budget.
//
// BM25-only and vector-only recall (Retrieval) rank by one source alone,
// without steps 3 and 4, to measure what each contributes.

// Tuning of the conversational ranking.
const (
	memLexicalPool  = 300  // FTS5 candidates
	memVectorPool   = 100  // kNN candidates
	bm25K1          = 1.2  // BM25 term-frequency saturation
	bm25B           = 0.75 // BM25 length normalisation
	entityWeight    = 2.0  // weight of a capitalised (name-like) question word
	numberWeight    = 1.5  // weight of a number in the question
	keywordWeight   = 1.5  // weight of a word from the request's keywords
	vectorShare     = 0.25 // share of the cosine similarity in the fused score
	datedBoost      = 0.1  // time question: memories with an occurred_at
	temporalBoost   = 0.3  // time question: memories with time expressions
	periodBoost     = 0.3  // memories from a month or year the question names
	neighbourHits   = 20   // hits whose neighbours are brought
	neighbourWindow = 1    // memories on each side of a hit
	neighbourDecay  = 0.6  // a neighbour's score as a share of its hit's
)

// memCand is a memory considered for a user recall.
type memCand struct {
	Span
	memID    int64
	session  string
	seq      float64
	occurred string
	lexRank  int     // 1-based FTS5 rank; 0 when FTS5 did not return it
	cos      float64 // cosine similarity to the question; 0 when kNN did not return it
}

// memTerm is a weighted content word of the question.
type memTerm struct {
	word   string // lower-case, as searched in FTS5
	stem   string // light stem, as matched in memory text
	weight float64
	idf    float64 // from the user's own memories
}

// memQuery is the analysed question.
type memQuery struct {
	text     string // question and keywords
	terms    []memTerm
	temporal bool     // the question asks about time
	periods  []string // "2006", "2006-01" or "-01" prefixes of occurred_at it names
}

// recallMemories ranks the memories of user for r (validated, with Label
// LabelMemory) and packs them into the budget.
func (w *Workspace) recallMemories(ctx context.Context, user string, r RecallRequest) (*RecallResult, error) {
	q := analyseQuestion(r.Question, r.Keywords)
	cands := map[int64]*memCand{}
	var ids []int64
	add := func(id int64) *memCand {
		c := cands[id]
		if c == nil {
			c = &memCand{}
			c.NodeID = id
			cands[id] = c
			ids = append(ids, id)
		}
		return c
	}
	if r.Retrieval != RetrievalVector {
		lex, err := w.m.lexical(ctx, query{org: w.org, user: user, label: LabelMemory, limit: memLexicalPool}, q.text)
		if err != nil {
			return nil, err
		}
		for i, h := range lex {
			add(h.id).lexRank = i + 1
		}
	}
	if r.Retrieval != RetrievalLexical {
		hits, err := w.memoryVector(ctx, user, q.text, memVectorPool)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			add(h.id).cos = h.score
		}
	}
	if len(ids) == 0 {
		return &RecallResult{Spans: []Span{}}, nil
	}
	loaded, err := w.loadMemories(ctx, user, "n.id", ids)
	if err != nil {
		return nil, err
	}
	for _, c := range loaded {
		f := cands[c.NodeID]
		c.lexRank, c.cos = f.lexRank, f.cos
		switch r.Retrieval {
		case RetrievalLexical:
			c.Score = 1 / float64(rrfK+c.lexRank)
		case RetrievalVector:
			c.Score = c.cos
		}
	}
	if r.Retrieval == RetrievalHybrid {
		if err := w.userIDF(ctx, user, q.terms); err != nil {
			return nil, err
		}
		scoreMemories(loaded, q)
		if loaded, err = w.addNeighbours(ctx, user, loaded); err != nil {
			return nil, err
		}
	}
	sortSpans(loaded)
	return packMemories(loaded, r.BudgetTokens), nil
}

// questionFiller are words of questions that say what kind of answer is
// wanted rather than what it is about.
var questionFiller = map[string]bool{"kind": true, "kinds": true, "type": true, "types": true, "sort": true,
	"likely": true, "ever": true, "thing": true, "things": true, "something": true, "anything": true,
	"many": true, "much": true}

// analyseQuestion turns the question and keywords into weighted terms and
// temporal cues.
func analyseQuestion(question string, keywords []string) memQuery {
	q := memQuery{text: strings.TrimSpace(question + " " + strings.Join(keywords, " "))}
	at := map[string]int{}
	addTerm := func(word string, weight float64) {
		if i, ok := at[word]; ok {
			q.terms[i].weight = max(q.terms[i].weight, weight)
			return
		}
		at[word] = len(q.terms)
		q.terms = append(q.terms, memTerm{word: word, stem: lightStem(word), weight: weight})
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
	q.temporal = timeQuestion.MatchString(question)
	q.periods = namedPeriods(question)
	return q
}

// rawWords returns the runs of letters and digits of s, as written.
func rawWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// lightStem strips common English inflections (plural, -ing, -ed) so that
// inflected forms of a word share a stem.
func lightStem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
		if strings.HasSuffix(w, "e") && (strings.HasSuffix(w, "sse") || strings.HasSuffix(w, "xe") || strings.HasSuffix(w, "che") || strings.HasSuffix(w, "she")) {
			w = w[:len(w)-1]
		}
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	}
	n = len(w)
	if n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		w = w[:n-1] // running -> runn -> run
	}
	if n := len(w); n > 3 && w[n-1] == 'e' {
		w = w[:n-1] // loved, love -> lov
	}
	return w
}

// monthNames are the English month names, January first.
var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december"}

// timeQuestion matches questions about time.
var timeQuestion = regexp.MustCompile(`(?i)\b(when|how long|ago|since|until|dates?|days?|weeks?|weekends?|months?|years?|` +
	`yesterday|today|tonight|tomorrow|recently|(19|20)\d\d|` + strings.Join(monthNames, "|") +
	`|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)

// timeExpression matches a mention of a time in a memory's text.
var timeExpression = regexp.MustCompile(`(?i)\b(yesterday|today|tonight|tomorrow|ago|recently|lately|` +
	`(last|next|this|past|coming) (night|morning|evening|week|weekend|month|year|summer|winter|spring|fall|autumn|time|` +
	`monday|tuesday|wednesday|thursday|friday|saturday|sunday)|` +
	`(19|20)\d\d|\d+ (days?|weeks?|months?|years?)|(a|one|two|three|few|couple of) (days?|weeks?|months?|years?)|` +
	strings.Join(monthNames, "|") + `|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)

// yearRE matches a year in a question.
var yearRE = regexp.MustCompile(`\b(19|20)\d\d\b`)

// namedPeriods returns the occurred_at prefixes of the periods a question
// names: "2023" for a year, "2023-05" for a month and year, "-05" for a
// month alone.
func namedPeriods(question string) []string {
	low := strings.ToLower(question)
	years := yearRE.FindAllString(low, -1)
	var months []string
	for _, w := range terms.Words(low) {
		if i := slices.Index(monthNames, w); i >= 0 {
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

// userIDF sets each term's inverse document frequency among the user's
// memories, counted by FTS5.
func (w *Workspace) userIDF(ctx context.Context, user string, ts []memTerm) error {
	var n float64
	if err := w.m.db.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE org_id = ? AND user_id = ?`,
		w.org, user).Scan(&n); err != nil {
		return fmt.Errorf("count memories: %w", err)
	}
	scope := "scope:" + orgToken(w.org) + " AND scope:" + userToken(w.org, user) + ` AND text:"`
	for i := range ts {
		var df float64
		if err := w.m.db.QueryRowContext(ctx, `SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?`,
			scope+ts[i].word+`"`).Scan(&df); err != nil {
			return fmt.Errorf("term frequency: %w", err)
		}
		ts[i].idf = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	return nil
}

// scoreMemories gives each candidate its fused score.
func scoreMemories(cs []*memCand, q memQuery) {
	lex := make([]float64, len(cs))
	var avgLen, maxLex, maxCos float64
	words := make([][]string, len(cs))
	for i, c := range cs {
		ws := terms.Words(c.Text)
		for j, w := range ws {
			ws[j] = lightStem(w)
		}
		words[i] = ws
		avgLen += float64(len(ws))
	}
	avgLen = max(avgLen/float64(len(cs)), 1)
	for i, c := range cs {
		tf := map[string]int{}
		for _, w := range words[i] {
			tf[w]++
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(len(words[i]))/avgLen)
		for _, t := range q.terms {
			if f := float64(tf[t.stem]); f > 0 {
				lex[i] += t.weight * t.idf * f * (bm25K1 + 1) / (f + norm)
			}
		}
		maxLex = max(maxLex, lex[i])
		maxCos = max(maxCos, c.cos)
	}
	for i, c := range cs {
		s := 0.0
		if maxLex > 0 {
			s += (1 - vectorShare) * lex[i] / maxLex
		}
		if maxCos > 0 {
			s += vectorShare * c.cos / maxCos
		}
		if q.temporal {
			f := 1.0
			if c.occurred != "" {
				f += datedBoost
			}
			if timeExpression.MatchString(c.Text) {
				f += temporalBoost
			}
			s *= f
		}
		if len(q.periods) > 0 && inPeriod(c.occurred, q.periods) {
			s *= 1 + periodBoost
		}
		c.Score = s
	}
}

// addNeighbours adds, for each of the best hits, the memories next to it
// in its session, scored as a share of the hit's score.
func (w *Workspace) addNeighbours(ctx context.Context, user string, cs []*memCand) ([]*memCand, error) {
	sortSpans(cs)
	byMem := make(map[int64]*memCand, len(cs))
	for _, c := range cs {
		byMem[c.memID] = c
	}
	want := map[int64]float64{} // memory id -> score it would get
	for _, c := range cs[:min(len(cs), neighbourHits)] {
		if c.session == "" || c.Score <= 0 {
			continue
		}
		for _, dir := range []string{"<", ">"} {
			order := "DESC"
			if dir == ">" {
				order = "ASC"
			}
			rows, err := w.m.db.QueryContext(ctx, `SELECT id FROM memories
				WHERE org_id = ? AND user_id = ? AND session = ? AND (occurred_at, seq, id) `+dir+` (?, ?, ?)
				ORDER BY occurred_at `+order+`, seq `+order+`, id `+order+` LIMIT ?`,
				w.org, user, c.session, c.occurred, c.seq, c.memID, neighbourWindow)
			if err != nil {
				return nil, fmt.Errorf("neighbours: %w", err)
			}
			ids, err := scanIDs(rows)
			if err != nil {
				return nil, fmt.Errorf("neighbours: %w", err)
			}
			s := c.Score
			for _, id := range ids {
				s *= neighbourDecay
				want[id] = max(want[id], s)
			}
		}
	}
	var missing []int64
	for id, s := range want {
		if c := byMem[id]; c != nil {
			c.Score = max(c.Score, s)
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return cs, nil
	}
	more, err := w.loadMemories(ctx, user, "mm.id", missing)
	if err != nil {
		return nil, err
	}
	for _, c := range more {
		c.Score = want[c.memID]
	}
	return append(cs, more...), nil
}

// memoryVector returns up to k memories of user nearest to text by cosine
// similarity, best first, with a positive similarity (see Memory.nearest).
func (w *Workspace) memoryVector(ctx context.Context, user, text string, k int) ([]hit, error) {
	vs, err := w.m.embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return w.m.nearest(ctx, vectorQuery{org: w.org, user: user, label: LabelMemory, k: k}, vs[0])
}

// loadMemories reads the memories of user whose column col ("n.id" for node
// ids, "mm.id" for memory ids) is among ids, as spans with provenance.
func (w *Workspace) loadMemories(ctx context.Context, user, col string, ids []int64) ([]*memCand, error) {
	args := []any{w.org, user, user}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := w.m.db.QueryContext(ctx, `SELECT n.id, n.text, n.tokens, n.char_end, n.created_at,
		mm.id, mm.key, mm.tags, mm.occurred_at, mm.metadata, mm.session, mm.seq
		FROM nodes n JOIN memories mm ON mm.org_id = n.org_id AND mm.id = n.owner_id
		WHERE n.org_id = ? AND n.user_id = ? AND n.kind = 'memory' AND mm.user_id = ?
			AND `+col+` IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("load memories: %w", err)
	}
	defer rows.Close()
	var out []*memCand
	for rows.Next() {
		c := &memCand{}
		p := &c.Provenance
		var tags, meta string
		if err := rows.Scan(&c.NodeID, &c.Text, &c.Tokens, &p.CharEnd, &p.IngestedAt,
			&c.memID, &p.Key, &tags, &c.occurred, &meta, &c.session, &c.seq); err != nil {
			return nil, err
		}
		c.Label, p.Kind, p.OccurredAt = LabelMemory, KindMemory, c.occurred
		json.Unmarshal([]byte(tags), &p.Tags)
		json.Unmarshal([]byte(meta), &p.Metadata)
		if len(p.Metadata) == 0 {
			p.Metadata = nil
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// sortSpans orders candidates by score, best first, then by node id.
func sortSpans(cs []*memCand) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Score != cs[j].Score {
			return cs[i].Score > cs[j].Score
		}
		return cs[i].NodeID < cs[j].NodeID
	})
}

// packMemories takes spans in score order while they fit the budget,
// skipping any whose text repeats or nearly repeats one already taken.
func packMemories(cs []*memCand, budget int) *RecallResult {
	res := &RecallResult{Spans: []Span{}}
	var taken []string
	for _, c := range cs {
		if c.Tokens <= 0 || c.Tokens > budget-res.TotalTokens {
			continue
		}
		norm := normText(c.Text)
		dup := false
		for _, t := range taken {
			if nearDuplicate(t, norm) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		taken = append(taken, norm)
		res.Spans = append(res.Spans, c.Span)
		res.TotalTokens += c.Tokens
		if res.TotalTokens == budget {
			break
		}
	}
	return res
}
