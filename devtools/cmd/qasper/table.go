package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// table gathers one scope's results: a row for the floor and one per
// label, by budget and half.
type table struct {
	title   string
	rows    []string
	budgets []int
	cells   [][][3]cell // by row, budget and half (0 all, 1 odd, 2 even)
	mixed   bool        // spans may come from other papers: print the own share
}

// cell counts the questions asked, answered (para, strict), the tokens
// returned and those of them from the question's paper (own).
type cell struct{ n, para, strict, tokens, own int }

func newTable(title string, c config) *table {
	t := &table{title: title, rows: append([]string{"floor"}, c.labels...), budgets: c.budgets}
	t.cells = make([][][3]cell, len(t.rows))
	for i := range t.cells {
		t.cells[i] = make([][3]cell, len(c.budgets))
	}
	return t
}

// add counts a question of the given half.
func (t *table) add(row, budget, half int, para, strict bool, tokens, own int) {
	for _, h := range []int{0, half} {
		x := &t.cells[row][budget][h]
		x.n++
		x.tokens += tokens
		x.own += own
		if para {
			x.para++
		}
		if strict {
			x.strict++
		}
	}
}

var halfNames = [3]string{"all", "odd/tune", "even/held"}

// print writes the table as fixed-width Markdown: per budget, the share of
// questions answered (para, strict) and the mean tokens returned.
func (t *table) print(out io.Writer, in ingested, asked time.Duration) {
	var questions, recalls int
	if len(t.rows) > 0 && len(t.budgets) > 0 {
		questions = t.cells[0][0][0].n
		recalls = questions * (len(t.rows) - 1) * len(t.budgets)
	}
	fmt.Fprintf(out, "\n%s\n%s\n", t.title, in)
	fmt.Fprintf(out, "asked %d questions at %d budgets of the floor and %d labels in %s", questions, len(t.budgets), len(t.rows)-1, asked.Round(time.Millisecond))
	if recalls > 0 {
		fmt.Fprintf(out, " (%.1f ms per recall)", float64(asked.Microseconds())/1000/float64(recalls))
	}
	fmt.Fprintf(out, "\n\n")
	head := []string{"retrieval", "half"}
	for _, b := range t.budgets {
		head = append(head, fmt.Sprintf("%d para", b), fmt.Sprintf("%d strict", b))
	}
	for _, b := range t.budgets {
		head = append(head, fmt.Sprintf("%d tokens", b))
	}
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = max(len(h), 7)
	}
	width[1] = len("even/held")
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range cells {
			if i < 2 {
				fmt.Fprintf(&b, " %-*s |", width[i], c)
			} else {
				fmt.Fprintf(&b, " %*s |", width[i], c)
			}
		}
		fmt.Fprintln(out, b.String())
	}
	line(head)
	rule := make([]string, len(head))
	for i := range rule {
		rule[i] = strings.Repeat("-", width[i])
		if i >= 2 {
			rule[i] = rule[i][1:] + ":"
		}
	}
	line(rule)
	for r, name := range t.rows {
		for h := range 3 {
			cells := []string{name, halfNames[h]}
			var toks []string
			for bi := range t.budgets {
				x := t.cells[r][bi][h]
				if x.n == 0 {
					cells = append(cells, "-", "-")
					toks = append(toks, "-")
					continue
				}
				n := float64(x.n)
				cells = append(cells, fmt.Sprintf("%.3f", float64(x.para)/n), fmt.Sprintf("%.3f", float64(x.strict)/n))
				toks = append(toks, fmt.Sprintf("%.0f", float64(x.tokens)/n))
			}
			line(append(cells, toks...))
		}
	}
	if t.mixed {
		fmt.Fprintf(out, "\nshare of the tokens returned that come from the question's paper (all questions), at each budget:\n")
		for r, name := range t.rows {
			var shares []string
			for bi := range t.budgets {
				if x := t.cells[r][bi][0]; x.tokens > 0 {
					shares = append(shares, fmt.Sprintf("%.3f", float64(x.own)/float64(x.tokens)))
				} else {
					shares = append(shares, "-")
				}
			}
			fmt.Fprintf(out, "  %-9s %s\n", name, strings.Join(shares, "  "))
		}
	}
}
