package main

import (
	"context"
	"io"
	"strings"

	"github.com/papermem/papermem"
	"github.com/spf13/cobra"
)

func citeCmd(t *target, stdout io.Writer) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "cite DOI",
		Short: "Print a stored paper's reference as BibTeX, RIS or CSL-JSON",
		Long: "Prints the reference of a paper in memory, from what memory holds of it (title, authors, year, journal, type of work, source URL); " +
			"nothing is looked up elsewhere. RIS lines end with CR LF, as the RIS specification writes them. " +
			"A paper stored without a DOI (a local: id) is cited without one.",
		Example: "  papermem cite 10.1000/vitd >> refs.bib\n  papermem cite --format ris 10.1000/vitd > vitd.ris",
		Args:    wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				text, err := m.Cite(ctx, args[0], format)
				if err != nil {
					return err
				}
				_, err = io.WriteString(stdout, text)
				return err
			})
		},
	}
	c.Flags().StringVar(&format, "format", papermem.DefaultCitationFormat, strings.Join(papermem.CitationFormats, ", "))
	return c
}
