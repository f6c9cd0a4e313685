package nodeindex

import (
	"cmp"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/papermem/papermem/internal/ftsterm"
	"github.com/papermem/papermem/internal/terms"
)

// lexicon holds the BM25 postings of one workspace's nodes, with terms as
// FTS5 makes them (internal/ftsterm), so that a search here ranks as
// FTS5's bm25() does without walking every match in SQLite.
type lexicon struct {
	terms    map[string]int32 // term → index in postings
	postings [][]posting
	length   []int32             // tokens of each entry
	stats    map[string]lexStats // by collection: user id, "" for shared nodes
	tokens   map[string]int32    // token → term index, to fold and stem each word once
	scratch  []int32             // term indexes of the entry being added
	count    int64               // postings over all terms
	bounds   []termBound         // by term index
}

// termBound bounds what a term can add to an entry's BM25 score: its
// largest count in an entry and the length of its shortest entry (see
// maxScore). Deletions leave it as it was, an upper bound still.
type termBound struct{ maxTF, minLen int32 }

// bound widens the bound of term id for posting x, or sets a bound that
// no posting widened yet when x is nil.
func (l *lexicon) bound(id int32, x *posting) {
	for int(id) >= len(l.bounds) {
		l.bounds = append(l.bounds, termBound{0, math.MaxInt32})
	}
	if x != nil {
		b := &l.bounds[id]
		b.maxTF, b.minLen = max(b.maxTF, int32(x.tf)), min(b.minLen, int32(x.n))
	}
}

// heapBytes estimates the memory the lexicon takes: its postings, lengths,
// and about 64 bytes for each term in the maps.
func (l *lexicon) heapBytes() int64 {
	return 8*l.count + 4*int64(len(l.length)) + int64(len(l.postings))*(24+64) + int64(len(l.tokens))*64
}

// posting is one entry containing a term, with the term's count there and
// the entry's length in tokens, so that scoring a posting reads nothing
// else. Both saturate at math.MaxUint16, where BM25's factors hardly move.
type posting struct {
	entry int32
	tf, n uint16
}

// newPosting returns the posting of a term counted tf times in entry, of
// n tokens.
func newPosting(entry int32, tf, n int32) posting {
	return posting{entry, uint16(min(tf, math.MaxUint16)), uint16(min(n, math.MaxUint16))}
}

// lexStats are a collection's BM25 statistics over its live entries.
type lexStats struct {
	docs, tokens int
}

// add indexes the text of entry, which belongs to the collection of user.
// The words of title, a field the text begins with (a paper's title before
// its abstract), count twice, as FTS5's bm25 with column weights (2, 1)
// counts a title column's: in the term frequencies but once in the length.
// The words of context, a field the text stands under (its section's
// heading), count contextWeight times in the term frequencies and not in
// the length, as a column of that weight would.
func (l *lexicon) add(entry int32, user, text, title, context string) {
	if l.terms == nil {
		l.terms, l.stats, l.tokens = map[string]int32{}, map[string]lexStats{}, map[string]int32{}
	}
	ids := l.scratch[:0]
	addToken := func(token string) {
		id, ok := l.tokens[token]
		if !ok {
			t := ftsterm.Term(token)
			if id, ok = l.terms[t]; !ok {
				id = int32(len(l.postings))
				l.terms[strings.Clone(t)] = id
				l.postings = append(l.postings, nil)
			}
			l.tokens[strings.Clone(token)] = id
		}
		ids = append(ids, id)
	}
	ftsterm.Tokens(title, addToken)
	for range contextWeight {
		ftsterm.Tokens(context, addToken)
	}
	titled := len(ids)
	ftsterm.Tokens(text, addToken)
	l.scratch = ids
	n := len(ids) - titled
	slices.Sort(ids)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		x := newPosting(entry, int32(j-i), int32(n))
		l.postings[ids[i]] = append(l.postings[ids[i]], x)
		l.bound(ids[i], &x)
		l.count++
		i = j
	}
	l.length = append(l.length, int32(n))
	st := l.stats[user]
	st.docs++
	st.tokens += n
	l.stats[user] = st
}

