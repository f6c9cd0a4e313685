package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/spf13/cobra"
)

func paperCmd(t *target, stdout io.Writer) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "paper DOI",
		Short: "Show a paper's metadata: title, authors, year, venue, open access, retraction, tags, collections, source",
		Args:  wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				p, err := m.Paper(ctx, args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, p)
				}
				tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
				for _, row := range [][2]string{
					{"doi", p.DOI}, {"title", p.Title}, {"authors", strings.Join(p.Authors, "; ")}, {"year", yearText(p.Year)},
					{"venue", p.Venue}, {"oa", fmt.Sprint(p.OA)}, {"retracted", fmt.Sprint(p.Retracted)}, {"full text", fmt.Sprint(p.Cached)},
					{"tags", strings.Join(p.Tags, ", ")}, {"collections", strings.Join(p.Collections, ", ")}, {"source", p.Source},
				} {
					fmt.Fprintf(tw, "%s\t%s\n", row[0], row[1])
				}
				return tw.Flush()
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	return c
}

func libraryCmd(t *target, stdout io.Writer) *cobra.Command {
	var q papermem.PaperQuery
	var asJSON bool
	c := &cobra.Command{
		Use:   "library",
		Short: "List the workspace's papers, newest first, by tag or collection",
		Long:  "Lists every paper (or, with --tag or --collection, those filed so: exact names, as imported), newest first, a page of --limit at a time until the last.",
		Args:  wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				all := []api.PaperResponse{}
				for {
					page, err := m.Papers(ctx, q)
					if err != nil {
						return err
					}
					all = append(all, page.Papers...)
					if q.Cursor = page.NextCursor; q.Cursor == "" {
						break
					}
				}
				if asJSON {
					return writeJSON(stdout, all)
				}
				if len(all) > 0 {
					tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "DOI\tYEAR\tTAGS\tTITLE")
					for _, p := range all {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.DOI, yearText(p.Year), clip(strings.Join(p.Tags, ","), 30), clip(p.Title, 70))
					}
					if err := tw.Flush(); err != nil {
						return err
					}
				}
				fmt.Fprintln(stdout, count(len(all), "paper"))
				return nil
			})
		},
	}
	c.Flags().StringVar(&q.Tag, "tag", "", "only papers with this tag")
	c.Flags().StringVar(&q.Collection, "collection", "", "only papers in this collection")
	c.Flags().IntVar(&q.Limit, "limit", papermem.MaxPaperLimit, "papers read a request, 1..100")
	c.Flags().BoolVar(&asJSON, "json", false, "print the papers' JSON instead of text")
	return c
}

func deleteCmd(t *target, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "delete DOI|doc:ID",
		Short: "Delete a paper (by DOI) or a document (by doc_id) with everything recalled of it",
		Args:  wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, writes, func(ctx context.Context, m memory) error {
				var d *api.DeletedResponse
				var err error
				if strings.HasPrefix(strings.TrimSpace(args[0]), "doc:") {
					d, err = m.DeleteDocument(ctx, args[0])
				} else {
					d, err = m.DeletePaper(ctx, args[0])
				}
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, "deleted", d.Deleted)
				return nil
			})
		},
	}
}
