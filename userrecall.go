package papermem

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
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
//  2. Candidates come from FTS5 (the user's memories that contain the
//     question's informative terms, those rare among the user's own
//     memories) and, at the same time, from a kNN over the user's vectors.
//  3. Each candidate is rescored with BM25 computed from the user's own
//     document frequencies and the term weights, fused with its cosine
//     similarity; a question about time favours memories that carry dates
//     or time expressions and those of the periods it names.
//  4. The best hits bring their neighbours, the memories just before and
//     after them in the same session: a neighbour's score grows by the
//     hit's times neighbourDecay for each step away.
//  5. Spans are packed, best first, into the token budget, skipping text
//     that repeats a span already taken.
//
// BM25-only and vector-only recall (Retrieval) rank by one source alone,
// without steps 3 and 4, to measure what each contributes.

// Tuning of the conversational ranking, chosen on LoCoMo (cmd/locomo).
const (
	memLexicalPool  = 150  // FTS5 candidates
	memVectorPool   = 100  // kNN candidates
	commonShare     = 0.25 // terms in more of the memories do not select candidates
	bm25K1          = 1.2  // BM25 term-frequency saturation
	bm25B           = 0.75 // BM25 length normalisation
	entityWeight    = 2.0  // weight of a capitalised (name-like) question word
	numberWeight    = 1.5  // weight of a number in the question
	keywordWeight   = 1.5  // weight of a word from the request's keywords
	vectorShare     = 0.25 // share of the cosine similarity in the fused score
	datedBoost      = 0.1  // time question: memories with an occurred_at
	temporalBoost   = 0.3  // time question: memories with time expressions
	periodBoost     = 0.3  // memories from a month or year the question names
	neighbourHits   = 25   // hits whose neighbours are brought
	neighbourWindow = 2    // memories on each side of a hit
	neighbourDecay  = 0.6  // added to a neighbour's score: this share of its hit's per step
)

// memCand is a memory considered for a user recall.
type memCand struct {
	Span
	memID    int64
	session  string
	seq      float64
	occurred string
	tags     string  // JSON, decoded into Provenance once packed
	meta     string  // JSON, decoded into Provenance once packed
	lexRank  int     // 1-based FTS5 rank; 0 when FTS5 did not return it
	cos      float64 // cosine similarity to the question; 0 when kNN did not return it
}

// memTerm is a weighted content word of the question.
type memTerm struct {
	word   string // lower-case, as searched in FTS5
	stem   string // light stem, as matched in memory text
	weight float64
	df     float64 // memories of the user that contain it
	idf    float64 // from the user's own memories
}

// memQuery is the analysed question.
type memQuery struct {
	text     string // question and keywords
	terms    []memTerm
	memories float64  // the user's memories, once counted
	temporal bool     // the question asks about time
	periods  []string // "2006", "2006-01" or "-01" prefixes of occurred_at it names
}

