// Command curve prints, for each data set, evidence recall against the
// tokens recall actually returns, at token budgets from 500 to 4,000:
// recall as it answers by default (it stops when the evidence is in),
// beside the same build asked for the whole budget (fill: the
// fixed-budget curve) and the floor of the same run. Each figure is given
// for the half that tuned the stop and for the half held out:
//   - SciFact: the 5,183 abstracts as papers, the 505 claims with
//     rationales, label Claim; a claim counts when every rationale sentence
//     of one evidence abstract is returned (as devtools/cmd/scifact counts
//     it); floor: FTS5 over sentences; odd claims tune, even ones are held
//     out;
//   - QASPER: each paper alone in its workspace, label Claim, para and
//     strict (as devtools/cmd/qasper counts them); floor: FTS5 over the
//     paper's sentences; odd papers tune, even ones are held out;
//   - LoCoMo: each conversation's turns as one user's memories, user
//     recall; a question counts when all its evidence turns are returned
//     (as devtools/cmd/locomo counts it); floor: BM25 alone, filling the
//     budget; conversations 0–2 tune, 3–4 are held out.
//
// A row's tokens are the mean tokens returned per question, not the
// budget: the stop's curve lies above the fill curve where it answers as
// many questions with fewer tokens.
//
// With -svg it also draws the held-out curves, one panel a data set.
//
//	go run ./devtools/cmd/curve [-sets scifact,qasper,locomo] [-budgets 500,1000,2000,3000,4000] [-svg file]
//		[-scifact ../shared/eval/scifact] [-qasper ../shared/eval/qasper] [-locomo ../shared/eval/locomo/locomo-dev.json]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/locomo"
	"github.com/papermem/papermem/internal/qasper"
	"github.com/papermem/papermem/internal/scifact"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "curve:", err)
		os.Exit(1)
	}
}