// contextWeight is the weight of a node's context field, as the section
// name column of the QASPER floor weighs (devtools/cmd/qasper;
// docs/measurements.md).
const contextWeight = 2

// BM25 parameters, FTS5's: term-frequency saturation and length
// normalisation.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// saturation is BM25's term-frequency factor of posting x for a collection
// whose entries have avgdl tokens on average.
func (l *lexicon) saturation(x posting, avgdl float64) float64 {
	return saturation(int32(x.tf), int32(x.n), avgdl)
}

// saturation is BM25's term-frequency factor of a term counted tf times in
// an entry of n tokens, for a collection whose entries have avgdl tokens
// on average. It grows with tf and shrinks with n.
func saturation(tf, n int32, avgdl float64) float64 {
	f := float64(tf)
	return f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(n)/avgdl))
}

// remove takes a deleted entry of user's collection out of the statistics;
// its postings stay and searches skip it.
func (l *lexicon) remove(entry int32, user string) {
	st := l.stats[user]
	st.docs--
	st.tokens -= int(l.length[entry])
	l.stats[user] = st
}

// onlyCollection reports whether every entry is live and in the
// collection of user, so that no posting needs checking.
func (p *Part) onlyCollection(user string) bool {
	_, ok := p.lex.stats[user]
	return ok && p.ndead == 0 && len(p.lex.stats) == 1
}

// docFreq returns how many live entries of the collection of user (a name
// id) contain term, only those of label unless it is anyName; all is
// onlyCollection's answer for that user. Counts that need a pass over the
// term's postings are kept in the part's dfs memo until it changes.
func (p *Part) docFreq(term string, user, label int32, all bool) int {
	id, ok := p.lex.terms[term]
	if !ok {
		return 0
	}
	ps := p.lex.postings[id]
	if all && label == anyName {
		return len(ps)
	}
	key := dfKey{id, user, label}
	if df, ok := p.dfs.get(key); ok {
		return df
	}
	// The entries that count, as a bitmap (kept, and small enough for the
	// CPU's caches, where the entries' metadata is not).
	counted := p.admitted(&entryFilter{user: user, label: label, notLabel: anyName, kind: anyName, domain: anyName})
	df := 0
	for _, x := range ps {
		if has(counted, int(x.entry)) {
			df++
		}
	}
	p.dfs.put(key, df)
	return df
}

// dfKey names a document frequency: a term's, in a collection, of a label
// or anyName.
type dfKey struct{ term, user, label int32 }

// memo keeps what searches computed from a part as it is: the part clears
// it whenever its entries change. Searches share it under the part's read
// lock, so it has its own lock. Beyond limit values it starts again empty.
type memo[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	limit int
}

