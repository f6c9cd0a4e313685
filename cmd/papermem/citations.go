package main

import (
	"context"
	"fmt"
	"io"

	"github.com/papermem/papermem"
	"github.com/spf13/cobra"
)

// citationListCmd is references or citations: one direction of a paper's
// citation links.
func citationListCmd(t *target, stdout io.Writer, use, short string, get func(memory, context.Context, string, bool) (*papermem.CitationList, error)) *cobra.Command {
	var refresh, asJSON bool
	c := &cobra.Command{
		Use:   use + " DOI",
		Short: short,
		Long: "Lists the works, one a line: DOI (or openalex:<id>, or - for none), year, title, and \"in memory\" for those the workspace holds. " +
			"A paper's links are read from its origins (OpenAlex; Crossref's reference list when OpenAlex does not know it) the first time they are asked for, then from memory; " +
			"--refresh asks the origins again.",
		Args: wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				l, err := get(m, ctx, args[0], refresh)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, l)
				}
				return printCitationList(stdout, l)
			})
		},
	}
	c.Flags().BoolVar(&refresh, "refresh", false, "ask the origins again and replace the stored links")
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	return c
}

func referencesCmd(t *target, stdout io.Writer) *cobra.Command {
	return citationListCmd(t, stdout, "references", "List the works a paper in memory cites", memory.References)
}

func citationsCmd(t *target, stdout io.Writer) *cobra.Command {
	return citationListCmd(t, stdout, "citations", "List the works citing a paper in memory", memory.Citations)
}

func printCitationList(w io.Writer, l *papermem.CitationList) error {
	switch {
	case l.Status == papermem.CitationsNotFetched:
		_, err := fmt.Fprintf(w, "The citation links of %s are not known: origins are off, or the paper has no DOI.\n", l.DOI)
		return err
	case l.Status == papermem.CitationsUnknown:
		_, err := fmt.Fprintf(w, "No origin knows %s.\n", l.DOI)
		return err
	case len(l.Works) == 0:
		_, err := fmt.Fprintf(w, "None known (%s).\n", l.DOI)
		return err
	}
	for _, x := range l.Works {
		id := x.DOI
		switch {
		case id == "" && x.OpenAlexID != "":
			id = "openalex:" + x.OpenAlexID
		case id == "":
			id = "-"
		}
		title := x.Title
		if title == "" {
			title = x.Text
		}
		line := fmt.Sprintf("%s\t%s\t%s", id, yearText(x.Year), title)
		if x.InMemory {
			line += "\tin memory"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if l.Total > len(l.Works) {
		_, err := fmt.Fprintf(w, "(%d of the %d the origin counts)\n", len(l.Works), l.Total)
		return err
	}
	return nil
}

func yearText(y int) string {
	if y == 0 {
		return "-"
	}
	return fmt.Sprint(y)
}

func relatedCmd(t *target, stdout io.Writer) *cobra.Command {
	var limit int
	var asJSON bool
	c := &cobra.Command{
		Use:   "related DOI",
		Short: "List the papers in memory related to a paper by citations",
		Long: "Lists the workspace's papers sharing references (coupling) or citers (co-citation) with the paper, best first by their sum, one a line: " +
			"DOI, score, coupling, co-citation, title.",
		Args: wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				rel, err := m.Related(ctx, args[0], limit)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, rel)
				}
				if len(rel) == 0 {
					_, err := fmt.Fprintln(stdout, "No paper in memory shares a reference or a citer with it.")
					return err
				}
				for _, r := range rel {
					if _, err := fmt.Fprintf(stdout, "%s\t%g\tcoupling %d\tco-citation %d\t%s\n", r.DOI, r.Score, r.Coupling, r.CoCitation, r.Title); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", papermem.DefaultCitationLimit, fmt.Sprintf("most papers listed, 1..%d", papermem.MaxCitationLimit))
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	return c
}

func gapsCmd(t *target, stdout io.Writer) *cobra.Command {
	var limit int
	var asJSON bool
	c := &cobra.Command{
		Use:   "gaps",
		Short: "List the works the workspace's papers cite and memory lacks",
		Long: "Lists the works not in memory that the workspace's papers cite, most cited first, one a line: DOI (or openalex:<id>), how many papers cite it, year, title. " +
			"Only the citation links already read count.",
		Args: wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				gaps, err := m.Gaps(ctx, limit)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, gaps)
				}
				if len(gaps) == 0 {
					_, err := fmt.Fprintln(stdout, "No cited work is missing (as far as the citation links read tell).")
					return err
				}
				for _, g := range gaps {
					id := g.DOI
					if id == "" {
						id = "openalex:" + g.OpenAlexID
					}
					if _, err := fmt.Fprintf(stdout, "%s\tcited by %d\t%s\t%s\n", id, g.Count, yearText(g.Year), g.Title); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", papermem.DefaultCitationLimit, fmt.Sprintf("most works listed, 1..%d", papermem.MaxCitationLimit))
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	return c
}
