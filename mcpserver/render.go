package mcpserver

import (
	"fmt"
	"strings"

	"github.com/papermem/papermem"
)

// The text renderings of tool results, for models and people that read
// content rather than structured content.

// renderSpans lists spans best first, each with its citation.
func renderSpans(res *papermem.RecallResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s, best first.\n", count(len(res.Spans), "span"), count(res.TotalTokens, "token"))
	for i, s := range res.Spans {
		fmt.Fprintf(&b, "\n[%d] %s\n    — %s (node %d, %s, score %.3f)\n", i+1, s.Text, s.Provenance.Citation(), s.NodeID, s.Label, s.Score)
	}
	return b.String()
}

func renderPapers(ps []papermem.Paper) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, best first.\n", count(len(ps), "paper"))
	for i, p := range ps {
		cached := "metadata only"
		if p.Cached {
			cached = "full text in memory"
		}
		if p.Retracted {
			cached += ", RETRACTED"
		}
		fmt.Fprintf(&b, "%d. %s — doi:%s (score %.3f, %s)\n", i+1, p.Title, p.DOI, p.Score, cached)
	}
	return b.String()
}

func renderReport(rep *papermem.IngestReport) string {
	return fmt.Sprintf("Stored %s %s: %s.", rep.Kind, rep.DocID, reportCounts(rep))
}

// reportCounts is what an ingest stored: characters, sections, nodes and
// claims.
func reportCounts(rep *papermem.IngestReport) string {
	return strings.Join([]string{count(rep.CharsRead, "character"), count(rep.Sections, "section"),
		count(rep.NodesStored, "node"), count(rep.ClaimsFound, "claim")}, ", ")
}

// count is n things, in the plural unless one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func renderGraph(g *papermem.Subgraph) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Graph around %s within %d hops: %d nodes, %d edges", g.Seed, g.Hops, len(g.Nodes), len(g.Edges))
	if g.Truncated {
		b.WriteString(" (truncated)")
	}
	b.WriteString(".\n")
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "- %s (hop %d)\n", n.ID, n.Hop)
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "%s -%s-> %s (weight %.2f)\n", e.Source, e.Type, e.Target, e.Weight)
	}
	return b.String()
}