func (c *memo[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *memo[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.limit {
		c.m = map[K]V{}
	}
	c.m[k] = v
}

// clear empties the memo.
func (c *memo[K, V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// scopeStats returns the BM25 statistics of the entries scope admits: a
// scoped search weighs words within its scope, as a workspace holding
// only those owners would. It reads every entry's owner.
func (p *Part) scopeStats(scope *entryFilter) lexStats {
	var st lexStats
	for e := range p.ids {
		if p.admits(e, scope) {
			st.docs++
			st.tokens += int(p.lex.length[e])
		}
	}
	return st
}

// scopeDocFreq returns how many entries that scope admits contain the
// term of index id.
func (p *Part) scopeDocFreq(id int32, scope *entryFilter) int {
	df := 0
	for _, x := range p.lex.postings[id] {
		if p.admits(int(x.entry), scope) {
			df++
		}
	}
	return df
}

// Lexical returns up to q.K nodes admitted by q ranked by BM25 for the
// content words of text (internal/terms.Content), best first, as FTS5's
// bm25() scores a query for any of those words (higher is better; among
// equal scores the lower id ranks first): each word weighs
// log((N−df+0.5)/(df+0.5)), at least 1e-6, with N, df and the mean length
// taken over q's collection, only its nodes of q's label when q names one
// (a search of papers' title and abstract nodes weighs words as a table of
// papers would) and only those of q's owners when it names them (a search
// kept to some papers weighs words as a workspace of those papers would,
// at the cost of one pass over the part's entries). Only the postings of
// the query's words are read, and a bounded heap keeps the best, where
// FTS5 ranks every node that matches any word.
func (p *Part) Lexical(q Query, text string) []Hit {
	words := distinct(terms.Content(text))
	if len(words) == 0 {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.bm25(words, q)
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

// bm25 is Lexical for the query words. The caller holds p.mu.
func (p *Part) bm25(words []string, q Query) []Hit {
	k := q.K
	st := p.lex.stats[q.User]
	f, ok := p.filter(q)
	if !ok || k <= 0 {
		return nil
	}
	all := p.onlyCollection(q.User)
	if f.label != anyName {
		st, all = p.labels[collection{f.user, f.label}], false
	}
	var scope *entryFilter // the entries whose statistics count, when q keeps to some owners
	if f.owners != nil {
		scope = &entryFilter{user: f.user, label: f.label, notLabel: f.notLabel, kind: f.kind, domain: anyName, owners: f.owners}
		st, all = p.scopeStats(scope), false
	}
	if st.docs == 0 {
		return nil
	}
	n, avgdl := float64(st.docs), float64(st.tokens)/float64(st.docs)
	var cs []cursor
	for _, w := range words {
		term := ftsterm.Term(w)
		id, ok := p.lex.terms[term]
		if !ok {
			continue
		}
		var df float64
		if scope != nil {
			df = float64(p.scopeDocFreq(id, scope))
		} else {
			df = float64(p.docFreq(term, f.user, f.label, all))
		}
		idf := math.Log((n - df + 0.5) / (df + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		b := p.lex.bounds[id]
		cs = append(cs, cursor{ps: p.lex.postings[id], idf: idf, ub: idf * saturation(b.maxTF, b.minLen, avgdl)})
	}
	return p.hits(p.maxScore(cs, k, avgdl, p.admitted(&f)))
}

// seek returns the first position from from on whose entry is d or
// more, galloping (1, 2, 4, … postings ahead) before a binary search: the
// entries looked up grow, so the next one is usually near.
func seek(ps []posting, from int, d int32) int {
	lo, step := from, 1
	for lo < len(ps) && ps[lo].entry < d {
		hi := min(lo+step, len(ps))
		if hi == len(ps) || ps[hi].entry >= d {
			return lo + 1 + sort.Search(hi-lo-1, func(i int) bool { return ps[lo+1+i].entry >= d })
		}
		lo, step = hi, 2*step
	}
	return lo
}

// cursor walks the postings of one word of a BM25 query.
type cursor struct {
	ps  []posting
	pos int
	idf float64
	ub  float64 // the most the word adds to an entry's score
}

// lexChunk is the fewest entries a goroutine of a BM25 search walks: a
// variable for the tests.
var lexChunk = 1 << 15

// maxScore returns the k entries of admitted (nil for all) with the best
// BM25 scores for the words of cs, in no order, by MaxScore
// (maxScoreIn). A large part's entries are split into ranges, one per
// CPU, searched at once: each search keeps its own k best, and all raise
// and prune by one shared θ, the best k-th score any has found (an entry
// under it cannot be among the k best of all), then the k best of theirs
// are kept. The entries and scores are those of one search.
func (p *Part) maxScore(cs []cursor, k int, avgdl float64, admitted []uint64) topHits {
	n := len(p.lex.length)
	workers := max(1, min(runtime.GOMAXPROCS(0), n/lexChunk))
	if workers == 1 {
		return p.maxScoreIn(cs, k, avgdl, admitted, nil)
	}
	var shared bar
	shared.raise(math.Inf(-1))
	found := make([]topHits, workers)
	parallel(workers, func(w int) {
		lo, hi := int32(w*n/workers), int32((w+1)*n/workers)
		own := slices.Clone(cs)
		for i := range own {
			ps := own[i].ps
			own[i].ps = ps[seek(ps, 0, lo):seek(ps, 0, hi)]
		}
		found[w] = p.maxScoreIn(own, k, avgdl, admitted, &shared)
	})
	best := slices.Concat(found...)
	if len(best) > k {
		slices.SortFunc(best, func(a, b hit) int { return cmpHits(b, a) })
		best = best[:k]
	}
	return best
}

// bar is the θ that the searches of one maxScore share: the highest
// score that some k entries reach.
type bar struct{ bits atomic.Uint64 }

// raise makes the bar x when x is higher.
func (b *bar) raise(x float64) {
	for {
		old := b.bits.Load()
		if math.Float64frombits(old) >= x || b.bits.CompareAndSwap(old, math.Float64bits(x)) {
			return
		}
	}
}

// get returns the bar.
func (b *bar) get() float64 { return math.Float64frombits(b.bits.Load()) }

// window is how many entries in a row maxScoreIn scores at a time.
const window = 4096

// maxScoreIn returns the k entries of admitted (nil for all) with the
// best BM25 scores for the words of cs, by MaxScore (Turtle and Flood,
// 1995), as Lucene and PISA rank: once the k best so far score above θ,
// the words whose upper bounds together stay under θ are no longer
// essential, and only entries that an essential word holds are scored.
// Entries are scored a window at a time, as Lucene's MaxScoreBulkScorer
// does: the postings of each essential word in the window are added up
// in an array, word after word, then each entry found is looked up in the
// other words' postings (seek), least bound last, and left as soon as it
// can no longer pass θ. With shared set, θ is also the highest the other
// searches found, and this search raises it. The entries and scores are
// exactly those of scoring every posting: an entry that passes is scored
// again, summed over the words in the query's order.
func (p *Part) maxScoreIn(cs []cursor, k int, avgdl float64, admitted []uint64, shared *bar) topHits {
	order := make([]int, len(cs)) // by upper bound, least first
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cs[a].ub, cs[b].ub) })
	prefix := make([]float64, len(cs)) // prefix[i]: the bounds of order[:i+1]
	sum := 0.0
	for i, t := range order {
		sum += cs[t].ub
		prefix[i] = sum
	}
	// below reports whether a score of at most x cannot pass θ; the margin
	// covers rounding, since scores are summed in another order.
	theta := math.Inf(-1)
	below := func(x float64) bool { return x < theta-1e-9*math.Abs(theta) }
	ne := 0 // order[:ne] are the words that are not essential
	raise := func(x float64) {
		if x > theta {
			theta = x
			for ne < len(order) && below(prefix[ne]) {
				ne++
			}
		}
	}
	best := make(topHits, 0, k)
	contrib := make([]float64, len(cs))
	from := make([]int, len(cs)) // where each essential word's postings in the window begin
	acc := make([]float64, window)
	var found [window / 64]uint64 // the entries of the window that acc holds
	for {
		if shared != nil {
			raise(shared.get())
		}
		nonEssential, essential := order[:ne], order[ne:]
		start := int32(math.MaxInt32)
		for _, t := range essential {
			if c := &cs[t]; c.pos < len(c.ps) {
				start = min(start, c.ps[c.pos].entry)
			}
		}
		if start == math.MaxInt32 {
			break
		}
		end := int64(start) + window
		for _, t := range essential {
			c := &cs[t]
			from[t] = c.pos
			for ; c.pos < len(c.ps) && int64(c.ps[c.pos].entry) < end; c.pos++ {
				x := c.ps[c.pos]
				if !has(admitted, int(x.entry)) {
					continue
				}
				i := x.entry - start
				acc[i] += c.idf * p.lex.saturation(x, avgdl)
				found[i/64] |= 1 << (i % 64)
			}
		}
		for w := range found {
			for ; found[w] != 0; found[w] &= found[w] - 1 {
				i := w*64 + bits.TrailingZeros64(found[w])
				est := acc[i]
				acc[i] = 0
				d := start + int32(i)
				passes := true
				for j := len(nonEssential) - 1; j >= 0; j-- {
					if below(est + prefix[j]) {
						passes = false
						break
					}
					t := nonEssential[j]
					c := &cs[t]
					c.pos = seek(c.ps, c.pos, d)
					contrib[t] = 0
					if c.pos < len(c.ps) && c.ps[c.pos].entry == d {
						contrib[t] = c.idf * p.lex.saturation(c.ps[c.pos], avgdl)
						est += contrib[t]
						c.pos++
					}
				}
				if !passes || below(est) {
					continue
				}
				for _, t := range essential {
					c := &cs[t]
					from[t] = seek(c.ps, from[t], d)
					contrib[t] = 0
					if from[t] < len(c.ps) && c.ps[from[t]].entry == d {
						contrib[t] = c.idf * p.lex.saturation(c.ps[from[t]], avgdl)
					}
				}
				score := 0.0
				for _, x := range contrib {
					score += x
				}
				best.push(hit{d, score}, k)
				if len(best) == k {
					raise(best[0].score)
					if shared != nil {
						shared.raise(best[0].score)
					}
				}
			}
		}
	}
	return best
}

// Term is a word of a weighted search, as FTS5 and the index make terms
// (internal/ftsterm.Term), with its weight.
type Term struct {
	Term   string
	Weight float64
}

// WeightedBM25 scores by weighted BM25 every node admitted by q that
// contains one of the terms: each term adds its Weight times its IDF,
// log(1 + (N−df+0.5)/(df+0.5)) over q's collection, times BM25's
// term-frequency factor. It returns the q.K best among the nodes that
// contain a selective term (one in at most share of the collection's
// nodes; any term when none is), best first, and the score of every node
// scored, by id; nil and nil when no node can pass q or the collection is
// empty. Common terms select no node but count in every score.
func (p *Part) WeightedBM25(q Query, ts []Term, share float64) ([]Hit, map[int64]float64) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	f, ok := p.filter(q)
	st := p.lex.stats[q.User]
	if !ok || st.docs == 0 {
		return nil, nil
	}
	all := p.onlyCollection(q.User)
	n, avgLen := float64(st.docs), float64(st.tokens)/float64(st.docs)
	dfs := make([]float64, len(ts))
	idfs := make([]float64, len(ts))
	selective := false
	for i, t := range ts {
		dfs[i] = float64(p.docFreq(t.Term, f.user, anyName, all))
		idfs[i] = math.Log(1 + (n-dfs[i]+0.5)/(dfs[i]+0.5))
		selective = selective || dfs[i] > 0 && dfs[i] <= share*n
	}
	acc := borrowAcc(len(p.ids))
	selected := make([]bool, len(p.ids))
	admitted := p.admitted(&f)
	var touched []int32
	defer func() { returnAcc(acc, touched) }()
	for i, t := range ts {
		id, ok := p.lex.terms[t.Term]
		if !ok {
			continue
		}
		selects := !selective || dfs[i] <= share*n
		for _, x := range p.lex.postings[id] {
			if !has(admitted, int(x.entry)) {
				continue
			}
			if acc[x.entry] == 0 {
				touched = append(touched, x.entry)
			}
			acc[x.entry] += t.Weight * idfs[i] * p.lex.saturation(x, avgLen)
			selected[x.entry] = selected[x.entry] || selects
		}
	}
	best := make(topHits, 0, q.K)
	scores := make(map[int64]float64, len(touched))
	for _, e := range touched {
		scores[p.ids[e]] = acc[e]
		if selected[e] {
			best.push(hit{e, acc[e]}, q.K)
		}
	}
	return p.hits(best), scores
}

// WithIDF calls fn with a function giving each word its inverse document
// frequency among the nodes of user's collection ("" for the shared
// nodes), log(1 + (N−df+0.5)/(df+0.5)) as BM25 weighs it, for weighing the
// words of a query vector; the part does not change until fn returns.
func (p *Part) WithIDF(user string, fn func(idf func(word string) float64) error) error {
	return p.WithDocFreq(user, func(n int, df func(string) int) error {
		return fn(func(word string) float64 {
			d := float64(df(word))
			return math.Log(1 + (float64(n)-d+0.5)/(d+0.5))
		})
	})
}

// WithDocFreq calls fn with the number of nodes of user's collection (""
// for the shared nodes) and a function giving how many of them hold each
// word; the part does not change until fn returns.
func (p *Part) WithDocFreq(user string, fn func(n int, df func(word string) int) error) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	u, found := p.nameIDs[user]
	if !found {
		u = anyName
	}
	all := p.onlyCollection(user)
	return fn(p.lex.stats[user].docs, func(word string) int {
		return p.docFreq(ftsterm.Term(word), u, anyName, all)
	})
}

// accumulators recycles the per-entry score arrays of BM25 searches:
// allocating one per search at 100k entries is 800 KB of garbage.
var accumulators = sync.Pool{New: func() any { return new([]float64) }}

// borrowAcc returns a zeroed score array of at least n entries.
func borrowAcc(n int) []float64 {
	buf := accumulators.Get().(*[]float64)
	if len(*buf) < n {
		*buf = make([]float64, n)
	}
	return *buf
}

// returnAcc zeroes the touched entries of acc and recycles it.
func returnAcc(acc []float64, touched []int32) {
	for _, e := range touched {
		acc[e] = 0
	}
	accumulators.Put(&acc)
}

// Hit is a node found by a search, with the search's score: BM25 for the
// full-text searches, cosine similarity for the vector search.
type Hit struct {
	Node
	Score float64
}

// hit is a Hit while a search runs: an entry and its score.
type hit struct {
	entry int32
	score float64
}

// cmpHits orders hits by score, then by entry descending, so that among
// equal scores the lower id ranks first.
func cmpHits(a, b hit) int {
	switch {
	case a.score < b.score:
		return -1
	case a.score > b.score:
		return 1
	case a.entry > b.entry:
		return -1
	case a.entry < b.entry:
		return 1
	}
	return 0
}

// hits returns the hits of t best first, as Hits. The caller holds p.mu.
func (p *Part) hits(t topHits) []Hit {
	slices.SortFunc(t, func(a, b hit) int { return cmpHits(b, a) })
	out := make([]Hit, len(t))
	for i, h := range t {
		out[i] = Hit{p.node(int(h.entry)), h.score}
	}
	return out
}

// topHits is a min-heap of hits by cmpHits: the worst kept hit at the root.
type topHits []hit

// push adds h, keeping at most k hits, the best ones.
func (t *topHits) push(h hit, k int) {
	s := *t
	if len(s) < k {
		s = append(s, h)
		for i := len(s) - 1; i > 0; {
			parent := (i - 1) / 2
			if cmpHits(s[i], s[parent]) >= 0 {
				break
			}
			s[i], s[parent] = s[parent], s[i]
			i = parent
		}
		*t = s
		return
	}
	if cmpHits(h, s[0]) <= 0 {
		return
	}
	s[0] = h
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(s) && cmpHits(s[l], s[least]) < 0 {
			least = l
		}
		if r < len(s) && cmpHits(s[r], s[least]) < 0 {
			least = r
		}
		if least == i {
			break
		}
		s[i], s[least] = s[least], s[i]
		i = least
	}
}
