package qasper

import "github.com/papermem/papermem/internal/scifact"

// Floor is the measure's floor over the sentences of one or more papers:
// FTS5 over rows (section name, sentence), weighted 2:1, porter and
// unicode61 (scifact.Floor), asked each question's words but stop words
// (scifact.FloorQuery).
type Floor struct {
	f    scifact.Floor
	rows []Row
}

// Row is a row of the floor: a sentence of a paper.
type Row struct {
	Paper string // the paper's id
	Sentence
}

// Add adds the paper's sentences (Paper.Sentences).
func (f *Floor) Add(p *Paper) {
	for _, s := range p.Sentences() {
		f.f.Add(s.Section, s.Text)
		f.rows = append(f.rows, Row{p.ID, s})
	}
}

// Len is the number of rows.
func (f *Floor) Len() int { return len(f.rows) }

// Pack returns the floor's answer to a question at a token budget: the
// best sentences, best first, taken while the next fits at
// scifact.FloorTokens, and the tokens they take. With paper set, only that
// paper's sentences are taken.
func (f *Floor) Pack(question string, budget int, paper string) ([]Row, int) {
	var keep func(int) bool
	if paper != "" {
		keep = func(r int) bool { return f.rows[r].Paper == paper }
	}
	rows, tokens := f.f.Pack(scifact.FloorQuery(question), budget, keep)
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = f.rows[r]
	}
	return out, tokens
}
