package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestMain runs the command itself, main and its exit status, when a test
// starts this binary with mainEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const mainEnv = "PAPERMEM_TEST_MAIN"

// papermemBin runs this test binary as the papermem command with args and
// returns its stdout, stderr and exit status.
func papermemBin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// TestExitStatus runs the command as a user does and checks its exit
// status: 0 for --version, version and serve --help, 1 with the usage for
// a missing argument.
func TestExitStatus(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if out, _, code := papermemBin(t, args...); code != 0 || out != "papermem "+version()+"\n" {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
	if out, _, code := papermemBin(t, "serve", "--help"); code != 0 || !strings.Contains(out, "papermem serve [flags]") || !strings.Contains(out, "--addr") {
		t.Errorf("serve --help: exit %d\n%s", code, out)
	}
	_, stderr, code := papermemBin(t, "recall")
	if code != 1 || !strings.HasPrefix(stderr, "papermem: recall needs QUESTION\n\nUsage:\n  papermem recall QUESTION [flags]\n") {
		t.Errorf("recall without a question: exit %d\n%s", code, stderr)
	}
	_, stderr, code = papermemBin(t, "bogus")
	if code != 1 || stderr != "papermem: unknown command \"bogus\" for \"papermem\"\nRun 'papermem --help' for the commands\n" {
		t.Errorf("an unknown command: exit %d\n%s", code, stderr)
	}
	db := testdb.Path(t)
	if out, _, code := papermemBin(t, "--db", db, "store", "--doi", "10.1000/x", "--title", "X"); code != 0 || !strings.Contains(out, "stored doi:10.1000/x") {
		t.Errorf("store on a new database: exit %d, %q", code, out)
	}
	if out, _, code := papermemBin(t, "--db", db, "recall", "anything"); code != 0 || out != "Nothing in memory answers this.\n" {
		t.Errorf("recall on an existing database: exit %d, %q", code, out)
	}
}

// TestMissingDatabase checks that the commands that only read refuse a
// database file that does not exist (a typo in --db) and create nothing,
// and that those that write create it, its folders with it.
func TestMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo", "papermem.db")
	for _, args := range [][]string{{"documents"}, {"recall", "q"}, {"papers", "q"}, {"workspaces"}, {"users"}, {"cite", "10.1000/x"},
		{"recall-user", "q"}, {"forget", "k"}, {"export"}} {
		out, stderr, code := papermemBin(t, append([]string{"--db", typo}, args...)...)
		if code != 1 || out != "" || stderr != "papermem: no database at "+typo+": check --db (or $PAPERMEM_DB), or create it by writing to it "+
			"(papermem ingest PATH, papermem store --doi DOI, papermem remember TEXT)\n" {
			t.Errorf("%v on a missing database: exit %d, %q\n%s", args, code, out, stderr)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("reading a missing database created %v (%v)", entries, err)
	}
	env := map[string]string{"PAPERMEM_DB": typo}
	if out, _, err := cli(t, env, "remember", "Coffee is black.", "--user", "ada"); err != nil || !strings.Contains(out, "remembered") {
		t.Fatalf("remember on a missing database: %v, %q", err, out)
	}
	if out, _, err := cli(t, env, "documents"); err != nil || out != "0 documents\n" {
		t.Errorf("documents of the created database: %v, %q", err, out)
	}
}

// TestCommandLine checks what the command line itself accepts: versions,
// usage with each mistake, the credential's flag and the flags that
// exclude each other.
func TestCommandLine(t *testing.T) {
	t.Run("Version", func(t *testing.T) {
		for _, args := range [][]string{{"--version"}, {"version"}} {
			if out, _, err := cli(t, nil, args...); err != nil || out != "papermem "+version()+"\n" || version() == "" {
				t.Errorf("%v: %v, %q", args, err, out)
			}
		}
	})
	t.Run("MissingArgument", func(t *testing.T) {
		for _, c := range []struct{ args, want string }{
			{"recall", "recall needs QUESTION"},
			{"papers", "papers needs QUERY"},
			{"remember", "remember needs TEXT"},
			{"recall-user", "recall-user needs QUESTION"},
			{"forget", "forget needs KEY"},
			{"cite", "cite needs DOI"},
			{"ingest", "ingest needs PATH..."},
			{"serve backup", "serve backup needs DEST"},
		} {
			_, _, err := cli(t, nil, strings.Fields(c.args)...)
			usage := "\n\nUsage:\n  papermem " + c.want[:strings.Index(c.want, " needs ")] + " " + c.want[strings.Index(c.want, " needs ")+7:] + " [flags]\n"
			if err == nil || !strings.HasPrefix(err.Error(), c.want+usage) {
				t.Errorf("%s: %v", c.args, err)
			}
		}
	})
	t.Run("TooManyArguments", func(t *testing.T) {
		_, _, err := cli(t, nil, "--db", testdb.Path(t), "recall", "does", "coffee", "help")
		if err == nil || !strings.HasPrefix(err.Error(), "recall takes QUESTION, got 3 arguments (quote text of several words)\n\nUsage:") {
			t.Errorf("recall of three words: %v", err)
		}
	})
	t.Run("UnknownFlag", func(t *testing.T) {
		_, _, err := cli(t, nil, "recall", "q", "--nope")
		if err == nil || !strings.HasPrefix(err.Error(), "unknown flag: --nope\n\nUsage:\n  papermem recall QUESTION [flags]") {
			t.Errorf("an unknown flag: %v", err)
		}
	})
	t.Run("ServeHelp", func(t *testing.T) {
		out, _, err := cli(t, nil, "serve", "--help")
		for _, want := range []string{"Usage:\n  papermem serve [flags]", "--addr string", "grant-founder", "backup", "PAPERMEM_JWT_SECRET"} {
			if err != nil || !strings.Contains(out, want) {
				t.Errorf("serve --help: %v, no %q in\n%s", err, want, out)
			}
		}
	})
	t.Run("OldKeyFlag", func(t *testing.T) {
		// The global --key of earlier versions is refused before it can
		// become remember's --key, the note's key.
		db := testdb.Path(t)
		for _, args := range [][]string{
			{"--db", db, "--key", "foo", "remember", "local memory"},
			{"--db", db, "--key=foo", "remember", "local memory"},
			{"--url", "http://127.0.0.1:1", "--key", "pm_secret", "remember", "likes CIs"},
			{"--db", db, "recall", "q", "--key", "pm_secret"},
			{"--db", db, "remember", "likes CIs", "--key", hosted.KeyPrefix + strings.Repeat("k", 43)},
		} {
			if _, _, err := cli(t, nil, args...); err == nil || !strings.Contains(err.Error(), "--api-key") {
				t.Errorf("%v: %v, want the --api-key flag named", args, err)
			}
		}
		if out, _, err := cli(t, nil, "--db", db, "recall-user", "local memory"); (err != nil || out != "None of the user's notes answers this.\n") &&
			(err == nil || !strings.HasPrefix(err.Error(), "no database at ")) {
			t.Errorf("a note was stored: %v\n%s", err, out)
		}
	})
	t.Run("Excluded", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--db", testdb.Path(t), "--url", "http://127.0.0.1:1", "--api-key", "pm_x", "recall", "q"}, "--db and --url exclude each other"},
			{[]string{"--url", "http://127.0.0.1:1", "--api-key", "pm_x", "--workspace", "lab", "recall", "q"}, "on a server the API key"},
			{[]string{"--url", "http://127.0.0.1:1", "recall", "q"}, "--url needs a credential: pass --api-key"},
			{[]string{"--url", "http://127.0.0.1:1", "workspaces"}, "--url needs a credential: pass --api-key"},
		} {
			if _, _, err := cli(t, nil, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: %v, want %q", c.args, err, c.want)
			}
		}
		// --db given beats $PAPERMEM_URL.
		env := map[string]string{"PAPERMEM_URL": "http://127.0.0.1:1", "PAPERMEM_KEY": "pm_x"}
		if out, _, err := cli(t, env, "--db", testdb.Path(t), "store", "--title", "Local"); err != nil || !strings.Contains(out, `"Local"`) {
			t.Errorf("--db with $PAPERMEM_URL: %v\n%s", err, out)
		}
	})
}

