// Command papermem is papermem's command line: it serves the API, serves
// MCP over stdio, ingests folders of files, and recalls, lists, remembers
// and exports, against a local database file or a running server.
//
//	papermem serve [-addr 127.0.0.1:8080] [-db ./papermem.db]
//	papermem mcp [--db FILE | --url URL --key KEY] [--user ID]
//	papermem ingest PATH... [--domain D]
//	papermem recall "question" [--budget N] [--label L] [--doi DOI]... [--json]
//	papermem papers "query" [--limit N] [--json]
//	papermem remember "text" [--key K] [--domain D] [--tag T]...
//	papermem export [--session S] [--since T] [--until T]
//
// Without --url the commands open the database file of --db (default
// $PAPERMEM_DB, else ./papermem.db) in process, in workspace --workspace
// (default "default"), with the same PAPERMEM_* options as the server. With
// --url and --key (an API key or session token; $PAPERMEM_URL and
// $PAPERMEM_KEY) they call the server through package client.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "papermem:", err)
		os.Exit(1)
	}
}

// run runs the command line args; mcp speaks the protocol over stdin and
// stdout.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	root := newRoot(getenv, stdin, stdout, stderr)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}
