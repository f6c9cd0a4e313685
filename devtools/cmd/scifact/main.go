// Command scifact measures papermem on SciFact (BEIR format): it stores
// every abstract as a paper, then prints in one run
//   - paper ranking (nDCG@10, Recall@100) for BM25 only, vectors only and
//     hybrid recall, beside the paper floor: a plain full-text query over
//     title and abstract, ranked as FTS5's bm25 with title weight 2;
//   - evidence recall at each token budget for the default label (Claim),
//     Any and Passage, beside the sentence floor: the same query over single
//     sentences, packed best first (see internal/scifact);
//   - the claim extractor's recall on the annotated rationale sentences and
//     the share of all sentences it marks as claims;
//   - off-topic recall: how much Recall (Claim and Any) and RecallPapers
//     return for LoCoMo questions, which no abstract answers, beside the
//     same for SciFact claims at the same budget.
//
// Every figure but off-topic recall is given for all claims and for each
// half: settings are tuned on the odd-numbered claims, the even-numbered
// ones are held out.
//
//	go run ./devtools/cmd/scifact [-data ../shared/eval/scifact] [-db path] [-locomo ../shared/eval/locomo/locomo-dev.json] [-offtopic=false]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/locomo"
	"github.com/papermem/papermem/internal/scifact"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scifact:", err)
		os.Exit(1)
	}
}

type config struct {
	data, dbPath  string
	reuse         bool
	modes, labels []string
	budgets       []int
	maxQueries    int

	offTopic                          bool
	locomo                            string
	offTopicBudget, offTopicQuestions int
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("scifact", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.data, "data", scifact.DefaultDir, "directory of the SciFact files")
	fs.StringVar(&c.dbPath, "db", "", "database file (default: a temporary file)")
	fs.BoolVar(&c.reuse, "reuse", false, "reuse the papers already stored in -db")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the measurement to this file")
	modes := fs.String("modes", "bm25,vector,hybrid", "paper ranking modes to evaluate, comma-separated (none: skip)")
	labels := fs.String("labels", "Claim,Any,Passage", "recall labels whose evidence recall to measure (none: skip); a label ending in "+evalcmd.FillSuffix+" asks for the whole budget")
	budgets := fs.String("budgets", "100,200,500,1000,2000", "token budgets of the evidence measurement")
	fs.IntVar(&c.maxQueries, "queries", 0, "evaluate only the first N claims of each measurement (0: all)")
	fs.BoolVar(&c.offTopic, "offtopic", true, "measure what recall returns for LoCoMo questions, which no abstract answers")
	fs.StringVar(&c.locomo, "locomo", locomo.DefaultFile, "LoCoMo dataset file, for -offtopic")
	fs.IntVar(&c.offTopicBudget, "offtopic-budget", 2000, "token budget of the off-topic measurement")
	fs.IntVar(&c.offTopicQuestions, "offtopic-questions", 100, "LoCoMo questions, and SciFact claims beside them, of the off-topic measurement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.modes, c.labels = evalcmd.List(*modes), evalcmd.List(*labels)
	var err error
	if c.budgets, err = evalcmd.Budgets(*budgets); err != nil {
		return fmt.Errorf("-budgets: %w", err)
	}
	if c.offTopicBudget < 1 || c.offTopicBudget > papermem.MaxBudgetTokens {
		return fmt.Errorf("-offtopic-budget: %d is not between 1 and %d", c.offTopicBudget, papermem.MaxBudgetTokens)
	}
	if c.offTopicQuestions < 1 {
		return fmt.Errorf("-offtopic-questions: %d is not a number of questions", c.offTopicQuestions)
	}
	corpus, err := scifact.Corpus(c.data)
	if err != nil {
		return err
	}
	var convs []locomo.Conversation
	if c.offTopic {
		if convs, err = locomo.Load(c.locomo); err != nil {
			return fmt.Errorf("-locomo: %w", err)
		}
	}
	m, done, err := evalcmd.OpenMemory(ctx, c.dbPath)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	if !c.reuse {
		for _, d := range corpus {
			if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: docDOI(d.ID), Title: d.Title, Text: d.Text}); err != nil {
				return fmt.Errorf("store %s: %w", d.ID, err)
			}
		}
		fmt.Fprintf(out, "stored %d abstracts in %s\n", len(corpus), time.Since(start).Round(time.Millisecond))
	}
	stopProfile, err := evalcmd.StartCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if len(c.modes) > 0 {
		if err := paperRanking(ctx, out, m, corpus, c); err != nil {
			return err
		}
	}
	if len(c.labels) > 0 {
		if err := evidenceRecall(ctx, out, m, c); err != nil {
			return err
		}
	}
	if c.offTopic {
		return offTopic(ctx, out, m, c, convs, len(corpus))
	}
	return nil
}

