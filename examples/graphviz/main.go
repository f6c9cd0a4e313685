// Command graphviz draws a papermem session graph so a person can see it.
//
// It builds a real workspace (stores papers, recalls claims, links
// research sessions to the papers and claims they used, exports one
// session, materialises the related edges), then writes the graph around
// every session as Graphviz DOT and, when the dot program is installed,
// renders it to SVG and PNG:
//
//	go run ./examples/graphviz -db /tmp/graph.db -out /tmp/session-graph
//
// Sessions are blue ellipses, papers boxes (dashed when only a stub: a
// DOI a session used that memory holds no text for), claims notes.
// Grey arrows are uses, dotted ones cites (claim → its paper), and red
// lines related edges labelled with their Jaccard weight.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/papermem/papermem"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "graphviz:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("graphviz", flag.ContinueOnError)
	db := fs.String("db", filepath.Join(os.TempDir(), "papermem-graphviz.db"), "database file (created or reused)")
	out := fs.String("out", "session-graph", "output path without extension: writes .dot, and .svg and .png when dot is installed")
	hops := fs.Int("hops", 2, "hops around each session, 1..3")
	threshold := fs.Float64("threshold", 0.2, "Jaccard threshold of related edges")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := papermem.Open(ctx, *db, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	w := m.Workspace("graphviz-demo")

	sessions, err := build(ctx, w)
	if err != nil {
		return err
	}
	res, err := w.Materialize(ctx, *threshold)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "materialize: %d related edges (%d new)\n", res.Total, res.Created)

	g, err := union(ctx, w, sessions, *hops)
	if err != nil {
		return err
	}
	dotPath := *out + ".dot"
	f, err := os.Create(dotPath)
	if err != nil {
		return err
	}
	writeDOT(f, g)
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d nodes, %d edges\n", dotPath, len(g.Nodes), len(g.Edges))
	if _, err := exec.LookPath("dot"); err != nil {
		fmt.Fprintln(stdout, "dot not found: install Graphviz (apt-get install graphviz) to render SVG and PNG")
		return nil
	}
	for _, format := range []string{"svg", "png"} {
		target := *out + "." + format
		cmd := exec.CommandContext(ctx, "dot", "-T"+format, "-Gdpi=110", "-o", target, dotPath)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("dot -T%s: %w", format, err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", target)
	}
	return nil
}

// paper is a demo paper: three topics, so that sessions form clusters.
type paper struct {
	doi, title, domain, text string
}

var papers = []paper{
	{"10.1000/sleep.1", "Sleep deprivation impairs memory consolidation in mice", "neuroscience",
		"Abstract\nMice deprived of sleep for six hours performed 40% worse on a maze task. The effect was mediated by reduced hippocampal replay."},
	{"10.1000/sleep.2", "Hippocampal replay during slow-wave sleep", "neuroscience",
		"Abstract\nReplay events during slow-wave sleep predicted next-day recall in 24 rats. Disrupting replay reduced recall by 30%."},
	{"10.1000/sleep.3", "Napping and declarative memory in adults", "neuroscience",
		"Abstract\nA 60-minute nap improved word-pair recall by 12% compared with staying awake in 80 adults."},
	{"10.2000/caff.1", "Caffeine and reaction time: a meta-analysis", "pharmacology",
		"Abstract\nAcross 41 trials, caffeine reduced reaction times by 5% on average. Effects were larger in sleep-deprived participants."},
	{"10.2000/caff.2", "Caffeine withdrawal and attention", "pharmacology",
		"Abstract\nWithdrawal from caffeine increased attention lapses by 20% in habitual drinkers over three days."},
	{"10.3000/vitd.1", "Vitamin D supplementation and fracture risk", "medicine",
		"Abstract\nVitamin D supplementation did not reduce fracture risk in 25,000 adults over 70 years (hazard ratio 0.98)."},
}

// session is a demo research session: the papers it used and the questions
// whose best claim it cited.
type session struct {
	id, user string
	papers   []string
	claimsOf []string
}

var demoSessions = []session{
	{"lit-review-sleep", "ada", []string{"10.1000/sleep.1", "10.1000/sleep.2", "10.1000/sleep.3"}, []string{"Does sleep loss impair memory?"}},
	{"replication-replay", "ada", []string{"10.1000/sleep.1", "10.1000/sleep.2"}, []string{"Does hippocampal replay predict recall?"}},
	{"nap-study-design", "bob", []string{"10.1000/sleep.3", "10.1000/sleep.1", "10.9999/unread.preprint"}, nil},
	{"caffeine-sleep-loss", "bob", []string{"10.2000/caff.1", "10.1000/sleep.1"}, []string{"Does caffeine help sleep-deprived people react faster?"}},
	{"caffeine-review", "eve", []string{"10.2000/caff.1", "10.2000/caff.2"}, nil},
	{"fracture-trial-check", "eve", []string{"10.3000/vitd.1"}, []string{"Does vitamin D prevent fractures?"}},
}

