// Command locomo measures per-user recall on LoCoMo conversations: it
// stores every dialogue turn of each conversation as one user's memories,
// asks every question of categories 1–4 through RecallUser and prints, per
// category and overall, the share of questions whose evidence turns are all
// among the recalled spans (evidence recall) at several token budgets, for
// BM25 only, vectors only and the full user recall. Then it measures
// off-topic recall: how much full user recall returns for SciFact claims,
// which no conversation answers, asked of every user, beside the same for
// the users' own questions at the same budget.
//
//	go run ./devtools/cmd/locomo [-data file] [-budgets 1000,2000,4000] [-conversations 0,1,2] [-latency] [-longer] [-speakers=false] [-scifact dir] [-offtopic=false]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/locomo"
	"github.com/papermem/papermem/internal/scifact"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "locomo:", err)
		os.Exit(1)
	}
}

// question is one evaluated question with its evidence turn ids.
type question struct {
	user     string
	text     string
	turns    map[string]string // the conversation's turns by id
	category int
	evidence []string
}

// categories are the LoCoMo question categories evaluated; 5 (adversarial,
// no answer in the conversation) is left out.
var categories = []int{1, 2, 3, 4}

// modes are the retrieval configurations compared.
// The full recall stops when the evidence is in; "full:fill" asks it for
// the whole budget (the fixed-budget curve). Each search alone fills the
// budget, as the floors of the other data sets do.
var modes = []mode{
	{"bm25", papermem.RetrievalLexical, true},
	{"vector", papermem.RetrievalVector, true},
	{"full", papermem.RetrievalHybrid, false},
	{"full" + evalcmd.FillSuffix, papermem.RetrievalHybrid, true},
}

