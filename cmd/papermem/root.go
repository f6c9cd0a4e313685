package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/serve"
	"github.com/papermem/papermem/internal/store"
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

	// Set from the command line before a command runs.
	namedWorkspace bool // --workspace was given
	namedDB        bool // --db was given
	namedURL       bool // --url was given
	perUser        bool // the command acts for --user (see perUserCommand)
}

// perUserCommand is the annotation of the commands that act for a user
// (per-user memory): only they send --user to a server, which refuses a
// user who is not a member of the credential's workspace.
const perUserCommand = "per-user"

// memory is what the commands use of a papermem: the MCP tools' Backend,
// the export stream and the list of documents.
type memory interface {
	mcpserver.Backend
	// export writes the session records matching q as JSON Lines.
	export(ctx context.Context, q papermem.ExportQuery, w io.Writer) error
	// documents lists the workspace's documents, newest first.
	documents(ctx context.Context, limit int) ([]papermem.Document, error)
	// importLibrary runs an import to its end, reporting its progress.
	importLibrary(ctx context.Context, req papermem.ImportRequest, progress func(papermem.Import)) (*papermem.Import, error)
}

// use says what a command does to the workspace of a database file.
type use int

const (
	reads  use = iota // the workspace must exist when --workspace names it
	writes            // the first write creates a workspace --workspace names
)

// remote reports whether the commands call a server: --url, or
// $PAPERMEM_URL unless --db is given.
func (t *target) remote() bool { return t.url != "" && (t.namedURL || !t.namedDB) }

// check refuses flags that contradict each other.
func (t *target) check() error {
	switch {
	case t.namedDB && t.namedURL:
		return errors.New("--db and --url exclude each other: work on a database file or on a server")
	case t.remote() && t.namedWorkspace:
		return errors.New("--workspace chooses a workspace of a database file; on a server the API key (or session token) is bound to its workspace")
	case t.remote() && t.key == "":
		return errors.New("--url needs a credential: pass --api-key (an API key or a session token) or set $PAPERMEM_KEY")
	}
	return nil
}

// dbName is the database as messages name it: a URL without its password.
func (t *target) dbName() string { return store.Redact(t.db) }

// client returns the client of the server, acting for --user when the
// command is per-user.
func (t *target) client() *client.Client {
	opts := &client.Options{Token: t.key}
	if t.perUser {
		opts.UserID = t.user
	}
	return client.New(t.url, opts)
}

