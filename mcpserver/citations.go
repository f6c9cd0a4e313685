package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
)

// The citation graph's tools: read-only, though references, citations and
// related_papers may read a paper's links from its origins (OpenAlex,
// Crossref) the first time they are asked.
const (
	referencesDoc = "The works a paper in memory cites, by DOI: each with doi (empty when unknown), title, year and in_memory (whether this workspace holds it). " +
		"Read from the paper's origins (OpenAlex, else Crossref's reference list) the first time, then from memory."
	citationsDoc = "The works citing a paper in memory, by DOI, as OpenAlex knows them: each with doi, title, year and in_memory. Read from OpenAlex the first time, then from memory."
	relatedDoc   = "Papers in this workspace related to a paper by citations, best first: coupling counts the works both cite, co_citation the works citing both; score is their sum. Only papers in memory are listed."
	gapsDoc      = "Works this workspace's papers cite but memory lacks, most cited first (count, and the DOIs citing them): candidates to read next."
)

// readsOrigins only reads memory, but may fill it from the origins first.
var readsOrigins = hints(true, false, true, true)

// addCitationTools registers the citation graph's tools.
func addCitationTools(s *mcp.Server, t *tools) {
	addTool(s, t, "references", referencesDoc, readsOrigins, t.references)
	addTool(s, t, "citations", citationsDoc, readsOrigins, t.citations)
	addTool(s, t, "related_papers", relatedDoc, readsOrigins, t.related)
	addTool(s, t, "citation_gaps", gapsDoc, reads, t.gaps)
}

type (
	relatedInput struct {
		DOI   string `json:"doi" required:"true" doc:"the paper's DOI, e.g. 10.1000/xyz"`
		Limit int    `json:"limit,omitempty" doc:"most papers returned, 1..100; 0 or absent means 20"`
	}
	gapsInput struct {
		Limit int `json:"limit,omitempty" doc:"most works returned, 1..100; 0 or absent means 20"`
	}
	// relatedOutput and gapsOutput wrap the lists: structured content is
	// an object.
	relatedOutput struct {
		Papers []papermem.CitationRelated `json:"papers"`
	}
	gapsOutput struct {
		Works []papermem.CitationGap `json:"works"`
	}
)

func (t *tools) references(ctx context.Context, in doiInput) (*papermem.CitationList, string, error) {
	l, err := t.b.References(ctx, in.DOI, false)
	if err != nil {
		return nil, "", err
	}
	return l, renderCitationList(l, "cites"), nil
}

func (t *tools) citations(ctx context.Context, in doiInput) (*papermem.CitationList, string, error) {
	l, err := t.b.Citations(ctx, in.DOI, false)
	if err != nil {
		return nil, "", err
	}
	return l, renderCitationList(l, "is cited by"), nil
}

func (t *tools) related(ctx context.Context, in relatedInput) (*relatedOutput, string, error) {
	rel, err := t.b.Related(ctx, in.DOI, in.Limit)
	if err != nil {
		return nil, "", err
	}
	if len(rel) == 0 {
		return &relatedOutput{Papers: []papermem.CitationRelated{}}, "No paper in memory shares a reference or a citer with doi:" + papermem.NormalizeDOI(in.DOI) + ".", nil
	}
	var b strings.Builder
	for _, r := range rel {
		fmt.Fprintf(&b, "- doi:%s %s (score %g: %d shared references, %d shared citers)\n", r.DOI, titleOr(r.Title), r.Score, r.Coupling, r.CoCitation)
	}
	return &relatedOutput{Papers: rel}, b.String(), nil
}

func (t *tools) gaps(ctx context.Context, in gapsInput) (*gapsOutput, string, error) {
	gaps, err := t.b.Gaps(ctx, in.Limit)
	if err != nil {
		return nil, "", err
	}
	if len(gaps) == 0 {
		return &gapsOutput{Works: []papermem.CitationGap{}}, "No cited work is missing from memory (as far as the stored citation links tell).", nil
	}
	var b strings.Builder
	for _, g := range gaps {
		id := "doi:" + g.DOI
		if g.DOI == "" {
			id = "openalex:" + g.OpenAlexID
		}
		fmt.Fprintf(&b, "- %s %s, cited by %d paper(s) in memory\n", id, titleOr(g.Title), g.Count)
	}
	return &gapsOutput{Works: gaps}, b.String(), nil
}

// renderCitationList is the text of a references or citations answer.
func renderCitationList(l *papermem.CitationList, verb string) string {
	if l.Status == papermem.CitationsNotFetched {
		return fmt.Sprintf("The citation links of doi:%s are not known (origins are off, or the paper has no DOI).", l.DOI)
	}
	if len(l.Works) == 0 {
		return fmt.Sprintf("doi:%s %s no known work.", l.DOI, verb)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "doi:%s %s %d work(s)", l.DOI, verb, l.Total)
	if l.Total > len(l.Works) {
		fmt.Fprintf(&b, " (the first %d listed)", len(l.Works))
	}
	b.WriteString(":\n")
	for _, w := range l.Works {
		switch {
		case w.DOI != "":
			fmt.Fprintf(&b, "- doi:%s", w.DOI)
		case w.OpenAlexID != "":
			fmt.Fprintf(&b, "- openalex:%s", w.OpenAlexID)
		default:
			b.WriteString("-")
		}
		if w.Title != "" || w.Text == "" {
			fmt.Fprintf(&b, " %s", titleOr(w.Title))
		} else {
			fmt.Fprintf(&b, " %s", w.Text)
		}
		if w.Year > 0 {
			fmt.Fprintf(&b, " (%d)", w.Year)
		}
		if w.InMemory {
			b.WriteString(" [in memory]")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func titleOr(t string) string {
	if t == "" {
		return "(untitled)"
	}
	return t
}

func (l *local) References(ctx context.Context, doi string, refresh bool) (*papermem.CitationList, error) {
	return l.ws.References(ctx, doi, papermem.CitationOptions{Refresh: refresh})
}

func (l *local) Citations(ctx context.Context, doi string, refresh bool) (*papermem.CitationList, error) {
	return l.ws.Citations(ctx, doi, papermem.CitationOptions{Refresh: refresh})
}

func (l *local) Related(ctx context.Context, doi string, limit int) ([]papermem.CitationRelated, error) {
	return l.ws.Related(ctx, doi, limit)
}

func (l *local) Gaps(ctx context.Context, limit int) ([]papermem.CitationGap, error) {
	return l.ws.Gaps(ctx, limit)
}