// mode is a retrieval configuration.
type mode struct {
	name string
	r    papermem.Retrieval
	fill bool
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("locomo", flag.ContinueOnError)
	data := fs.String("data", locomo.DefaultFile, "LoCoMo dataset file")
	dbPath := fs.String("db", "", "database file (default: a fresh temporary file)")
	budgetList := fs.String("budgets", "1000,2000,4000", "comma-separated token budgets")
	latency := fs.Bool("latency", false, "also time full recall for one user holding 5,000 memories")
	misses := fs.Int("misses", 0, "print up to this many questions the full recall misses at the middle budget")
	modeList := fs.String("retrieval", "bm25,vector,full", "comma-separated retrieval modes to compare: bm25, vector, full and full"+evalcmd.FillSuffix+" (the full recall asked for the whole budget)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the recalls to this file")
	only := fs.String("conversations", "", "comma-separated indexes (from 0) of the conversations to evaluate (default all)")
	speakers := fs.Bool("speakers", true, "store each turn as \"Speaker: text\"; with -speakers=false the text alone, as memories that do not name who said them")
	longer := fs.Bool("longer", false, "each user also holds the turns of the next conversation evaluated (under other keys and sessions), so users are about twice as long; the questions stay their own conversation's")
	offTopic := fs.Bool("offtopic", true, "measure what user recall returns for SciFact claims, which no conversation answers")
	scifactDir := fs.String("scifact", scifact.DefaultDir, "directory of the SciFact files, for -offtopic")
	offTopicBudget := fs.Int("offtopic-budget", 2000, "token budget of the off-topic measurement")
	offTopicClaims := fs.Int("offtopic-claims", 100, "SciFact claims asked of each user in the off-topic measurement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *offTopicBudget < 1 || *offTopicBudget > papermem.MaxBudgetTokens {
		return fmt.Errorf("-offtopic-budget: %d is not between 1 and %d", *offTopicBudget, papermem.MaxBudgetTokens)
	}
	if *offTopicClaims < 1 {
		return fmt.Errorf("-offtopic-claims: %d is not a number of claims", *offTopicClaims)
	}
	var budgets []int
	for _, s := range strings.Split(*budgetList, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b < 1 {
			return fmt.Errorf("bad budget %q", s)
		}
		budgets = append(budgets, b)
	}
	convs, err := locomo.Load(*data)
	if err != nil {
		return err
	}
	if convs, err = selectConversations(convs, *only); err != nil {
		return err
	}
	var claims []scifact.Query
	if *offTopic {
		if claims, err = scifact.Queries(*scifactDir); err != nil {
			return fmt.Errorf("-scifact: %w", err)
		}
		claims = evalcmd.Spread(claims, *offTopicClaims)
	}
	m, done, err := evalcmd.OpenMemory(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer done()
	w := m.Workspace("locomo")

	start := time.Now()
	var qs []question
	skipped, stored := 0, 0
	for i, c := range convs {
		turns, err := locomo.Store(ctx, w, c.SampleID, c.Conversation, locomo.StoreAs{Speakers: *speakers})
		if err != nil {
			return fmt.Errorf("%s: %w", c.SampleID, err)
		}
		stored += len(turns)
		if *longer && len(convs) > 1 {
			other := convs[(i+1)%len(convs)]
			more, err := locomo.Store(ctx, w, c.SampleID, other.Conversation,
				locomo.StoreAs{Prefix: other.SampleID + "/", SessionOffset: longerSessions, Speakers: *speakers})
			if err != nil {
				return fmt.Errorf("%s: %w", other.SampleID, err)
			}
			stored += len(more)
		}
		for _, qa := range c.QA {
			if !slices.Contains(categories, qa.Category) {
				continue
			}
			ev := locomo.EvidenceIDs(qa.Evidence)
			if len(ev) == 0 || slices.ContainsFunc(ev, func(id string) bool { return turns[id] == "" }) {
				skipped++
				continue
			}
			qs = append(qs, question{user: c.SampleID, text: qa.Question, turns: turns, category: qa.Category, evidence: ev})
		}
	}
	fmt.Fprintf(stdout, "%d conversations, %d turns stored in %s; %d questions (categories 1-4), %d skipped for evidence ids that name no turn\n\n",
		len(convs), stored, time.Since(start).Round(time.Millisecond), len(qs), skipped)

	stopProfile, err := evalcmd.StartCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "retrieval\tbudget\t")
	for _, c := range categories {
		fmt.Fprintf(tw, "cat %d (n=%d)\t", c, countCategory(qs, c))
	}
	fmt.Fprint(tw, "overall\tmean tokens\t\n")
	var lat []time.Duration
	var missed []question
	// byConv[mode][budget][user] counts each retrieval's hits per
	// conversation: BM25 alone is the same-run baseline of full recall.
	byConv := map[string]map[int]map[string]int{}
	// tokensByConv[mode][budget][user] adds up the tokens they returned.
	tokensByConv := map[string]map[int]map[string]int{}
	for _, mode := range modes {
		if !slices.Contains(strings.Split(*modeList, ","), mode.name) {
			continue
		}
		for _, b := range budgets {
			hit := map[int]int{}
			if byConv[mode.name] == nil {
				byConv[mode.name] = map[int]map[string]int{}
				tokensByConv[mode.name] = map[int]map[string]int{}
			}
			perConv, convTokens := map[string]int{}, map[string]int{}
			byConv[mode.name][b], tokensByConv[mode.name][b] = perConv, convTokens
			tokens := 0
			for _, q := range qs {
				t0 := time.Now()
				res, err := w.RecallUser(ctx, q.user, papermem.UserRecallRequest{Question: q.text, BudgetTokens: b, Retrieval: mode.r, Fill: mode.fill})
				if err != nil {
					return err
				}
				if mode.name == "full" {
					lat = append(lat, time.Since(t0))
				}
				tokens += res.TotalTokens
				convTokens[q.user] += res.TotalTokens
				if locomo.Covers(res, q.evidence) {
					hit[q.category]++
					perConv[q.user]++
				} else if mode.name == "full" && b == budgets[len(budgets)/2] {
					missed = append(missed, q)
				}
			}
			fmt.Fprintf(tw, "%s\t%d\t", mode.name, b)
			all := 0
			for _, c := range categories {
				fmt.Fprintf(tw, "%.3f\t", ratio(hit[c], countCategory(qs, c)))
				all += hit[c]
			}
			fmt.Fprintf(tw, "%.3f\t%.0f\t\n", ratio(all, len(qs)), float64(tokens)/float64(len(qs)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := printByConversation(stdout, convs, qs, modes, budgets, byConv, tokensByConv); err != nil {
		return err
	}
	p50, p95 := evalcmd.Percentile(lat, 50).Round(time.Microsecond), evalcmd.Percentile(lat, 95).Round(time.Microsecond)
	fmt.Fprintf(stdout, "\nfull recall latency over %d calls: p50 %s, p95 %s\n", len(lat), p50, p95)
	if *offTopic {
		if err := measureOffTopic(ctx, stdout, w, convs, qs, claims, *offTopicBudget); err != nil {
			return err
		}
	}
	for i, q := range missed {
		if i == *misses {
			break
		}
		// Where the evidence stands in an unbounded recall, in tokens
		// spent before it.
		res, err := w.RecallUser(ctx, q.user, papermem.UserRecallRequest{Question: q.text, BudgetTokens: papermem.MaxBudgetTokens})
		if err != nil {
			return err
		}
		at, spent := map[string]int{}, 0
		for _, s := range res.Spans {
			spent += s.Tokens
			at[s.Provenance.Key] = spent
		}
		fmt.Fprintf(stdout, "miss %s cat %d %q\n", q.user, q.category, q.text)
		for _, e := range q.evidence {
			fmt.Fprintf(stdout, "\t%s (at %d tokens) %s\n", e, at[e], q.turns[e])
		}
	}
	if *latency {
		return timeLargeUser(ctx, m, convs, qs, stdout)
	}
	return nil
}

// measureOffTopic prints how much full user recall returns for claims,
// which no conversation answers, asked of every user, beside the same for
// the users' own questions qs at the same budget: what a relevance cut
// could save, and what it could cost.
func measureOffTopic(ctx context.Context, stdout io.Writer, w *papermem.Workspace, convs []locomo.Conversation, qs []question, claims []scifact.Query, budget int) error {
	fmt.Fprintf(stdout, "\noff-topic recall at %d tokens: %d SciFact claims asked of each of %d users; in-topic: their %d questions (categories 1-4)\n",
		budget, len(claims), len(convs), len(qs))
	off := &evalcmd.Returned{Recall: "RecallUser full", Questions: "off-topic"}
	for _, c := range convs {
		for _, q := range claims {
			res, err := w.RecallUser(ctx, c.SampleID, papermem.UserRecallRequest{Question: q.Text, BudgetTokens: budget})
			if err != nil {
				return fmt.Errorf("%s: claim %s: %w", c.SampleID, q.ID, err)
			}
			off.AddRecall(res)
		}
	}
	in := &evalcmd.Returned{Recall: "RecallUser full", Questions: "in-topic"}
	for _, q := range qs {
		res, err := w.RecallUser(ctx, q.user, papermem.UserRecallRequest{Question: q.text, BudgetTokens: budget})
		if err != nil {
			return err
		}
		in.AddRecall(res)
	}
	return evalcmd.WriteReturned(stdout, budget, []*evalcmd.Returned{off, in})
}

// printByConversation prints each retrieval's evidence recall for each
// conversation and budget, and their mean, BM25 alone beside full recall
// as its same-run baseline: a conversation left out of tuning is a
// held-out user, so the figures a change must raise are every
// conversation's, not the pooled share. A second table gives the mean
// tokens each returned (tokens).
func printByConversation(w io.Writer, convs []locomo.Conversation, qs []question, measured []mode, budgets []int, hits, tokens map[string]map[int]map[string]int) error {
	n := map[string]int{}
	for _, q := range qs {
		n[q.user]++
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, table := range []struct {
		title  string
		counts map[string]map[int]map[string]int
		format string
	}{{"recall by conversation", hits, "%.3f\t"}, {"mean tokens by conversation", tokens, "%.0f\t"}} {
		fmt.Fprintf(tw, "\n%s\tbudget\t", table.title)
		for _, c := range convs {
			fmt.Fprintf(tw, "%s (n=%d)\t", c.SampleID, n[c.SampleID])
		}
		fmt.Fprint(tw, "mean\t\n")
		for _, mode := range measured {
			for _, b := range budgets {
				perConv, ok := table.counts[mode.name][b]
				if !ok {
					continue // a mode -retrieval left out
				}
				fmt.Fprintf(tw, "%s\t%d\t", mode.name, b)
				var sum float64
				for _, c := range convs {
					r := ratio(perConv[c.SampleID], n[c.SampleID])
					sum += r
					fmt.Fprintf(tw, table.format, r)
				}
				fmt.Fprintf(tw, table.format+"\n", sum/float64(len(convs)))
			}
		}
	}
	return tw.Flush()
}

// selectConversations keeps the conversations whose indexes list names
// (comma-separated, from 0), in the dataset's order; "" keeps all.
func selectConversations(convs []locomo.Conversation, list string) ([]locomo.Conversation, error) {
	if list == "" {
		return convs, nil
	}
	keep := map[int]bool{}
	for _, s := range strings.Split(list, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || i < 0 || i >= len(convs) {
			return nil, fmt.Errorf("bad conversation index %q (the file has %d)", s, len(convs))
		}
		keep[i] = true
	}
	var out []locomo.Conversation
	for i, c := range convs {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// longerSessions is added to the session numbers of the turns -longer
// adds to a user, so that no session holds turns of two conversations.
const longerSessions = 1000

func countCategory(qs []question, c int) int {
	n := 0
	for _, q := range qs {
		if q.category == c {
			n++
		}
	}
	return n
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// largeUser is the number of memories of the latency test's user.
const largeUser = 5000

// timeLargeUser stores the turns of every conversation, repeated until
// there are largeUser of them, as the memories of one user, then times full
// recall of every question at a 2,000-token budget, twice: cold, then warm.
func timeLargeUser(ctx context.Context, m *papermem.Memory, convs []locomo.Conversation, qs []question, stdout io.Writer) error {
	w := m.Workspace("locomo-latency")
	const user = "everyone"
	n := 0
	for round := 0; n < largeUser; round++ {
		for _, c := range convs {
			ss, err := locomo.Sessions(c.Conversation)
			if err != nil {
				return err
			}
			for _, s := range ss {
				for i, t := range s.Turns {
					if n == largeUser {
						break
					}
					_, err := w.Remember(ctx, user, papermem.NoteInput{
						Text:       fmt.Sprintf("%s: %s", t.Speaker, t.Text),
						Key:        fmt.Sprintf("%d/%s/%s", round, c.SampleID, t.DiaID),
						OccurredAt: s.Date.Format(time.RFC3339),
						Metadata:   map[string]any{"session": fmt.Sprintf("%d/%s/%d", round, c.SampleID, s.N), "seq": i},
					})
					if err != nil {
						return err
					}
					n++
				}
			}
		}
	}
	// The first pass starts cold (the node index and the memory row cache
	// fill); the second asks the same questions again.
	for _, pass := range []string{"first pass", "second pass"} {
		var lat []time.Duration
		cpu0 := cpuTime()
		for _, q := range qs {
			t0 := time.Now()
			if _, err := w.RecallUser(ctx, user, papermem.UserRecallRequest{Question: q.text, BudgetTokens: 2000}); err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
		}
		cpu := (cpuTime() - cpu0) / time.Duration(len(lat))
		p50, p95 := evalcmd.Percentile(lat, 50).Round(time.Microsecond), evalcmd.Percentile(lat, 95).Round(time.Microsecond)
		fmt.Fprintf(stdout, "one user with %d memories, full recall at 2000 tokens over %d questions, %s: p50 %s, p95 %s, CPU %s a call\n",
			n, len(lat), pass, p50, p95, cpu.Round(time.Microsecond))
	}
	return nil
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