// halves holds a per-claim measure and averages it over all claims and
// over each half.
type halves []float64

func (h halves) row() string {
	all, odd, even := h.means()
	return fmt.Sprintf("%8.4f  %8.4f  %8.4f", all, odd, even)
}

// tokens is row for a count of tokens.
func (h halves) tokens() string {
	all, odd, even := h.means()
	return fmt.Sprintf("%6.0f  %6.0f  %6.0f", all, odd, even)
}

// means returns the mean over all claims, the odd ones and the even ones.
func (h halves) means() (all, odd, even float64) {
	var nOdd, nEven int
	for i, x := range h {
		all += x
		if i%2 == 0 {
			even += x
			nEven++
		} else {
			odd += x
			nOdd++
		}
	}
	div := func(a float64, n int) float64 {
		if n == 0 {
			return 0
		}
		return a / float64(n)
	}
	return div(all, len(h)), div(odd, nOdd), div(even, nEven)
}

const (
	halvesHeader = "     all  odd/tune  even/held"
	tokensHeader = "tokens     odd    even"
)

// paperRanking prints nDCG@10 and Recall@100 of paper recall in each mode
// beside the paper floor.
func paperRanking(ctx context.Context, out io.Writer, m *papermem.Memory, corpus []scifact.Doc, c config) error {
	queries, err := scifact.Queries(c.data)
	if err != nil {
		return err
	}
	qrels, err := scifact.Qrels(c.data)
	if err != nil {
		return err
	}
	var judged []scifact.Query
	for _, q := range queries {
		if len(qrels[q.ID]) > 0 {
			judged = append(judged, q)
		}
	}
	if c.maxQueries > 0 && c.maxQueries < len(judged) {
		judged = judged[:c.maxQueries]
	}
	var floor scifact.Floor
	for _, d := range corpus {
		floor.Add(d.Title, d.Text)
	}
	fmt.Fprintf(out, "\npaper ranking, %d judged claims\n%-22s  %-28s  %-28s  %s\n%-22s  %s  %s\n", len(judged),
		"retrieval", "nDCG@10", "Recall@100", "ms/query", "", halvesHeader, halvesHeader)
	type ranker struct {
		name string
		rank func(q string) ([]string, error)
	}
	rankers := []ranker{{"floor: FTS5 title+abstract", func(q string) ([]string, error) {
		rows := floor.Search(scifact.FloorQuery(q), 100)
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = docDOI(corpus[r].ID)
		}
		return ids, nil
	}}}
	for _, mode := range []struct {
		name string
		r    papermem.Retrieval
	}{{"bm25", papermem.RetrievalLexical}, {"vector", papermem.RetrievalVector}, {"hybrid", papermem.RetrievalHybrid}} {
		if !slices.Contains(c.modes, mode.name) {
			continue
		}
		rankers = append(rankers, ranker{"papermem " + mode.name, func(q string) ([]string, error) {
			ps, err := m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: q, Limit: 100, Fill: true, Retrieval: mode.r})
			ids := make([]string, len(ps))
			for i, p := range ps {
				ids[i] = p.DOI
			}
			return ids, err
		}})
	}
	for _, r := range rankers {
		ndcg, rec := make(halves, len(judged)), make(halves, len(judged))
		start := time.Now()
		for i, q := range judged {
			ranked, err := r.rank(q.Text)
			if err != nil {
				return fmt.Errorf("%s: claim %s: %w", r.name, q.ID, err)
			}
			rel := map[string]int{}
			for id, g := range qrels[q.ID] {
				rel[docDOI(id)] = g
			}
			ndcg[i], rec[i] = nDCG(ranked, rel, 10), recallAt(ranked, rel, 100)
		}
		ms := float64(time.Since(start).Microseconds()) / 1000 / float64(len(judged))
		fmt.Fprintf(out, "%-22s  %s  %s  %8.2f\n", r.name, ndcg.row(), rec.row(), ms)
	}
	return nil
}

// docDOI gives each SciFact abstract a DOI-shaped key.
func docDOI(id string) string { return "10.0000/scifact." + id }

// nDCG is the normalised discounted cumulative gain of ranked at k.
func nDCG(ranked []string, rel map[string]int, k int) float64 {
	var dcg float64
	for i, id := range ranked[:min(k, len(ranked))] {
		dcg += float64(rel[id]) / math.Log2(float64(i+2))
	}
	var gains []int
	for _, g := range rel {
		gains = append(gains, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(gains)))
	var ideal float64
	for i, g := range gains[:min(k, len(gains))] {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// recallAt is the share of relevant documents among the first k ranked.
func recallAt(ranked []string, rel map[string]int, k int) float64 {
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(len(rel))
}
