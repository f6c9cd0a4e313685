package scifact

import (
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/papermem/papermem/internal/ftsterm"
)

// Floor is a plain full-text index as SQLite FTS5 builds one: rows of two
// columns, (title, body), tokenize = 'porter unicode61' (with
// remove_diacritics 2, as internal/ftsterm folds words; the default, 1,
// differs only on a few rare letters), ranked by
// bm25(t, 2.0, 1.0) — title words count twice. It reproduces FTS5's
// bm25() in Go (fts5_aux.c: each query phrase weighs
// max(log((N−n+0.5)/(n+0.5)), 1e-6) over N rows, n of them matching; a
// row's frequency of a phrase is its weighted count over the columns; the
// row's length is its tokens in both columns) so that the floors of the
// evidence measurement need no FTS5 build. Rows are numbered from 0 in the
// order added.
type Floor struct {
	postings map[string][]floorPosting
	length   []int // tokens of each row
	cost     []int // FloorTokens of each row's body
	tokens   int
}

type floorPosting struct {
	row  int
	freq float64
}

// Column weights of the floor's bm25(t, 2.0, 1.0).
const (
	floorTitleWeight = 2.0
	floorBodyWeight  = 1.0
)

// Add appends a row.
func (f *Floor) Add(title, body string) {
	if f.postings == nil {
		f.postings = map[string][]floorPosting{}
	}
	row := len(f.length)
	freq := map[string]float64{}
	n := 0
	for _, col := range []struct {
		text   string
		weight float64
	}{{title, floorTitleWeight}, {body, floorBodyWeight}} {
		ftsterm.Terms(col.text, func(t string) {
			freq[t] += col.weight
			n++
		})
	}
	for t, x := range freq {
		f.postings[t] = append(f.postings[t], floorPosting{row, x})
	}
	f.length = append(f.length, n)
	f.cost = append(f.cost, FloorTokens(body))
	f.tokens += n
}

// floorStop are the words the floor's query leaves out.
var floorStop = strings.Fields(`a an the of in on and or to for with by is are was were be been that this
	these those as at from it its into than then not no does do can`)

var floorWord = regexp.MustCompile(`[a-z0-9]+`)

// isFloorStop reports whether the floor's query leaves word out.
func isFloorStop(word string) bool { return slices.Contains(floorStop, word) }

// FloorQuery returns the floor's query terms for a question: its lower-case
// [a-z0-9]+ words but the stop words, each as FTS5 folds it (repeats kept:
// FTS5 scores each phrase of `"w1" OR "w2" OR …` on its own).
func FloorQuery(question string) []string {
	var out []string
	for _, w := range floorWord.FindAllString(strings.ToLower(question), -1) {
		if !isFloorStop(w) {
			out = append(out, ftsterm.Term(w))
		}
	}
	return out
}

// Search returns the rows matching any query term, best first, at most
// limit, as `ORDER BY bm25(t, 2.0, 1.0) LIMIT limit` returns them (equal
// scores in row order).
func (f *Floor) Search(query []string, limit int) []int {
	n := float64(len(f.length))
	if n == 0 {
		return nil
	}
	avgdl := float64(f.tokens) / n
	score := map[int]float64{}
	for _, t := range query {
		ps := f.postings[t]
		idf := math.Log((n - float64(len(ps)) + 0.5) / (float64(len(ps)) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for _, p := range ps {
			d := float64(f.length[p.row])
			score[p.row] += idf * p.freq * (1.2 + 1) / (p.freq + 1.2*(1-0.75+0.75*d/avgdl))
		}
	}
	rows := make([]int, 0, len(score))
	for r := range score {
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b int) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	return rows[:min(limit, len(rows))]
}

// FloorTokens is what the floor counts a row's body as: ceil(bytes/4)
// tokens.
func FloorTokens(body string) int { return (len(body) + 3) / 4 }

// Pack returns the floor's answer to query at a token budget: the matching
// rows that keep accepts (nil accepts all), best first, taken while the
// next one's body fits in what is left (FloorTokens), and the tokens they
// take.
func (f *Floor) Pack(query []string, budget int, keep func(row int) bool) (rows []int, tokens int) {
	for _, r := range f.Search(query, len(f.length)) {
		if keep != nil && !keep(r) {
			continue
		}
		if tokens+f.cost[r] > budget {
			break
		}
		rows = append(rows, r)
		tokens += f.cost[r]
	}
	return rows, tokens
}

// SentenceFloor is the floor of the evidence measurement: a row for every
// sentence of every abstract, with its abstract's title.
type SentenceFloor struct {
	Floor
	index map[string]int // position in the abstracts by id
	rows  []sentenceAt   // the sentence of each row
}

// sentenceAt is sentence idx of the abstract at position doc.
type sentenceAt struct{ doc, idx int }

// NewSentenceFloor adds every sentence of docs to a floor.
func NewSentenceFloor(docs []SentenceDoc) *SentenceFloor {
	f := &SentenceFloor{index: make(map[string]int, len(docs))}
	for i, d := range docs {
		f.index[d.ID] = i
		for j, s := range d.Sentences {
			f.Add(d.Title, s)
			f.rows = append(f.rows, sentenceAt{i, j})
		}
	}
	return f
}

// Answer packs the floor's answer to e's claim at a token budget and
// returns whether it answers e (Answered) and the tokens it takes.
func (f *SentenceFloor) Answer(e Evidence, budget int) (answered float64, tokens int) {
	packed, tokens := f.Pack(FloorQuery(e.Claim), budget, nil)
	taken := map[sentenceAt]bool{}
	for _, r := range packed {
		taken[f.rows[r]] = true
	}
	return Answered(e, func(id string, idx int) bool { return taken[sentenceAt{f.index[id], idx}] }), tokens
}
