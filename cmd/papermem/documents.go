package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/spf13/cobra"
)

func documentsCmd(t *target, stdout io.Writer) *cobra.Command {
	var limit int
	var asJSON bool
	c := &cobra.Command{
		Use:   "documents",
		Short: "List the workspace's documents (ingested files that are not papers), newest first",
		Long: "Lists the files ingest stored as documents: every file but a paper's full text (a file given --doi, " +
			"or carrying a DOI, becomes that paper; papers lists those). Newest first, at most --limit.",
		Args: wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				docs, err := m.documents(ctx, limit)
				if err != nil {
					return err
				}
				if asJSON {
					if docs == nil {
						docs = []papermem.Document{}
					}
					return writeJSON(stdout, api.DocumentsResponse{Documents: docs, Count: len(docs)})
				}
				if len(docs) > 0 {
					tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "DOC_ID\tNAME\tFORMAT\tBYTES\tINGESTED\tTITLE")
					for _, d := range docs {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.Name, d.Format, d.Bytes, d.CreatedAt, clip(d.Title, 60))
					}
					if err := tw.Flush(); err != nil {
						return err
					}
				}
				fmt.Fprintln(stdout, count(len(docs), "document"))
				return nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", papermem.DefaultPaperLimit, fmt.Sprintf("most documents listed, 1..%d", papermem.MaxPaperLimit))
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	return c
}

// clip shortens s to at most n characters, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// count is n things, in the plural unless one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
