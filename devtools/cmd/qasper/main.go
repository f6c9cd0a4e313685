// Command qasper measures papermem's recall over whole papers on QASPER
// (../shared/eval/qasper; its README defines the measure). Each paper is
// ingested as the Markdown a reader would hand over (internal/qasper),
// with its DOI, and every counted question is asked through recall at each
// token budget and label. A question is answered ("para") when, for one
// annotator, every evidence paragraph has a returned span inside it,
// containing it or sharing a sentence of 30 or more characters with it;
// "strict" also needs the start of every sentence that annotator
// highlighted in the returned text. Only the spans of the question's paper
// count; tokens count every span returned.
//
// Two scopes: per paper (each paper alone in its own workspace) and
// workspace-wide (all papers of the run in one workspace). Each prints a
// table beside the floor of the same run, a plain FTS5 search over the
// papers' sentences packed best first (internal/qasper.Floor): over the
// paper's sentences per paper, over all papers' sentences workspace-wide.
// Workspace-wide it also prints the share of the returned tokens that come
// from the question's paper.
// Every figure is given for all papers' questions and for each half of the
// papers in id order: settings are tuned on the odd-numbered papers, the
// even-numbered ones are held out.
//
//	go run ./devtools/cmd/qasper [-data ../shared/eval/qasper] [-papers N] [-scope per-paper,workspace]
//		[-labels Claim,Any,Passage] [-budgets 200,500,1000] [-db path] [-v]
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
		fmt.Fprintln(os.Stderr, "qasper:", err)
		os.Exit(1)
	}
}

// Scopes of the measurement.
const (
	scopePaper     = "per-paper"
	scopeWorkspace = "workspace"
)