type config struct {
	budgets                []int
	scifact, qasper, locom string
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("curve", flag.ContinueOnError)
	var c config
	sets := fs.String("sets", "scifact,qasper,locomo", "data sets to measure, comma-separated")
	budgets := fs.String("budgets", "500,1000,2000,3000,4000", "token budgets, comma-separated")
	fs.StringVar(&c.scifact, "scifact", scifact.DefaultDir, "directory of the SciFact files")
	fs.StringVar(&c.qasper, "qasper", qasper.DefaultDir, "directory of "+qasper.File)
	fs.StringVar(&c.locom, "locomo", locomo.DefaultFile, "LoCoMo dataset file")
	svg := fs.String("svg", "", "also write the held-out curves as an SVG image to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if c.budgets, err = evalcmd.Budgets(*budgets); err != nil {
		return fmt.Errorf("-budgets: %w", err)
	}
	if len(c.budgets) == 0 {
		return fmt.Errorf("-budgets: no budget")
	}
	measures := map[string]func(context.Context, config) (*curve, error){
		"scifact": sciFact, "qasper": qasperPapers, "locomo": loCoMo,
	}
	names := map[string]string{"scifact": "SciFact", "qasper": "QASPER (para)", "locomo": "LoCoMo"}
	var plotted []string
	var curves []*curve
	for _, set := range evalcmd.List(*sets) {
		measure, ok := measures[set]
		if !ok {
			return fmt.Errorf("-sets: %q is none of scifact, qasper, locomo", set)
		}
		start := time.Now()
		cv, err := measure(ctx, c)
		if err != nil {
			return fmt.Errorf("%s: %w", set, err)
		}
		cv.print(out, c.budgets, time.Since(start))
		plotted, curves = append(plotted, names[set]), append(curves, cv)
	}
	if *svg == "" {
		return nil
	}
	f, err := os.Create(*svg)
	if err != nil {
		return err
	}
	if err := plot(f, plotted, curves, c.budgets); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Halves and the ways each question is answered.
const (
	tune, held = 0, 1
	floor      = 0
	fill       = 1
	stop       = 2
)

var (
	halfNames = [2]string{"tune", "held out"}
	wayNames  = [3]string{"floor", "fill", "stop"}
)

// tally counts the questions asked one way at one budget, those answered
// (second: by a stricter measure, QASPER's strict) and the tokens returned.
type tally struct{ n, hit, second, tokens int }

func (t *tally) add(hit, second bool, tokens int) {
	t.n++
	t.tokens += tokens
	if hit {
		t.hit++
	}
	if second {
		t.second++
	}
}

// curve holds a data set's tallies by half, budget and way.
type curve struct {
	title  string
	floor  string // what the floor is
	strict bool   // print the second measure
	t      map[[3]int]*tally
}

func newCurve(title, floor string, strict bool) *curve {
	return &curve{title: title, floor: floor, strict: strict, t: map[[3]int]*tally{}}
}

func (c *curve) at(half, budget, way int) *tally {
	k := [3]int{half, budget, way}
	if c.t[k] == nil {
		c.t[k] = &tally{}
	}
	return c.t[k]
}

// print writes the curve as a Markdown table: per half and budget, each
// way's share of questions answered and the mean tokens it returned.
func (c *curve) print(out io.Writer, budgets []int, took time.Duration) {
	fmt.Fprintf(out, "\n%s (floor: %s; %s)\n\n", c.title, c.floor, took.Round(time.Second))
	fmt.Fprint(out, "| half | budget |")
	for _, w := range wayNames {
		fmt.Fprintf(out, " %s | tokens |", w)
	}
	fmt.Fprint(out, "\n|---|---:|")
	for range wayNames {
		fmt.Fprint(out, "---:|---:|")
	}
	fmt.Fprintln(out)
	for h, name := range halfNames {
		for _, b := range budgets {
			fmt.Fprintf(out, "| %s | %d |", name, b)
			for w := range wayNames {
				t := c.at(h, b, w)
				if t.n == 0 {
					fmt.Fprint(out, " - | - |")
					continue
				}
				n := float64(t.n)
				share := fmt.Sprintf("%.3f", float64(t.hit)/n)
				if c.strict {
					share += fmt.Sprintf(" / %.3f", float64(t.second)/n)
				}
				fmt.Fprintf(out, " %s | %.0f |", share, float64(t.tokens)/n)
			}
			fmt.Fprintln(out)
		}
	}
}

// fillAndStop asks recall req at budget b twice, filling the budget and as
// it answers by default (stopping when the evidence is in), and tallies in
// half each answer as judge scores it (answered, and by the second
// measure).
func (c *curve) fillAndStop(ctx context.Context, recall func(context.Context, papermem.RecallRequest) (*papermem.RecallResult, error),
	req papermem.RecallRequest, half, b int, judge func(*papermem.RecallResult) (bool, bool)) error {
	for _, way := range []int{fill, stop} {
		req.BudgetTokens, req.Fill = b, way == fill
		res, err := recall(ctx, req)
		if err != nil {
			return err
		}
		hit, second := judge(res)
		c.at(half, b, way).add(hit, second, res.TotalTokens)
	}
	return nil
}

// sciFact measures evidence recall on SciFact's claims.
func sciFact(ctx context.Context, c config) (*curve, error) {
	corpus, err := scifact.Corpus(c.scifact)
	if err != nil {
		return nil, err
	}
	docs, err := scifact.Sentences(c.scifact)
	if err != nil {
		return nil, err
	}
	evs, err := scifact.EvidenceClaims(c.scifact)
	if err != nil {
		return nil, err
	}
	m, done, err := evalcmd.OpenMemory(ctx, "")
	if err != nil {
		return nil, err
	}
	defer done()
	doi := func(id string) string { return "10.0000/scifact." + id }
	for _, d := range corpus {
		if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: doi(d.ID), Title: d.Title, Text: d.Text}); err != nil {
			return nil, fmt.Errorf("store %s: %w", d.ID, err)
		}
	}
	fl := scifact.NewSentenceFloor(docs)
	byID := map[string]int{}
	for i, d := range docs {
		byID[d.ID] = i
	}
	cv := newCurve(fmt.Sprintf("SciFact, %d claims with rationales, label Claim: evidence recall", len(evs)), "FTS5 over sentences", false)
	for i, e := range evs {
		half := held
		if i%2 == 1 {
			half = tune
		}
		for _, b := range c.budgets {
			hit, n := fl.Answer(e, b)
			cv.at(half, b, floor).add(hit == 1, false, n)
			err := cv.fillAndStop(ctx, m.Recall, papermem.RecallRequest{Question: e.Claim}, half, b, func(res *papermem.RecallResult) (bool, bool) {
				return scifact.Answered(e, func(id string, idx int) bool {
					want := scifact.Normalize(docs[byID[id]].Sentences[idx])
					return slices.ContainsFunc(res.Spans, func(s papermem.Span) bool {
						return s.Provenance.DOI == doi(id) && strings.Contains(scifact.Normalize(s.Text), want)
					})
				}) == 1, false
			})
			if err != nil {
				return nil, fmt.Errorf("claim %s: %w", e.ID, err)
			}
		}
	}
	return cv, nil
}