// recallMemories ranks the memories of user for r (validated, with Label
// LabelMemory) and packs them into the budget.
func (w *Workspace) recallMemories(ctx context.Context, user string, r RecallRequest) (*RecallResult, error) {
	q := analyseQuestion(r.Question, r.Keywords)
	// The vector search runs beside the full-text search.
	var vec []hit
	var vecErr error
	var wg sync.WaitGroup
	if r.Retrieval != RetrievalLexical {
		wg.Go(func() { vec, vecErr = w.memoryVector(ctx, user, q.text, memVectorPool) })
	}
	var lex []int64
	var err error
	switch r.Retrieval {
	case RetrievalLexical:
		var hits []hit
		hits, err = w.m.lexical(ctx, query{org: w.org, user: user, label: LabelMemory, limit: memLexicalPool}, q.text)
		for _, h := range hits {
			lex = append(lex, h.id)
		}
	case RetrievalHybrid:
		if err = w.userIDF(ctx, user, &q); err == nil {
			lex, err = w.memoryLexical(ctx, user, q, memLexicalPool)
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if vecErr != nil {
		return nil, vecErr
	}
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
	for i, id := range lex {
		add(id).lexRank = i + 1
	}
	for _, h := range vec {
		add(h.id).cos = h.score
	}
	if len(ids) == 0 {
		return &RecallResult{Spans: []Span{}}, nil
	}
	loaded, err := w.loadMemories(ctx, user, false, ids)
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
	raw := rawWords(question)
	q.temporal = asksTime(raw)
	q.periods = namedPeriods(raw)
	return q
}

// rawWords returns the runs of letters and digits of s, as written.
func rawWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// lightStem strips common English inflections (plural -s, then -ing or
// -ed) so that inflected forms of a word share a stem: paintings, painting
// and painted all become "paint".
func lightStem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
		if strings.HasSuffix(w, "sse") || strings.HasSuffix(w, "xe") || strings.HasSuffix(w, "che") || strings.HasSuffix(w, "she") {
			w = w[:len(w)-1] // boxes -> box
		}
	}
	switch n = len(w); {
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

// userIDF counts the user's memories and, for each term, those that
// contain it (FTS5's porter stemming decides), and sets the terms' inverse
// document frequencies.
func (w *Workspace) userIDF(ctx context.Context, user string, q *memQuery) error {
	sel := []string{"(SELECT count(*) FROM memories WHERE org_id = ? AND user_id = ?)"}
	args := []any{w.org, user}
	for _, t := range q.terms {
		sel = append(sel, "(SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?)")
		args = append(args, memoryMatch(w.org, user, []memTerm{t}))
	}
	counts := make([]float64, len(sel))
	dest := make([]any, len(sel))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := w.m.db.QueryRowContext(ctx, "SELECT "+strings.Join(sel, ", "), args...).Scan(dest...); err != nil {
		return fmt.Errorf("term frequencies: %w", err)
	}
	q.memories = counts[0]
	for i := range q.terms {
		t := &q.terms[i]
		t.df = counts[i+1]
		t.idf = math.Log(1 + (q.memories-t.df+0.5)/(t.df+0.5))
	}
	return nil
}

// memoryMatch is the FTS5 query for the memories of user containing any of
// the terms. The user's scope token already names the workspace.
func memoryMatch(org, user string, ts []memTerm) string {
	words := make([]string, len(ts))
	for i, t := range ts {
		words[i] = `"` + t.word + `"`
	}
	return "scope:" + userToken(org, user) + " AND text:(" + strings.Join(words, " OR ") + ")"
}

// memoryLexical returns up to limit node ids of the user's memories that
// contain the question's informative terms, those in at most
// commonShare of the memories (all terms when none is), ranked by FTS5.
// Common terms still count when candidates are scored.
func (w *Workspace) memoryLexical(ctx context.Context, user string, q memQuery, limit int) ([]int64, error) {
	var ts []memTerm
	for _, t := range q.terms {
		if t.df > 0 && t.df <= commonShare*q.memories {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		for _, t := range q.terms {
			if t.df > 0 {
				ts = append(ts, t)
			}
		}
	}
	if len(ts) == 0 {
		return nil, nil
	}
	rows, err := w.m.db.QueryContext(ctx, `SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT ?`,
		memoryMatch(w.org, user, ts), limit)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return scanIDs(rows)
}

// scoreMemories gives each candidate its fused score.
func scoreMemories(cs []*memCand, q memQuery) {
	term := make(map[string][]int, len(q.terms)) // stem -> indexes in q.terms
	for i, t := range q.terms {
		term[t.stem] = append(term[t.stem], i)
	}
	tf := make([][]float64, len(cs)) // occurrences of each term
	lens := make([]float64, len(cs))
	dated := make([]bool, len(cs))
	var avgLen, maxLex, maxCos float64
	for i, c := range cs {
		ws := terms.Words(c.Text)
		dated[i] = q.temporal && mentionsTime(ws)
		tf[i] = make([]float64, len(q.terms))
		for _, w := range ws {
			for _, j := range term[lightStem(w)] {
				tf[i][j]++
			}
		}
		lens[i] = float64(len(ws))
		avgLen += lens[i]
		maxCos = max(maxCos, c.cos)
	}
	avgLen = max(avgLen/float64(len(cs)), 1)
	lex := make([]float64, len(cs))
	for i := range cs {
		norm := bm25K1 * (1 - bm25B + bm25B*lens[i]/avgLen)
		for j, t := range q.terms {
			if f := tf[i][j]; f > 0 {
				lex[i] += t.weight * t.idf * f * (bm25K1 + 1) / (f + norm)
			}
		}
		maxLex = max(maxLex, lex[i])
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
			if dated[i] {
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

// addNeighbours brings, for each of the best hits, the memories next to it
// in its session: a neighbour's score grows by the hit's score times
// neighbourDecay per step away (the largest such share when several hits
// reach it), and a neighbour that was not a candidate enters with that
// share alone.
func (w *Workspace) addNeighbours(ctx context.Context, user string, cs []*memCand) ([]*memCand, error) {
	sortSpans(cs)
	byMem := make(map[int64]*memCand, len(cs))
	for _, c := range cs {
		byMem[c.memID] = c
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
	hits, _ := json.Marshal(ids)
	// For each hit, the ids of the neighbourWindow memories before it and
	// after it in its session, nearest first.
	side := func(cmp, order string) string {
		return `(SELECT group_concat(id, ',') FROM (SELECT m.id FROM memories m
			WHERE m.org_id = h.org_id AND m.user_id = h.user_id AND m.session = h.session
				AND (m.occurred_at, m.seq, m.id) ` + cmp + ` (h.occurred_at, h.seq, h.id)
			ORDER BY m.occurred_at ` + order + `, m.seq ` + order + `, m.id ` + order + ` LIMIT ?1))`
	}
	rows, err := w.m.db.QueryContext(ctx, `SELECT h.id, coalesce(`+side("<", "DESC")+`, ''), coalesce(`+side(">", "ASC")+`, '')
		FROM json_each(?4) j CROSS JOIN memories h ON h.id = j.value WHERE h.org_id = ?2 AND h.user_id = ?3`,
		neighbourWindow, w.org, user, string(hits))
	if err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	defer rows.Close()
	want := map[int64]float64{} // memory id -> score it would get
	for rows.Next() {
		var hit int64
		var before, after string
		if err := rows.Scan(&hit, &before, &after); err != nil {
			return nil, err
		}
		for _, list := range []string{before, after} {
			s := byMem[hit].Score
			for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
				id, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("neighbours: %w", err)
				}
				s *= neighbourDecay
				want[id] = max(want[id], s)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var missing []int64
	for id, s := range want {
		if c := byMem[id]; c != nil {
			c.Score += s
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return cs, nil
	}
	more, err := w.loadMemories(ctx, user, true, missing)
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

// loadMemories reads the memories of user with the given node ids (memory
// ids when byMemory is set), as spans with provenance.
func (w *Workspace) loadMemories(ctx context.Context, user string, byMemory bool, ids []int64) ([]*memCand, error) {
	list, _ := json.Marshal(ids)
	// The ids drive the join (CROSS JOIN keeps that order): without
	// statistics SQLite would rather scan every memory of the workspace.
	join := `json_each(?) j CROSS JOIN nodes n ON n.id = j.value JOIN memories mm ON mm.id = n.owner_id`
	if byMemory {
		join = `json_each(?) j CROSS JOIN memories mm ON mm.id = j.value JOIN nodes n ON n.owner_id = mm.id AND n.kind = 'memory'`
	}
	rows, err := w.m.db.QueryContext(ctx, `SELECT n.id, n.text, n.tokens, n.char_end, n.created_at,
		mm.id, mm.key, mm.tags, mm.occurred_at, mm.metadata, mm.session, mm.seq
		FROM `+join+`
		WHERE n.org_id = ? AND n.user_id = ? AND n.kind = 'memory' AND mm.org_id = n.org_id AND mm.user_id = ?`,
		string(list), w.org, user, user)
	if err != nil {
		return nil, fmt.Errorf("load memories: %w", err)
	}
	defer rows.Close()
	var out []*memCand
	for rows.Next() {
		c := &memCand{}
		p := &c.Provenance
		if err := rows.Scan(&c.NodeID, &c.Text, &c.Tokens, &p.CharEnd, &p.IngestedAt,
			&c.memID, &p.Key, &c.tags, &c.occurred, &c.meta, &c.session, &c.seq); err != nil {
			return nil, err
		}
		c.Label, p.Kind, p.OccurredAt = LabelMemory, KindMemory, c.occurred
		out = append(out, c)
	}
	return out, rows.Err()
}

// sortSpans orders candidates by score, best first, then by node id.
func sortSpans(cs []*memCand) {
	slices.SortStableFunc(cs, func(a, b *memCand) int { return bestFirst(&a.Span, &b.Span) })
}

// packMemories takes spans in score order while they fit the budget,
// skipping any whose text repeats or nearly repeats one already taken, and
// decodes the provenance of those it takes.
func packMemories(cs []*memCand, budget int) *RecallResult {
	p := newPacker(budget)
	for _, c := range cs {
		if p.full() {
			break
		}
		if !p.add(c.Span, "") {
			continue
		}
		prov := &p.res.Spans[len(p.res.Spans)-1].Provenance
		json.Unmarshal([]byte(c.tags), &prov.Tags)
		json.Unmarshal([]byte(c.meta), &prov.Metadata)
		if len(prov.Metadata) == 0 {
			prov.Metadata = nil
		}
	}
	return &p.res
}
