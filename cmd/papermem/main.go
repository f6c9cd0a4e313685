// Command papermem is papermem's command line: it serves the API, serves
// MCP over stdio, ingests folders of files, stores papers, and recalls,
// lists, remembers, forgets and exports, against a local database file or
// a running server.
//
//	papermem serve [--addr 127.0.0.1:8080] [--db ./papermem.db]
//	papermem serve grant-founder EMAIL | backup DEST
//	papermem mcp
//	papermem ingest PATH... [--domain D] [--doi DOI] [--title T]
//	papermem store --doi DOI [--title T] [--text TEXT | --file FILE]
//	papermem recall QUESTION [--budget N] [--label L] [--doi DOI]... [--json]
//	papermem papers QUERY [--limit N] [--json]
//	papermem documents [--limit N] [--json]
//	papermem workspaces [--json]
//	papermem users [--json]
//	papermem remember TEXT [--key K] [--domain D] [--tag T]...
//	papermem recall-user QUESTION [--budget N] [--json]
//	papermem forget KEY
//	papermem export [--session S] [--since T] [--until T]
//	papermem version | --version
//
// Without --url the commands open the database file of --db (default
// $PAPERMEM_DB, else ./papermem.db) in process, with the same PAPERMEM_*
// options as the server, in workspace --workspace; without it in
// "default", or in the file's only workspace when it holds no "default"
// (a server's database after one signup). A workspace --workspace names
// must exist, except for the commands that write (ingest, store,
// remember, mcp), which create it. The commands that only read refuse a
// database file that does not exist; those that write create it. With
// --url and --api-key (an API key or session token; $PAPERMEM_URL and
// $PAPERMEM_KEY) they call the server through package client, in the
// credential's workspace. --user ($PAPERMEM_USER) names the user of
// per-user memory; only its commands (remember, recall-user, forget, mcp)
// send it to a server.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
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
// stdout. An error in the command line itself carries the command's usage.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	root := newRoot(getenv, stdin, stdout, stderr)
	args, err := oldFlags(args)
	if err != nil {
		return withUsage(err, root)
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && strings.HasPrefix(err.Error(), "unknown command ") {
		// Cobra's error, with its suggestions when a name is near.
		return fmt.Errorf("%s\nRun 'papermem --help' for the commands", strings.TrimRight(err.Error(), "\n"))
	}
	if err != nil {
		return withUsage(explain(err), cmd)
	}
	return nil
}

// withUsage gives a usage error the usage of cmd.
func withUsage(err error, cmd interface{ UsageString() string }) error {
	var ue *usageError
	if errors.As(err, &ue) && ue.usage == "" {
		ue.usage = cmd.UsageString()
	}
	return err
}