// qasperPapers measures recall inside whole papers, each alone in its
// workspace.
func qasperPapers(ctx context.Context, c config) (*curve, error) {
	papers, err := qasper.Load(c.qasper)
	if err != nil {
		return nil, err
	}
	m, done, err := evalcmd.OpenMemory(ctx, "")
	if err != nil {
		return nil, err
	}
	defer done()
	cv := newCurve("QASPER, each paper alone in its workspace, label Claim: para / strict", "FTS5 over the paper's sentences", true)
	for i := range papers {
		p := &papers[i]
		qs := p.Questions()
		if len(qs) == 0 {
			continue
		}
		half := held
		if i%2 == 1 {
			half = tune
		}
		w := m.Workspace(fmt.Sprintf("qasper-%d", i))
		if _, err := w.IngestFile(ctx, p.ID+".md", strings.NewReader(p.Markdown()), papermem.IngestOptions{DOI: p.DOI()}); err != nil {
			return nil, fmt.Errorf("ingest %s: %w", p.ID, err)
		}
		var fl qasper.Floor
		fl.Add(p)
		for _, q := range qs {
			for _, b := range c.budgets {
				rows, n := fl.Pack(q.Text, b, "")
				texts := make([]string, len(rows))
				for j, r := range rows {
					texts[j] = r.Text
				}
				para, strict := q.Match(qasper.NewReturned(texts))
				cv.at(half, b, floor).add(para, strict, n)
				err := cv.fillAndStop(ctx, w.Recall, papermem.RecallRequest{Question: q.Text}, half, b, func(res *papermem.RecallResult) (bool, bool) {
					texts := make([]string, len(res.Spans))
					for j, s := range res.Spans {
						texts[j] = s.Text
					}
					return q.Match(qasper.NewReturned(texts))
				})
				if err != nil {
					return nil, fmt.Errorf("question %s of %s: %w", q.ID, p.ID, err)
				}
			}
		}
	}
	return cv, nil
}

// loCoMo measures user recall on LoCoMo's conversations.
func loCoMo(ctx context.Context, c config) (*curve, error) {
	convs, err := locomo.Load(c.locom)
	if err != nil {
		return nil, err
	}
	m, done, err := evalcmd.OpenMemory(ctx, "")
	if err != nil {
		return nil, err
	}
	defer done()
	w := m.Workspace("locomo")
	cv := newCurve("LoCoMo, each conversation one user's memories, user recall: evidence recall", "BM25 alone, filling the budget", false)
	for ci, conv := range convs {
		turns, err := locomo.Store(ctx, w, conv.SampleID, conv.Conversation, locomo.StoreAs{Speakers: true})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", conv.SampleID, err)
		}
		half := held
		if ci <= 2 {
			half = tune
		}
		for _, qa := range conv.QA {
			ev := locomo.EvidenceIDs(qa.Evidence)
			if qa.Category == locomo.Adversarial || len(ev) == 0 || slices.ContainsFunc(ev, func(id string) bool { return turns[id] == "" }) {
				continue
			}
			for _, b := range c.budgets {
				for way, req := range [...]papermem.UserRecallRequest{
					floor: {Question: qa.Question, BudgetTokens: b, Fill: true, Retrieval: papermem.RetrievalLexical},
					fill:  {Question: qa.Question, BudgetTokens: b, Fill: true},
					stop:  {Question: qa.Question, BudgetTokens: b},
				} {
					res, err := w.RecallUser(ctx, conv.SampleID, req)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", conv.SampleID, err)
					}
					cv.at(half, b, way).add(locomo.Covers(res, ev), false, res.TotalTokens)
				}
			}
		}
	}
	return cv, nil
}