// build stores the papers and links the sessions; the last session is
// written through ExportSession, the others through LinkSession. It
// returns the session ids.
func build(ctx context.Context, w *papermem.Workspace) ([]string, error) {
	for _, p := range papers {
		if _, _, err := w.StorePaper(ctx, papermem.PaperInput{DOI: p.doi, Title: p.title, Domain: p.domain, Text: p.text}); err != nil {
			return nil, fmt.Errorf("store %s: %w", p.doi, err)
		}
	}
	var ids []string
	for i, s := range demoSessions {
		var claims []int64
		for _, q := range s.claimsOf {
			res, err := w.Recall(ctx, papermem.RecallRequest{Question: q, BudgetTokens: 200})
			if err != nil {
				return nil, err
			}
			if len(res.Spans) > 0 {
				claims = append(claims, res.Spans[0].NodeID)
			}
		}
		var err error
		if i == len(demoSessions)-1 {
			_, err = w.ExportSession(ctx, papermem.SessionRecord{SessionID: s.id, UserID: s.user,
				Steps:          []papermem.Step{{Agent: "reviewer", Tool: "recall", Args: map[string]any{"question": s.claimsOf[0]}, ResultRef: "spans"}},
				RecalledPapers: s.papers, RecalledClaims: claims})
		} else {
			_, err = w.LinkSession(ctx, papermem.SessionLink{SessionID: s.id, UserID: s.user, Papers: s.papers, Claims: claims})
		}
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", s.id, err)
		}
		ids = append(ids, s.id)
	}
	return ids, nil
}

// union merges the subgraphs around each session.
func union(ctx context.Context, w *papermem.Workspace, sessions []string, hops int) (*papermem.Subgraph, error) {
	g := &papermem.Subgraph{}
	seenNode := map[string]bool{}
	seenEdge := map[papermem.GraphEdge]bool{}
	for _, s := range sessions {
		sg, err := w.Graph(ctx, s, hops)
		if err != nil {
			return nil, err
		}
		g.Truncated = g.Truncated || sg.Truncated
		for _, n := range sg.Nodes {
			if !seenNode[n.ID] {
				seenNode[n.ID] = true
				g.Nodes = append(g.Nodes, n)
			}
		}
		for _, e := range sg.Edges {
			if !seenEdge[e] {
				seenEdge[e] = true
				g.Edges = append(g.Edges, e)
			}
		}
	}
	if len(g.Nodes) == 0 {
		return nil, errors.New("empty graph")
	}
	return g, nil
}

// writeDOT writes g as a Graphviz graph.
func writeDOT(w io.Writer, g *papermem.Subgraph) {
	fmt.Fprintln(w, "digraph sessions {")
	fmt.Fprintln(w, `  graph [rankdir=LR, fontname="Helvetica", bgcolor="white", overlap=false, nodesep=0.35, ranksep=1.1];`)
	fmt.Fprintln(w, `  node [fontname="Helvetica", fontsize=11];`)
	fmt.Fprintln(w, `  edge [fontname="Helvetica", fontsize=10];`)
	nodes := slices.Clone(g.Nodes)
	slices.SortFunc(nodes, func(a, b papermem.GraphNode) int { return strings.Compare(a.ID, b.ID) })
	for _, n := range nodes {
		var attrs string
		switch n.Type {
		case papermem.NodeSession:
			label := n.Label
			if n.UserID != "" {
				label += "\n(" + n.UserID + ")"
			}
			attrs = fmt.Sprintf(`shape=ellipse, style=filled, fillcolor="#cfe2ff", color="#1f4e9c", label=%s`, quote(label))
		case papermem.NodePaper:
			style := `style="rounded,filled", fillcolor="#f4f4f4"`
			if n.Cached != nil && !*n.Cached {
				style = `style="rounded,dashed", fillcolor="white"`
			}
			label := wrap(n.Label, 28)
			if n.Label != n.DOI {
				label += "\n" + n.DOI
			}
			attrs = fmt.Sprintf(`shape=box, %s, label=%s`, style, quote(label))
		case papermem.NodeClaim:
			attrs = fmt.Sprintf(`shape=note, style=filled, fillcolor="#fff4d6", color="#9c7a1f", fontsize=9, label=%s`, quote(wrap(n.Label, 34)))
		}
		fmt.Fprintf(w, "  %s [%s];\n", quote(n.ID), attrs)
	}
	edges := slices.Clone(g.Edges)
	slices.SortFunc(edges, func(a, b papermem.GraphEdge) int {
		return strings.Compare(a.Source+"\x00"+a.Target+"\x00"+a.Type, b.Source+"\x00"+b.Target+"\x00"+b.Type)
	})
	for _, e := range edges {
		var attrs string
		switch e.Type {
		case papermem.EdgeUses:
			attrs = `color="#8a8a8a"`
		case papermem.EdgeCites:
			attrs = `style=dotted, color="#9c7a1f"`
		case papermem.EdgeRelated:
			attrs = fmt.Sprintf(`dir=none, color="#c0392b", penwidth=%.1f, label="%.2f", fontcolor="#c0392b", constraint=false`, 1+4*e.Weight, e.Weight)
		}
		fmt.Fprintf(w, "  %s -> %s [%s];\n", quote(e.Source), quote(e.Target), attrs)
	}
	fmt.Fprintln(w, "}")
}

// quote makes s a DOT string.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// wrap breaks s into lines of at most width characters at spaces.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}
