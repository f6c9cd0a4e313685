package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/internal/serve"
	"github.com/papermem/papermem/mcpserver"
	"github.com/spf13/cobra"
)

// target is where a command works: a database file, or a server.
type target struct {
	getenv    func(string) string
	stderr    io.Writer
	db        string
	workspace string
	url, key  string
	user      string
}

// memory is what the commands use of a papermem: the MCP tools' Backend
// and the export stream.
type memory interface {
	mcpserver.Backend
	// export writes the session records matching q as JSON Lines.
	export(ctx context.Context, q papermem.ExportQuery, w io.Writer) error
}

// open returns the target's memory and a function that closes it.
func (t *target) open(ctx context.Context) (memory, func() error, error) {
	if t.url != "" {
		return remote{client.New(t.url, &client.Options{Token: t.key, UserID: t.user})}, func() error { return nil }, nil
	}
	log := slog.New(slog.NewTextHandler(t.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := serve.Open(ctx, t.db, t.getenv, log)
	if err != nil {
		return nil, nil, err
	}
	ws := m.Workspace(t.workspace)
	return local{Backend: mcpserver.Local(ws, t.localUser()), ws: ws}, m.Close, nil
}

// localUser is the user per-user memory acts for on a database file:
// --user, else $PAPERMEM_USER, else $USER, else "local".
func (t *target) localUser() string {
	for _, u := range []string{t.user, t.getenv("PAPERMEM_USER"), t.getenv("USER")} {
		if u != "" {
			return u
		}
	}
	return "local"
}

// local is a workspace in process.
type local struct {
	mcpserver.Backend
	ws *papermem.Workspace
}

func (l local) export(ctx context.Context, q papermem.ExportQuery, w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return l.ws.StreamExports(ctx, q, func(r *papermem.SessionRecord) error { return enc.Encode(r) })
}

// remote is a running server.
type remote struct{ *client.Client }

func (r remote) export(ctx context.Context, q papermem.ExportQuery, w io.Writer) error {
	rc, err := r.ExportDownload(ctx, q)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(w, rc)
	return err
}

// newRoot builds the command tree.
func newRoot(getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	t := &target{getenv: getenv, stderr: stderr}
	root := &cobra.Command{
		Use:           "papermem",
		Short:         "Research memory for agents and people: papers, documents, analyses and notes, recalled with citations",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	db := getenv("PAPERMEM_DB")
	if db == "" {
		db = serve.DefaultDB
	}
	f := root.PersistentFlags()
	f.StringVar(&t.db, "db", db, "database file (or postgres:// URL) to work on in process ($PAPERMEM_DB)")
	f.StringVar(&t.workspace, "workspace", papermem.DefaultWorkspace, "workspace of the database file")
	f.StringVar(&t.url, "url", getenv("PAPERMEM_URL"), "URL of a running server instead of a database file ($PAPERMEM_URL)")
	f.StringVar(&t.key, "key", getenv("PAPERMEM_KEY"), "API key or session token for --url ($PAPERMEM_KEY)")
	f.StringVar(&t.user, "user", "", "user for per-user memory: X-User-Id with an API key; on a database file default $PAPERMEM_USER, $USER or \"local\"")
	root.AddCommand(serveCmd(getenv, stdout), mcpCmd(t, stdin, stdout), ingestCmd(t, stdout, stderr), recallCmd(t, stdout),
		papersCmd(t, stdout), rememberCmd(t, stdout), exportCmd(t, stdout))
	return root
}

// withMemory runs fn over the target's memory and closes it.
func withMemory(cmd *cobra.Command, t *target, fn func(ctx context.Context, m memory) error) (err error) {
	m, closeFn, err := t.open(cmd.Context())
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeFn(); err == nil {
			err = cerr
		}
	}()
	return fn(cmd.Context(), m)
}