// testServer is a server over a fresh database with a signed-up user and
// an API key of their workspace.
type testServer struct {
	m                   *papermem.Memory
	url, key, user, org string
}

func newTestServer(t *testing.T) testServer {
	t.Helper()
	ctx := context.Background()
	svc := testutil.OpenHosted(t, nil, nil)
	m := svc.Memory()
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	tok, err := client.New(srv.URL, nil).Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := client.New(srv.URL, &client.Options{Token: tok.AccessToken}).CreateAPIKey(ctx, api.CreateKeyRequest{Name: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	return testServer{m: m, url: srv.URL, key: key.Key, user: tok.User.UserID, org: tok.User.WorkspaceID}
}

// TestCommands runs the commands of papers, documents and notes on a
// database file and on a server, as a user would in turn.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notes := write("notes.md", "# Lab notes\n\nThe centrifuge in room 4 runs at 4 °C since the March service.")
	nap := write("naps.md", "# Draft\n\nA 20-minute nap improved recall of word pairs by 12% in 40 students.")
	caffeine := write("caffeine.md", "Caffeine raised alertness in 40 of 50 night-shift nurses.")
	pdf := write("scan.pdf", "%PDF-1.4\n\xff\xfe binary")
	two := filepath.Join(dir, "two")
	os.Mkdir(two, 0o700)
	os.WriteFile(filepath.Join(two, "a.md"), []byte("A."), 0o600)
	os.WriteFile(filepath.Join(two, "b.md"), []byte("B."), 0o600)

	srv := newTestServer(t)
	for _, mode := range []struct {
		name, ws string
		env      map[string]string
		flags    []string
	}{
		{"File", papermem.DefaultWorkspace, nil, []string{"--db", testdb.Path(t), "--user", "ada"}},
		{"Server", srv.org, map[string]string{"PAPERMEM_URL": srv.url, "PAPERMEM_KEY": srv.key, "PAPERMEM_USER": srv.user}, nil},
	} {
		t.Run(mode.name, func(t *testing.T) {
			// run runs the command line args in this mode and returns stdout.
			run := func(args ...string) (string, error) {
				t.Helper()
				out, _, err := cli(t, mode.env, append(append([]string{}, mode.flags...), args...)...)
				return out, err
			}
			ok := func(want string, args ...string) string {
				t.Helper()
				out, err := run(args...)
				if err != nil || !strings.Contains(out, want) {
					t.Errorf("%v: %v, want %q in\n%s", args, err, want, out)
				}
				return out
			}
			fails := func(want string, args ...string) {
				t.Helper()
				if out, err := run(args...); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%v: %v, want an error with %q\n%s", args, err, want, out)
				}
			}

			// Papers.
			ok(`stored doi:10.1000/vitd "Vitamin D and fractures" (`, "store", "--doi", "10.1000/vitd", "--title", "Vitamin D and fractures",
				"--text", "Vitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98).", "--year", "2020")
			ok(`stored doi:10.1000/caffeine "Caffeine at night" (`, "store", "--doi", "10.1000/caffeine", "--title", "Caffeine at night", "--file", caffeine)
			ok(`stored doi:10.1000/meta "Metadata only" (1 node, 0 claims, no full text)`, "store", "--doi", "10.1000/meta", "--title", "Metadata only")
			fails("papermem ingest "+pdf+" --doi DOI", "store", "--doi", "10.1000/pdf", "--file", pdf)
			fails("none of the others can be", "store", "--doi", "10.1000/x", "--text", "t", "--file", caffeine)
			fails("store needs --doi, --title or --source-url", "store", "--text", "Some text.")
			fails("not a DOI", "store", "--doi", "not-a-doi", "--title", "Bad")

			// Citations of a stored paper, on stdout as they are.
			ok(`stored doi:10.1000/cite "Citing & stored papers"`, "store", "--doi", "10.1000/cite", "--title", "Citing & stored papers", "--author", "Jane Doe",
				"--author", "Roe, Richard", "--year", "2021", "--source-url", "https://example.org/cite")
			if out, err := run("cite", "10.1000/cite"); err != nil || out != "@article{doe2021citing,\n  author = {Doe, Jane and Roe, Richard},\n"+
				"  title = {{Citing \\& stored papers}},\n  year = {2021},\n  doi = {10.1000/cite},\n  url = {https://example.org/cite}\n}\n" {
				t.Errorf("cite: %v\n%s", err, out)
			}
			ok("TY  - JOUR\r\nTI  - Citing & stored papers\r\nAU  - Doe, Jane\r\nAU  - Roe, Richard\r\nPY  - 2021\r\n", "cite", "--format", "RIS", "doi:10.1000/CITE")
			csl := ok(`"DOI": "10.1000/cite"`, "cite", "https://doi.org/10.1000/cite", "--format", "csl-json")
			var items []map[string]any
			if err := json.Unmarshal([]byte(csl), &items); err != nil || len(items) != 1 || items[0]["id"] != "doe2021citing" {
				t.Errorf("cite --format csl-json: %v\n%s", err, csl)
			}
			fails("use bibtex, ris, csl-json", "cite", "10.1000/cite", "--format", "apa")
			fails("not in memory", "cite", "10.1000/none")

			// Files: a document, and a paper by --doi with its --title.
			ok("1 stored, 0 failed, 0 skipped", "ingest", notes, "--domain", "lab")
			out := ok("1 stored, 0 failed, 0 skipped", "ingest", nap, "--doi", "10.1000/naps", "--title", "Naps and memory")
			if !regexp.MustCompile(`naps\.md\s+stored\s+paper\s+markdown`).MatchString(out) {
				t.Errorf("ingest --doi did not store a paper:\n%s", out)
			}
			fails("--doi and --title describe one file, and the paths hold 2 files", "ingest", two, "--doi", "10.1000/two")
			ok("1. Naps and memory — doi:10.1000/naps", "papers", "nap word pairs")
			ok("doi:10.1000/vitd", "recall", "Does vitamin D prevent fractures?", "--label", "Any", "--doi", "10.1000/vitd")
			ok("\n1 paper\n", "papers", "nap word pairs", "--limit", "1")
			ok("\n1 span, ", "recall", "Metadata only", "--label", "Any", "--doi", "10.1000/meta")

			// Documents: the ingested file, not the papers.
			out = ok("1 document\n", "documents")
			if !regexp.MustCompile(`(?m)^doc:\d+\s+notes\.md\s+markdown\s+\d+\s+\S+\s+Lab notes$`).MatchString(out) || strings.Contains(out, "naps") {
				t.Errorf("documents:\n%s", out)
			}
			out = ok(`"count": 1`, "documents", "--json")
			var docs api.DocumentsResponse
			if err := json.Unmarshal([]byte(out), &docs); err != nil || len(docs.Documents) != 1 || docs.Documents[0].Domain != "lab" {
				t.Errorf("documents --json: %v\n%s", err, out)
			}
			fails("limit must be", "documents", "--limit", "101")

			// Notes: remember, read back, forget.
			ok(`remembered as "style"`, "remember", "Ada wants effect sizes with 95% confidence intervals.", "--key", "style")
			ok(`remembered as "coffee"`, "remember", "Ada drinks her coffee black.", "--key", "coffee")
			ok("— memory \"style\" (score ", "recall-user", "What does Ada want in effect sizes?")
			out = ok(`"key": "coffee"`, "recall-user", "How does Ada take her coffee?", "--json")
			var res papermem.RecallResult
			if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.Key != "coffee" {
				t.Errorf("recall-user --json: %v\n%s", err, out)
			}
			ok(`forgot "style"`+"\n", "forget", "style")
			if out := ok("", "recall-user", "What does Ada want in effect sizes?"); strings.Contains(out, `"style"`) {
				t.Errorf("a forgotten note recalled:\n%s", out)
			}
			fails("No memory with key", "forget", "style")

			// The workspace the commands work in.
			ok("* ", "workspaces")
			// Marked, named (- for none) and with its papers, documents and notes.
			if out := ok("", "workspaces"); !regexp.MustCompile(`(?m)^\*\s+` + regexp.QuoteMeta(mode.ws) + `\s+\S+\s+Starter Tier\s+5\s+1\s+1\s+\S+$`).MatchString(out) {
				t.Errorf("workspaces does not mark %s with its counts:\n%s", mode.ws, out)
			}
		})
	}

	// A --user that is no user of the workspace, as $PAPERMEM_USER left
	// set from local use: the commands without a user work; those with
	// one say what a user id is and where to find one.
	t.Run("ServerWithStrayUser", func(t *testing.T) {
		env := map[string]string{"PAPERMEM_URL": srv.url, "PAPERMEM_KEY": srv.key, "PAPERMEM_USER": "ada"}
		for _, c := range []struct {
			want string
			args []string
		}{
			{"stored doi:10.1000/stray", []string{"store", "--doi", "10.1000/stray", "--title", "Stray users", "--text", "Stray users broke every command."}},
			{"1 stored, 0 failed", []string{"ingest", notes}},
			{"doc:", []string{"documents"}},
			{"* the API key's workspace", []string{"workspaces"}},
			{"1. Stray users", []string{"papers", "stray users"}},
			{"Stray users broke", []string{"recall", "What broke every command?", "--label", "Any"}},
			{"@", []string{"cite", "10.1000/stray"}},
			{srv.user + "  ada@example.org", []string{"users"}},
		} {
			if out, _, err := cli(t, env, c.args...); err != nil || !strings.Contains(out, c.want) {
				t.Errorf("%v with --user ada: %v, want %q in\n%s", c.args, err, c.want, out)
			}
		}
		_, _, err := cli(t, env, "remember", "Ada likes CIs.")
		if err == nil || err.Error() != `--user: "ada" is not a user of the API key's workspace: a user id is usr_ and 24 hex digits (usr_3f9a…), as papermem users lists them` {
			t.Errorf("remember for a stray user: %v", err)
		}
	})

	t.Run("ServerWithoutUser", func(t *testing.T) {
		env := map[string]string{"PAPERMEM_URL": srv.url, "PAPERMEM_KEY": srv.key}
		for _, args := range [][]string{{"remember", "Ada likes CIs."}, {"recall-user", "What does Ada like?"}, {"forget", "coffee"}} {
			_, _, err := cli(t, env, args...)
			if err == nil || !strings.Contains(err.Error(), "pass --user USER_ID (or set $PAPERMEM_USER)") || strings.Contains(err.Error(), "X-User-Id") {
				t.Errorf("%v with an API key and no user: %v", args, err)
			}
		}
	})
}

