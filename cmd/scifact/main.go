// Command scifact measures papermem's paper ranking on SciFact (BEIR
// format): it stores every abstract as a paper, ranks papers for each
// training claim, and prints nDCG@10 and Recall@100 for BM25 only, vectors
// only and hybrid recall.
//
//	go run ./cmd/scifact [-data ../shared/eval/scifact] [-db path]
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
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/scifact"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scifact:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("scifact", flag.ContinueOnError)
	data := fs.String("data", scifact.DefaultDir, "directory with corpus.jsonl.gz, queries-train.jsonl, qrels-train.tsv")
	dbPath := fs.String("db", "", "database file (default: a temporary file)")
	reuse := fs.Bool("reuse", false, "reuse the papers already stored in -db")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the ranking phase to this file")
	split := fs.String("split", "all", "evaluate all judged claims, or the even- or odd-numbered half (tune on one, report the other)")
	modes := fs.String("modes", "bm25,vector,hybrid", "retrieval modes to evaluate, comma-separated")
	maxQueries := fs.Int("queries", 0, "evaluate only the first N judged claims (0: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	corpus, err := scifact.Corpus(*data)
	if err != nil {
		return err
	}
	queries, err := scifact.Queries(*data)
	if err != nil {
		return err
	}
	qrels, err := scifact.Qrels(*data)
	if err != nil {
		return err
	}
	m, done, err := evalcmd.OpenMemory(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer done()

	start := time.Now()
	if *reuse {
		corpus = nil
	}
	for _, d := range corpus {
		if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: docDOI(d.ID), Title: d.Title, Text: d.Text}); err != nil {
			return fmt.Errorf("store %s: %w", d.ID, err)
		}
	}
	fmt.Fprintf(out, "stored %d abstracts in %s\n", len(corpus), time.Since(start).Round(time.Millisecond))

	var judged []scifact.Query
	for _, q := range queries {
		if len(qrels[q.ID]) > 0 {
			judged = append(judged, q)
		}
	}
	switch *split {
	case "even", "odd":
		var half []scifact.Query
		for i, q := range judged {
			if (i%2 == 0) == (*split == "even") {
				half = append(half, q)
			}
		}
		judged = half
	case "all":
	default:
		return fmt.Errorf("-split must be all, even or odd")
	}
	if *maxQueries > 0 && *maxQueries < len(judged) {
		judged = judged[:*maxQueries]
	}
	stopProfile, err := evalcmd.StartCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	fmt.Fprintf(out, "%d judged claims\n\n%-8s  %8s  %10s  %10s\n", len(judged), "mode", "nDCG@10", "Recall@100", "ms/query")
	for _, mode := range []struct {
		name string
		r    papermem.Retrieval
	}{{"bm25", papermem.RetrievalLexical}, {"vector", papermem.RetrievalVector}, {"hybrid", papermem.RetrievalHybrid}} {
		if !slices.Contains(strings.Split(*modes, ","), mode.name) {
			continue
		}
		var ndcg, rec float64
		start := time.Now()
		for _, q := range judged {
			ps, err := m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: q.Text, Limit: 100, Retrieval: mode.r})
			if err != nil {
				return fmt.Errorf("recall %s: %w", q.ID, err)
			}
			ranked := make([]string, len(ps))
			for i, p := range ps {
				ranked[i] = p.DOI
			}
			rel := map[string]int{}
			for id, g := range qrels[q.ID] {
				rel[docDOI(id)] = g
			}
			ndcg += nDCG(ranked, rel, 10)
			rec += recallAt(ranked, rel, 100)
		}
		n := float64(len(judged))
		ms := float64(time.Since(start).Microseconds()) / 1000 / n
		fmt.Fprintf(out, "%-8s  %8.4f  %10.4f  %10.2f\n", mode.name, ndcg/n, rec/n, ms)
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
