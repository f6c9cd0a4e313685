package main

import (
	"io"

	"github.com/papermem/papermem/internal/serve"
	"github.com/spf13/cobra"
)

// serveCmd is cmd/server's command line with --flags: --addr, the global
// --db, and the maintenance sub-commands. The Go-style -addr and -db of
// earlier versions are read too (see oldFlags).
func serveCmd(t *target, getenv func(string) string, stdout io.Writer) *cobra.Command {
	var addr string
	// run runs the server, or its sub-command rest, as cmd/server would.
	run := func(cmd *cobra.Command, rest ...string) error {
		a := []string{"-db", t.db}
		if addr != "" {
			a = append(a, "-addr", addr)
		}
		return serve.Run(cmd.Context(), append(a, rest...), getenv, stdout)
	}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the /v1 HTTP API, MCP at /mcp and the dashboard, on --db (as cmd/server)",
		Long: "Serves the /v1 HTTP API, MCP (Streamable HTTP) at /mcp and the dashboard at /dashboard/ on the database --db, " +
			"listening on --addr, until interrupted; then in-flight requests finish and the database closes cleanly. " +
			"It logs JSON lines to stdout.\n\n" +
			"The server's other settings are PAPERMEM_* environment variables (README, Configuration): " +
			"PAPERMEM_JWT_SECRET, PAPERMEM_FOUNDER_EMAILS, PAPERMEM_EMBEDDINGS_URL, PAPERMEM_MAX_UPLOAD_BYTES, " +
			"PAPERMEM_RATE_LIMIT, PAPERMEM_DEV_AUTH and others.",
		Args: wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd) },
	}
	c.Flags().StringVar(&addr, "addr", "", "address to listen on (default $PAPERMEM_ADDR, else 127.0.0.1:8080)")
	c.AddCommand(&cobra.Command{
		Use:   "grant-founder EMAIL",
		Short: "Give the account with this email the founder console",
		Args:  wantArgs(1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return run(cmd, "grant-founder", args[0]) },
	}, &cobra.Command{
		Use:   "backup DEST",
		Short: "Copy the database online, while servers run, to the file DEST",
		Args:  wantArgs(1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return run(cmd, "backup", args[0]) },
	})
	return c
}