// TestWorkspaceChoice runs the commands on a database holding workspaces
// that signups created, as a server's database does: the only workspace is
// used; with several the user must choose; a workspace named that does not
// exist is an error for reads and created by writes.
func TestWorkspaceChoice(t *testing.T) {
	ctx := context.Background()
	db := testdb.Path(t)
	signup := func(email, paper string) string {
		t.Helper()
		m, err := papermem.Open(ctx, db, &papermem.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		svc, err := hosted.New(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer svc.Close()
		u, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: email, Password: "correct horse"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Workspace(u.WorkspaceID).StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/" + paper, Title: paper, Text: paper + " lowered blood pressure."}); err != nil {
			t.Fatal(err)
		}
		return u.WorkspaceID
	}
	cmd := func(args ...string) (string, string, error) {
		t.Helper()
		return cli(t, nil, append([]string{"--db", db}, args...)...)
	}

	t.Run("New", func(t *testing.T) {
		m, err := papermem.Open(ctx, db, &papermem.Options{Logger: slog.New(slog.DiscardHandler)}) // a server's, before any write
		if err != nil {
			t.Fatal(err)
		}
		m.Close()
		out, _, err := cmd("workspaces")
		if err != nil || out != db+" holds no workspace yet: the first write creates \"default\"\n" {
			t.Errorf("workspaces of a new file: %v, %q", err, out)
		}
		if out, _, err := cmd("papers", "blood pressure"); err != nil || out != "0 papers\n" {
			t.Errorf("papers of a new file: %v, %q", err, out)
		}
		if out, _, err := cmd("users"); err != nil || !strings.HasPrefix(out, "The workspace has no users") {
			t.Errorf("users of a new file: %v, %q", err, out)
		}
	})
	first := signup("ada@example.org", "salt")
	t.Run("OnlyOne", func(t *testing.T) {
		if out, _, err := cmd("papers", "blood pressure"); err != nil || !strings.Contains(out, "1. salt — doi:10.1000/salt") {
			t.Errorf("papers in the only workspace: %v\n%s", err, out)
		}
		if out, _, err := cmd("workspaces"); err != nil || !regexp.MustCompile(`(?m)^\*\s+`+first+`\s.*\s1\s+0\s+0\s`).MatchString(out) {
			t.Errorf("workspaces: %v\n%s", err, out)
		}
		if out, _, err := cmd("users"); err != nil || !regexp.MustCompile(`(?m)^usr_[0-9a-f]{24}\s+ada@example\.org\s+-\s+\w+\s+\S+\n1 user\n$`).MatchString(out) {
			t.Errorf("users: %v\n%s", err, out)
		}
	})
	second := signup("bob@example.org", "potassium")
	t.Run("Several", func(t *testing.T) {
		_, _, err := cmd("papers", "blood pressure")
		if err == nil || !strings.Contains(err.Error(), `holds 2 workspaces and none is "default": choose one with --workspace`) ||
			!strings.Contains(err.Error(), first+", "+second) {
			t.Errorf("papers with two workspaces: %v", err)
		}
		out, _, err := cmd("workspaces")
		if err != nil || strings.Contains(out, "*") || !strings.Contains(out, "none chosen: ") || !strings.Contains(out, second) {
			t.Errorf("workspaces: %v\n%s", err, out)
		}
		if out, _, err := cmd("--workspace", second, "papers", "blood pressure"); err != nil || !strings.Contains(out, "1. potassium") {
			t.Errorf("papers --workspace: %v\n%s", err, out)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, args := range [][]string{{"papers", "blood pressure"}, {"recall", "salt"}, {"documents"}, {"recall-user", "q"}, {"forget", "k"}, {"export"}} {
			_, _, err := cmd(append([]string{"--workspace", "ws-typo"}, args...)...)
			if papermem.ErrorCode(err) != papermem.ENOTFOUND || !strings.Contains(err.Error(), `workspace "ws-typo" does not exist in `+db+"; it holds "+first+", "+second) {
				t.Errorf("%v in a missing workspace: %v", args, err)
			}
		}
	})
	t.Run("WriteCreates", func(t *testing.T) {
		note := filepath.Join(t.TempDir(), "plan.md")
		os.WriteFile(note, []byte("# Plan\n\nMeasure blood pressure twice a day."), 0o600)
		out, stderr, err := cmd("--workspace", "thesis", "ingest", note)
		if err != nil || !strings.Contains(out, "1 stored") || !strings.Contains(stderr, `workspace "thesis" does not exist in `+db+" yet: the first write creates it") {
			t.Errorf("ingest into a new workspace: %v\n%s%s", err, out, stderr)
		}
		if out, _, err := cmd("--workspace", "thesis", "documents"); err != nil || !strings.Contains(out, "plan.md") {
			t.Errorf("documents of the new workspace: %v\n%s", err, out)
		}
		if out, _, err := cmd("--workspace", "thesis", "workspaces"); err != nil || !regexp.MustCompile(`(?m)^\*\s+thesis\s`).MatchString(out) {
			t.Errorf("workspaces --workspace thesis: %v\n%s", err, out)
		}
	})
}

// TestServe runs papermem serve, with --flags and with the Go-style
// spelling of earlier versions, until it is interrupted, and its backup
// sub-command.
func TestServe(t *testing.T) {
	for _, c := range []struct {
		name string
		args func(db string) []string
	}{
		{"Flags", func(db string) []string { return []string{"serve", "--addr", "127.0.0.1:0", "--db", db} }},
		{"GoFlags", func(db string) []string { return []string{"serve", "-addr", "127.0.0.1:0", "-db=" + db} }},
		{"GlobalDB", func(db string) []string { return []string{"--db", db, "serve", "--addr=127.0.0.1:0"} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := testdb.Path(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout testutil.Buffer
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, c.args(db), func(string) string { return "" }, strings.NewReader(""), &stdout, io.Discard)
			}()
			listening := regexp.MustCompile(`"msg":"listening","addr":"(http://127\.0\.0\.1:\d+)","db":"([^"]*)"`)
			var m []string
			for deadline := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				m = listening.FindStringSubmatch(stdout.String())
			}
			if m == nil {
				cancel()
				t.Fatalf("serve never listened: %v\n%s", <-done, stdout.String())
			}
			if m[2] != db && !strings.HasPrefix(db, "postgres") {
				t.Errorf("serves %s, want %s", m[2], db)
			}
			res, err := http.Get(m[1] + "/v1/health")
			if err != nil || res.StatusCode != http.StatusOK {
				t.Errorf("health: %v %v", res, err)
			}
			if res != nil {
				res.Body.Close()
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve after an interrupt: %v", err)
			}
		})
	}
	t.Run("Backup", func(t *testing.T) {
		if testdb.Engine() != "sqlite" {
			t.Skip("backup copies SQLite files")
		}
		db := testdb.Path(t)
		if _, _, err := cli(t, nil, "--db", db, "store", "--doi", "10.1000/a", "--title", "A", "--text", "Salt raised blood pressure."); err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), "copy.db")
		out, _, err := cli(t, nil, "serve", "--db", db, "backup", dest)
		if err != nil || !strings.HasPrefix(out, "backed up to "+dest) {
			t.Fatalf("serve backup: %v\n%s", err, out)
		}
		if out, _, err := cli(t, nil, "--db", dest, "papers", "blood pressure"); err != nil || !strings.Contains(out, "1. A — doi:10.1000/a") {
			t.Errorf("the copy: %v\n%s", err, out)
		}
	})
}