type config struct {
	data, dbPath   string
	labels, scopes []string
	budgets        []int
	papers         int
	verbose        bool
	offTopic       *offTopic // nil: not measured
	out            io.Writer
	m              *papermem.Memory
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("qasper", flag.ContinueOnError)
	c := config{out: out}
	fs.StringVar(&c.data, "data", qasper.DefaultDir, "directory of "+qasper.File)
	fs.StringVar(&c.dbPath, "db", "", "database file (default: a temporary file)")
	labels := fs.String("labels", "Claim,Any,Passage", "recall labels to measure, comma-separated; a label ending in "+evalcmd.FillSuffix+" asks for the whole budget")
	budgets := fs.String("budgets", "200,500,1000", "token budgets, comma-separated")
	scopes := fs.String("scope", scopePaper+","+scopeWorkspace, "scopes to measure: "+scopePaper+", "+scopeWorkspace)
	fs.IntVar(&c.papers, "papers", 0, "measure only the first N papers in id order (0: all)")
	fs.BoolVar(&c.verbose, "v", false, "print every question a label misses (strict) at each budget, with what recall returned")
	measureOffTopic := fs.Bool("offtopic", true, "per paper, also ask other data sets' questions (-locomo, -scifact) and print what recall returns for them")
	offTopicBudget := fs.Int("offtopic-budget", 2000, "token budget of the off-topic measurement")
	locomoFile := fs.String("locomo", locomo.DefaultFile, "LoCoMo dataset file, for -offtopic")
	scifactDir := fs.String("scifact", scifact.DefaultDir, "directory of the SciFact files, for -offtopic")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *measureOffTopic && slices.Contains(evalcmd.List(*scopes), scopePaper) {
		o, err := newOffTopic(*locomoFile, *scifactDir, *offTopicBudget)
		if err != nil {
			return err
		}
		c.offTopic = o
	}
	c.labels, c.scopes = evalcmd.List(*labels), evalcmd.List(*scopes)
	for _, s := range c.scopes {
		if s != scopePaper && s != scopeWorkspace {
			return fmt.Errorf("-scope: %q is neither %s nor %s", s, scopePaper, scopeWorkspace)
		}
	}
	var err error
	if c.budgets, err = evalcmd.Budgets(*budgets); err != nil {
		return fmt.Errorf("-budgets: %w", err)
	}
	if len(c.budgets) == 0 {
		return fmt.Errorf("-budgets: no budget")
	}
	start := time.Now()
	papers, err := qasper.Load(c.data)
	if err != nil {
		return err
	}
	if c.papers > 0 && c.papers < len(papers) {
		papers = papers[:c.papers]
	}
	qs := describe(out, papers)
	m, done, err := evalcmd.OpenMemory(ctx, c.dbPath)
	if err != nil {
		return err
	}
	defer done()
	c.m = m
	for _, s := range c.scopes {
		var err error
		if s == scopePaper {
			err = perPaper(ctx, c, papers, qs)
		} else {
			err = workspaceWide(ctx, c, papers, qs)
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\ntotal %s\n", time.Since(start).Round(time.Second))
	return nil
}

// describe prints what the run counts and returns each paper's counted
// questions.
func describe(out io.Writer, papers []qasper.Paper) [][]qasper.Question {
	qs := make([][]qasper.Question, len(papers))
	var all, counted, withQ, headed int
	var half [3]int
	for i := range papers {
		p := &papers[i]
		all += len(p.QAs)
		qs[i] = p.Questions()
		if len(qs[i]) > 0 {
			withQ++
		}
		counted += len(qs[i])
		half[halfOf(i)] += len(qs[i])
		for _, q := range qs[i] {
			if !slices.ContainsFunc(q.Annotators, func(a qasper.Annotation) bool { return !slices.ContainsFunc(a.Evidence, p.IsHeading) }) {
				headed++
			}
		}
	}
	fmt.Fprintf(out, "%d papers, %d with counted questions; %d of their %d questions counted (odd/tune %d, even/held %d)\n",
		len(papers), withQ, counted, all, half[1], half[2])
	fmt.Fprintf(out, "%d counted questions have a section heading among the evidence of every annotator (never inside a span)\n", headed)
	return qs
}

// halfOf is the half of the paper at position i in id order: 1 (odd,
// tune) or 2 (even, held out); 0 stands for all.
func halfOf(i int) int { return 2 - i%2 }

// workspaceID is the workspace of one paper in the per-paper scope.
func workspaceID(paperID string) (string, error) {
	id := "qasper-" + strings.NewReplacer(".", "-", "/", "-").Replace(strings.ToLower(paperID))
	if !papermem.ValidWorkspaceID(id) {
		return "", fmt.Errorf("paper %s: no valid workspace id (%q)", paperID, id)
	}
	return id, nil
}

// allWorkspace holds every paper in the workspace-wide scope.
const allWorkspace = "qasper-all"

// ingested sums what ingesting papers stored and took.
type ingested struct {
	papers, nodes, claims int
	took                  time.Duration
}

func (in *ingested) ingest(ctx context.Context, w *papermem.Workspace, p *qasper.Paper) error {
	start := time.Now()
	rep, err := w.IngestFile(ctx, p.ID+".md", strings.NewReader(p.Markdown()), papermem.IngestOptions{DOI: p.DOI()})
	if err != nil {
		return fmt.Errorf("ingest %s: %w", p.ID, err)
	}
	in.took += time.Since(start)
	in.papers++
	in.nodes += rep.NodesStored
	in.claims += rep.ClaimsFound
	return nil
}

func (in ingested) String() string {
	if in.papers == 0 {
		return "ingested no paper"
	}
	return fmt.Sprintf("ingested %d papers in %s (%.0f ms/paper): %d nodes, %d of them claims (%.0f and %.0f per paper)",
		in.papers, in.took.Round(time.Millisecond), float64(in.took.Milliseconds())/float64(in.papers),
		in.nodes, in.claims, float64(in.nodes)/float64(in.papers), float64(in.claims)/float64(in.papers))
}

// perPaper measures each paper with questions alone in its workspace,
// beside a floor over its sentences only.
func perPaper(ctx context.Context, c config, papers []qasper.Paper, qs [][]qasper.Question) error {
	t := newTable("per paper: each paper alone in its workspace", c)
	var in ingested
	var asked time.Duration
	for i := range papers {
		p := &papers[i]
		if len(qs[i]) == 0 {
			continue
		}
		id, err := workspaceID(p.ID)
		if err != nil {
			return err
		}
		w := c.m.Workspace(id)
		if err := in.ingest(ctx, w, p); err != nil {
			return err
		}
		var f qasper.Floor
		f.Add(p)
		start := time.Now()
		for _, q := range qs[i] {
			if err := ask(ctx, c, t, w, &f, p, halfOf(i), q, unscoped); err != nil {
				return err
			}
		}
		asked += time.Since(start)
		if c.offTopic != nil {
			if err := c.offTopic.ask(ctx, w, i, qs[i]); err != nil {
				return err
			}
		}
	}
	t.print(c.out, in, asked)
	if c.offTopic != nil {
		return c.offTopic.print(c.out)
	}
	return nil
}

// A variant says how the workspace-wide scope asks a question.
type variant struct {
	name  string
	paper bool // restricted to the question's paper
}

var (
	unscoped = variant{"unscoped", false}
	scoped   = variant{"scoped to the paper (dois)", true}
)

// workspaceWide measures all papers of the run in one workspace, beside a
// floor over all their sentences: unscoped, and scoped to the question's
// paper (dois).
func workspaceWide(ctx context.Context, c config, papers []qasper.Paper, qs [][]qasper.Question) error {
	variants := []variant{unscoped, scoped}
	w := c.m.Workspace(allWorkspace)
	var in ingested
	var f qasper.Floor
	for i := range papers {
		if err := in.ingest(ctx, w, &papers[i]); err != nil {
			return err
		}
		f.Add(&papers[i])
	}
	for _, v := range variants {
		t := newTable("workspace-wide, "+v.name+": all papers in one workspace", c)
		t.mixed = true
		start := time.Now()
		for i := range papers {
			for _, q := range qs[i] {
				if err := ask(ctx, c, t, w, &f, &papers[i], halfOf(i), q, v); err != nil {
					return err
				}
			}
		}
		t.print(c.out, in, time.Since(start))
	}
	return nil
}

// ask puts question q of paper p to the floor and to recall at every label
// and budget, and adds the results to t.
func ask(ctx context.Context, c config, t *table, w *papermem.Workspace, f *qasper.Floor, p *qasper.Paper, half int, q qasper.Question, v variant) error {
	only := ""
	if v.paper {
		only = p.ID
	}
	for bi, b := range c.budgets {
		rows, tokens := f.Pack(q.Text, b, only)
		var texts []string
		own := 0
		for _, r := range rows {
			if r.Paper == p.ID {
				texts = append(texts, r.Text)
				own += scifact.FloorTokens(r.Text)
			}
		}
		para, strict := q.Match(qasper.NewReturned(texts))
		t.add(0, bi, half, para, strict, tokens, own)
	}
	doi := papermem.NormalizeDOI(p.DOI())
	for li, label := range c.labels {
		name, fill := evalcmd.Label(label)
		for bi, b := range c.budgets {
			req := papermem.RecallRequest{Question: q.Text, Label: name, BudgetTokens: b, Fill: fill}
			if v.paper {
				req.DOIs = []string{doi}
			}
			res, err := w.Recall(ctx, req)
			if err != nil {
				return fmt.Errorf("recall %s of %s: %w", q.ID, p.ID, err)
			}
			var texts []string
			own := 0
			for _, s := range res.Spans {
				if s.Provenance.DOI == doi {
					texts = append(texts, s.Text)
					own += s.Tokens
				}
			}
			r := qasper.NewReturned(texts)
			para, strict := q.Match(r)
			t.add(li+1, bi, half, para, strict, res.TotalTokens, own)
			if c.verbose && !strict {
				miss(c.out, t.title, label, b, p, q, r, res, doi, para)
			}
		}
	}
	return nil
}

// miss prints a question recall missed: its evidence paragraphs, each
// marked + when returned, and the spans returned.
func miss(out io.Writer, scope, label string, budget int, p *qasper.Paper, q qasper.Question, r *qasper.Returned, res *papermem.RecallResult, doi string, para bool) {
	what := "miss"
	if para {
		what = "strict miss"
	}
	fmt.Fprintf(out, "\n%s [%s] %s@%d, paper %s, question %s: %s\n", what, scope, label, budget, p.ID, q.ID, q.Text)
	for ai, a := range q.Annotators {
		for _, e := range a.Evidence {
			mark := "-"
			if r.Found(e) {
				mark = "+"
			}
			heading := ""
			if p.IsHeading(e) {
				heading = " (a heading)"
			}
			fmt.Fprintf(out, "  annotator %d %s %q%s\n", ai+1, mark, clip(e, 100), heading)
		}
	}
	for _, s := range res.Spans {
		other := ""
		if s.Provenance.DOI != doi {
			other = " other paper " + s.Provenance.DOI
		}
		fmt.Fprintf(out, "    span %-7s %.4f %3d tok [%s]%s %q\n", s.Label, s.Score, s.Tokens, s.Provenance.Section, other, clip(s.Text, 80))
	}
}

// clip returns the first n runes of s, white space collapsed.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