// openDB opens the database file with the server's PAPERMEM_* settings. A
// command that reads refuses a database file that does not exist, which
// opening would create empty (a typo in --db, the wrong folder); a command
// that writes creates it.
func (t *target) openDB(ctx context.Context, u use) (*papermem.Memory, error) {
	if u == reads && store.EngineOf(t.db) == store.SQLite && t.db != ":memory:" {
		if _, err := os.Stat(t.db); errors.Is(err, fs.ErrNotExist) {
			return nil, papermem.Errorf(papermem.ENOTFOUND, "no database at %s: check --db (or $PAPERMEM_DB), or create it by writing to it "+
				"(papermem ingest PATH, papermem store --doi DOI, papermem remember TEXT)", t.db)
		}
	}
	log := slog.New(slog.NewTextHandler(t.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return serve.Open(ctx, t.db, t.getenv, log)
}

// open returns the target's memory and a function that closes it.
func (t *target) open(ctx context.Context, u use) (memory, func() error, error) {
	if err := t.check(); err != nil {
		return nil, nil, err
	}
	if t.remote() {
		return remote{t.client()}, func() error { return nil }, nil
	}
	m, err := t.openDB(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	all, err := allWorkspaces(ctx, m)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	org, err := t.pick(all, u)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	ws := m.Workspace(org)
	closeFn := m.Close
	if u == writes {
		closeFn = func() error {
			t.waitOrigins(ctx, m)
			return m.Close()
		}
	}
	return local{Backend: mcpserver.Local(ws, t.localUser()), ws: ws}, closeFn, nil
}

// waitOrigins gives the metadata jobs a write queued (papers stored with
// their title or text, whose metadata the origins fill in the background)
// up to the origins' deadline to finish before the command exits, and
// says once, when some are left, that they are and how to turn the
// origins off. Nothing is said per paper.
func (t *target) waitOrigins(ctx context.Context, m *papermem.Memory) {
	wait := papermem.DefaultOriginDeadline
	if d, err := time.ParseDuration(t.getenv("PAPERMEM_ORIGIN_DEADLINE")); err == nil && d > 0 {
		wait = d
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if due, err := m.WaitJobs(ctx); err == nil && due > 0 {
		fmt.Fprintf(t.stderr, "papermem: the paper origins (Crossref, Unpaywall, OpenAlex) did not answer within %s: the metadata of %s stays pending, filled by the next papermem run or server on this database. PAPERMEM_ORIGINS=off turns the origins off.\n", wait, count(due, "paper"))
	}
}

// allWorkspaces lists the workspaces of the database m is open on, as the
// founder console lists them. The hosted service that lists them is closed
// at once: the commands work on the memory as a library, metering nothing.
func allWorkspaces(ctx context.Context, m *papermem.Memory) ([]hosted.WorkspaceSummary, error) {
	svc, err := hosted.New(m, nil)
	if err != nil {
		return nil, err
	}
	all, err := svc.AllWorkspaces(ctx)
	return all, errors.Join(err, svc.Close())
}

// pick chooses the workspace of a database file holding the workspaces
// all. A workspace --workspace names must exist, unless the command writes
// (its first write creates it). Without --workspace it is "default" when
// the file holds that one or none at all (a new file), else the only one
// it holds (a server's database after one signup); with several and no
// "default" the user must choose.
func (t *target) pick(all []hosted.WorkspaceSummary, u use) (string, error) {
	ids := make([]string, len(all))
	has := map[string]bool{}
	for i, w := range all {
		ids[i] = w.WorkspaceID
		has[w.WorkspaceID] = true
	}
	switch {
	case t.namedWorkspace && t.workspace == "":
		return "", errors.New("--workspace is empty")
	case t.namedWorkspace && has[t.workspace]:
		return t.workspace, nil
	case t.namedWorkspace && u == writes:
		fmt.Fprintf(t.stderr, "papermem: workspace %q does not exist in %s yet: the first write creates it\n", t.workspace, t.dbName())
		return t.workspace, nil
	case t.namedWorkspace:
		return "", papermem.Errorf(papermem.ENOTFOUND, "workspace %q does not exist in %s; %s", t.workspace, t.dbName(), holds(ids))
	case has[papermem.DefaultWorkspace] || len(all) == 0:
		return papermem.DefaultWorkspace, nil
	case len(all) == 1:
		return all[0].WorkspaceID, nil
	}
	return "", papermem.Errorf(papermem.EINVALID, "%s holds %d workspaces and none is %q: choose one with --workspace (papermem workspaces lists them): %s",
		t.dbName(), len(all), papermem.DefaultWorkspace, strings.Join(ids, ", "))
}

// holds says which workspaces a database holds.
func holds(ids []string) string {
	if len(ids) == 0 {
		return "it holds none yet (a write creates one)"
	}
	return "it holds " + strings.Join(ids, ", ")
}

// localUser is the user per-user memory acts for on a database file:
// --user (or $PAPERMEM_USER), else $USER, else "local".
func (t *target) localUser() string {
	for _, u := range []string{t.user, t.getenv("USER")} {
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

func (l local) documents(ctx context.Context, limit int) ([]papermem.Document, error) {
	return l.ws.Documents(ctx, limit)
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

func (r remote) documents(ctx context.Context, limit int) ([]papermem.Document, error) {
	res, err := r.Documents(ctx, limit)
	if err != nil {
		return nil, err
	}
	return res.Documents, nil
}

// Root flags that take a value, for reading the arguments before a
// command's name.
var rootValueFlags = map[string]bool{"--db": true, "--workspace": true, "--url": true, "--api-key": true, "--user": true}

// newRoot builds the command tree.
func newRoot(getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	t := &target{getenv: getenv, stderr: stderr}
	root := &cobra.Command{
		Use:   "papermem",
		Short: "Research memory for agents and people: papers, documents, analyses and notes, recalled with citations",
		Long: "Research memory for agents and people: papers, documents, analyses and notes, recalled with citations.\n\n" +
			"Every command works on a database file in process (--db, default $PAPERMEM_DB or ./papermem.db) " +
			"or on a running server (--url and --api-key, or $PAPERMEM_URL and $PAPERMEM_KEY).",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			t.namedWorkspace = cmd.Flags().Changed("workspace")
			t.namedDB = cmd.Flags().Changed("db")
			t.namedURL = cmd.Flags().Changed("url")
			t.perUser = cmd.Annotations[perUserCommand] != ""
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("papermem {{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if strings.Contains(err.Error(), "unknown flag: --key") {
			err = fmt.Errorf("%w (the API key's flag is --api-key)", err)
		}
		return &usageError{err: err}
	})
	db := getenv("PAPERMEM_DB")
	if db == "" {
		db = serve.DefaultDB
	}
	f := root.PersistentFlags()
	f.StringVar(&t.db, "db", db, "database file (or postgres:// URL) to work on in process ($PAPERMEM_DB)")
	f.StringVar(&t.workspace, "workspace", "",
		"workspace of the database file (papermem workspaces lists them); unset: \"default\", or the file's only workspace")
	f.StringVar(&t.url, "url", getenv("PAPERMEM_URL"), "URL of a running server instead of a database file ($PAPERMEM_URL)")
	f.StringVar(&t.key, "api-key", getenv("PAPERMEM_KEY"), "API key (pm_…) or session token for --url ($PAPERMEM_KEY)")
	f.StringVar(&t.user, "user", getenv("PAPERMEM_USER"),
		"user of per-user memory (remember, recall-user, forget, mcp; $PAPERMEM_USER): on a server the user_id (usr_…) an API key acts for, "+
			"papermem users lists them; on a database file any name, default $USER, else \"local\"")
	root.AddCommand(serveCmd(t, getenv, stdout), mcpCmd(t, stdin, stdout), versionCmd(stdout),
		ingestCmd(t, stdout, stderr), storeCmd(t, stdin, stdout),
		recallCmd(t, stdout), papersCmd(t, stdout), citeCmd(t, stdout), documentsCmd(t, stdout), workspacesCmd(t, stdout),
		usersCmd(t, stdout),
		rememberCmd(t, stdout), recallUserCmd(t, stdout), forgetCmd(t, stdout),
		exportCmd(t, stdout), importCmd(t, getenv, stdout, stderr), paperCmd(t, stdout), libraryCmd(t, stdout), deleteCmd(t, stdout),
		referencesCmd(t, stdout), citationsCmd(t, stdout), relatedCmd(t, stdout), gapsCmd(t, stdout))
	return root
}

// withMemory runs fn over the target's memory and closes it.
func withMemory(cmd *cobra.Command, t *target, u use, fn func(ctx context.Context, m memory) error) (err error) {
	m, closeFn, err := t.open(cmd.Context(), u)
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

// usageError is an error in the command line itself: its message is
// followed by the command's usage.
type usageError struct {
	err   error
	usage string
}

func (e *usageError) Error() string {
	if e.usage == "" {
		return e.err.Error()
	}
	return e.err.Error() + "\n\n" + strings.TrimRight(e.usage, "\n")
}

func (e *usageError) Unwrap() error { return e.err }

// wantArgs checks the number of positional arguments, from min to max (-1:
// any number), naming the missing ones by the command's Use line.
func wantArgs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		names := strings.Fields(cmd.Use)[1:]
		path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
		switch {
		case len(args) < min:
			return &usageError{err: fmt.Errorf("%s needs %s", path, strings.Join(names[len(args):min], " "))}
		case max >= 0 && len(args) > max && max == 0:
			return &usageError{err: fmt.Errorf("%s takes no arguments, got %q", path, args)}
		case max >= 0 && len(args) > max:
			return &usageError{err: fmt.Errorf("%s takes %s, got %d arguments (quote text of several words)",
				path, strings.Join(names[:max], " "), len(args))}
		}
		return nil
	}
}

// explain rewrites errors a user can fix with a flag of this command line,
// and gives an error with a message for the user that message alone (not
// its cause, as the API would not either).
func explain(err error) error {
	if api.Code(err) == api.CodeMissingUserID || errors.Is(err, api.ErrMissingUser) {
		return errors.New("per-user memory needs a user: pass --user USER_ID (or set $PAPERMEM_USER); an API key acts for no user by itself, a session token for its own; papermem users lists the user ids")
	}
	if m := papermem.ErrorMessage(err); papermem.ErrorCode(err) == papermem.EFORBIDDEN && strings.Contains(m, notMember) {
		name, _, _ := strings.Cut(m, notMember)
		return fmt.Errorf("--user: %s is not a user of the API key's workspace: a user id is usr_ and 24 hex digits (usr_3f9a…), as papermem users lists them", strings.TrimPrefix(name, "User "))
	}
	var e *papermem.Error
	if errors.As(err, &e) && e.Err != nil && e.Message != "" && e.Code != papermem.EINTERNAL {
		return &papermem.Error{Code: e.Code, Message: e.Message}
	}
	return err
}

// notMember is what a server answers for a --user that is not a member of
// the credential's workspace, after the user's quoted id.
const notMember = " is not a member of this workspace"

// oldFlags reads the spellings earlier versions took: `serve -addr` and
// `-db` (Go flags), and the global `--key` now named --api-key, which
// before a command's name would otherwise be taken for remember's --key
// (the note's key).
func oldFlags(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	command := false // a command's name was read
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		for _, name := range []string{"addr", "db"} {
			if a == "-"+name || strings.HasPrefix(a, "-"+name+"=") {
				a = "-" + a
			}
		}
		switch {
		case !command && (a == "--key" || strings.HasPrefix(a, "--key=")):
			return nil, errors.New("the API key's flag is --api-key (or $PAPERMEM_KEY); --key is remember's, the note's key")
		case !command && rootValueFlags[a] && i+1 < len(args):
			out = append(out, a, args[i+1])
			i++
			continue
		case !strings.HasPrefix(a, "-"):
			command = true
		}
		out = append(out, a)
	}
	return out, nil
}
