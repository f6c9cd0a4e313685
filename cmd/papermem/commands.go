package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/buildinfo"
	"github.com/papermem/papermem/mcpserver"
	"github.com/spf13/cobra"
)

func mcpCmd(t *target, stdin io.Reader, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:         "mcp",
		Annotations: perUser,
		Short:       "Serve the MCP tools over stdio, on --db in process or on --url with --api-key",
		Args:        wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMemory(cmd, t, writes, func(ctx context.Context, m memory) error {
				s := mcpserver.New(m, &mcpserver.Options{Files: true, Version: version()})
				return s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopCloser{stdout}})
			})
		},
	}
}

// nopCloser is a writer that is never closed: stdout outlives the session.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// version is the papermem version the binary was built from, as the MCP
// handshake reports it (buildinfo.Version).
func version() string { return buildinfo.Version() }

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the papermem version (as --version does)",
		Args:  wantArgs(0, 0),
		Run:   func(*cobra.Command, []string) { fmt.Fprintln(stdout, "papermem", version()) },
	}
}

func recallCmd(t *target, stdout io.Writer) *cobra.Command {
	var budget int
	var label string
	var dois []string
	var asJSON bool
	var stop stopFlags
	c := &cobra.Command{
		Use:   "recall QUESTION",
		Short: "Recall the spans that answer a question, with their citations",
		Args:  wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				req := api.RecallRequest{Question: args[0], Label: label, DOIs: dois, Fill: stop.fill}
				if cmd.Flags().Changed("budget") {
					req.BudgetTokens = &budget
				}
				if cmd.Flags().Changed("min-tokens") {
					req.MinTokens = &stop.minTokens
				}
				res, err := m.Recall(ctx, req)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, res)
				}
				printSpans(stdout, res, "Nothing in memory answers this.")
				return nil
			})
		},
	}
	c.Flags().IntVar(&budget, "budget", papermem.DefaultBudgetTokens, "token budget of the answer")
	c.Flags().StringVar(&label, "label", "", "Claim (default), Passage, Paper, Analysis, Document or Any")
	c.Flags().StringSliceVar(&dois, "doi", nil, fmt.Sprintf("only the spans of this paper, by DOI (repeatable or comma-separated, at most %d)", papermem.MaxRecallDOIs))
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	stop.add(c)
	return c
}

// printSpans prints spans best first, each with its citation, or none
// when there are none.
func printSpans(w io.Writer, res *papermem.RecallResult, none string) {
	if len(res.Spans) == 0 {
		fmt.Fprintln(w, none)
		return
	}
	for i, s := range res.Spans {
		fmt.Fprintf(w, "[%d] %s\n    — %s (score %.3f)\n", i+1, s.Text, s.Provenance.Citation(), s.Score)
	}
	fmt.Fprintf(w, "%s, %s\n", count(len(res.Spans), "span"), count(res.TotalTokens, "token"))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func papersCmd(t *target, stdout io.Writer) *cobra.Command {
	var limit int
	var asJSON, fill bool
	c := &cobra.Command{
		Use:   "papers QUERY",
		Short: "Rank the workspace's papers for a query",
		Args:  wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				ps, err := m.RecallPapersIn(ctx, papermem.PaperRecallRequest{Query: args[0], Limit: limit, Fill: fill})
				if err != nil {
					return err
				}
				if asJSON {
					if ps == nil {
						ps = []papermem.Paper{}
					}
					return writeJSON(stdout, ps)
				}
				for i, p := range ps {
					cached := ""
					if p.Cached {
						cached = ", full text"
					}
					if p.Retracted {
						cached += ", RETRACTED"
					}
					fmt.Fprintf(stdout, "%d. %s — doi:%s (score %.3f%s)\n", i+1, p.Title, p.DOI, p.Score, cached)
				}
				fmt.Fprintln(stdout, count(len(ps), "paper"))
				return nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", papermem.DefaultPaperLimit, "most papers listed, 1..100")
	c.Flags().BoolVar(&fill, "fill", false, "list up to --limit papers instead of ending before papers much weaker than the best")
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	return c
}

func exportCmd(t *target, stdout io.Writer) *cobra.Command {
	var session, since, until string
	c := &cobra.Command{
		Use:   "export",
		Short: "Write session export records as JSON Lines, newest first",
		Args:  wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := papermem.ExportQuery{SessionID: session}
			var err error
			if q.Since, err = api.TimeParam("since", since, false); err != nil {
				return err
			}
			if q.Until, err = api.TimeParam("until", until, true); err != nil {
				return err
			}
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error { return m.export(ctx, q, stdout) })
		},
	}
	c.Flags().StringVar(&session, "session", "", "only this session's record")
	c.Flags().StringVar(&since, "since", "", "records created at or after this ISO-8601 date or time")
	c.Flags().StringVar(&until, "until", "", "records created at or before this ISO-8601 date or time")
	return c
}

// stopFlags are the flags of a recall's stop: --fill asks for the whole
// budget, --min-tokens for at least that many tokens before it stops.
type stopFlags struct {
	fill      bool
	minTokens int
}

func (f *stopFlags) add(c *cobra.Command) {
	c.Flags().BoolVar(&f.fill, "fill", false, "fill the budget instead of stopping when the evidence is in")
	c.Flags().IntVar(&f.minTokens, "min-tokens", 0, "do not stop before this many tokens")
}
