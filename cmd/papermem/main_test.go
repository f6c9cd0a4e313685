package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

const testdocs = "../../../shared/testdocs"

// cli runs the command line and returns its stdout, stderr and error.
func cli(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestIngestThenRecall ingests the shared test documents into a database
// file, then recalls from it, as a person at a terminal would.
func TestIngestThenRecall(t *testing.T) {
	db := testdb.Path(t)
	out, progress, err := cli(t, nil, "--db", db, "ingest", testdocs)
	if err == nil || !strings.Contains(err.Error(), "files failed") {
		t.Fatalf("ingest with malformed files: err = %v, want files failed", err)
	}
	malformed, _ := filepath.Glob(filepath.Join(testdocs, "malformed", "*"))
	var all []string
	filepath.WalkDir(testdocs, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			all = append(all, p)
		}
		return nil
	})
	if len(malformed) < 5 || len(all) < 20 {
		t.Fatalf("test documents missing: %d malformed of %d", len(malformed), len(all))
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			rows[f[0]] = f[1]
		}
	}
	stored := 0
	for _, p := range all {
		want := "stored"
		if strings.Contains(p, "/malformed/") {
			want = "failed"
		}
		if rows[p] != want {
			t.Errorf("%s: %q in the summary, want %s", p, rows[p], want)
		}
		if !strings.Contains(progress, p) {
			t.Errorf("no progress line for %s", p)
		}
		if want == "stored" {
			stored++
		}
	}
	if want := fmt.Sprintf("%d stored, %d failed, 0 skipped", stored, len(malformed)); !strings.Contains(out, want) {
		t.Errorf("summary totals wrong:\n%s", out)
	}
	if !regexp.MustCompile(`\[1/\d+\] (stored|failed) `).MatchString(progress) {
		t.Errorf("progress is not one plain line a file:\n%s", progress)
	}

	// The database holds the documents: the library itself finds them.
	m, err := papermem.Open(context.Background(), db, &papermem.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	w := m.Workspace(papermem.DefaultWorkspace)
	docs, err := w.Documents(context.Background(), papermem.MaxPaperLimit)
	if err != nil {
		t.Fatal(err)
	}
	papers, err := w.Papers(context.Background(), papermem.MaxPaperLimit)
	m.Close()
	if err != nil || len(docs)+len(papers) != stored {
		t.Fatalf("%d documents and %d papers, %v; want %d documents and papers", len(docs), len(papers), err, stored)
	}

	out, _, err = cli(t, nil, "--db", db, "recall", "Stanley Cup winners", "--label", "Any", "--budget", "400")
	if err != nil {
		t.Fatal(err)
	}
	cited := regexp.MustCompile(`(?m)^\[1\] .+\n    — .*stanley-cups.*\(score `)
	if !cited.MatchString(out) {
		t.Errorf("recall printed no cited span from the Stanley Cup files:\n%s", out)
	}

	out, _, err = cli(t, nil, "--db", db, "recall", "Stanley Cup winners", "--label", "Any", "--json")
	var res papermem.RecallResult
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Spans) == 0 {
		t.Errorf("recall --json: %v\n%s", err, out)
	}

	t.Run("ErrNoPath", func(t *testing.T) {
		if _, _, err := cli(t, nil, "--db", db, "ingest", filepath.Join(t.TempDir(), "missing")); err == nil {
			t.Error("ingest of a missing path succeeded")
		}
	})
	t.Run("SkipsUnsupported", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nAlpha waves rose during rest."), 0o600)
		os.WriteFile(filepath.Join(dir, "b.exe"), []byte("MZ"), 0o600)
		out, _, err := cli(t, nil, "--db", db, "ingest", dir)
		if err != nil || !strings.Contains(out, "unsupported format exe") || !strings.Contains(out, "1 stored, 0 failed, 1 skipped") {
			t.Errorf("err %v, summary:\n%s", err, out)
		}
	})
}

// TestRecallDOIs checks recall's --doi flag, repeated and comma-separated,
// on a database file: only those papers' spans; a malformed DOI fails.
func TestRecallDOIs(t *testing.T) {
	db := testdb.Path(t)
	m, err := papermem.Open(context.Background(), db, &papermem.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []papermem.PaperInput{
		{DOI: "10.1000/a", Title: "Vitamin D and fractures", Text: "Vitamin D supplementation lowered fracture risk in older adults by 20%."},
		{DOI: "10.1000/b", Title: "Calcium and fractures", Text: "Calcium lowered fracture risk in older adults by 10%."},
		{DOI: "10.1000/c", Title: "Vitamin D and fracture risk", Text: "Vitamin D lowered fracture risk by 30% in a large trial."},
	} {
		if _, _, err := m.StorePaper(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	m.Close()
	for _, flags := range [][]string{{"--doi", "10.1000/b"}, {"--doi", "10.1000/b", "--doi", "doi:10.1000/C"}, {"--doi", "10.1000/b,10.1000/c"}} {
		args := append([]string{"--db", db, "recall", "Does vitamin D lower fracture risk?", "--label", "Any", "--json", "--fill"}, flags...)
		out, _, err := cli(t, nil, args...)
		var res papermem.RecallResult
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Spans) == 0 {
			t.Fatalf("%v: %v\n%s", flags, err, out)
		}
		dois := map[string]bool{}
		for _, s := range res.Spans {
			dois[s.Provenance.DOI] = true
		}
		if want := len(flags) > 2 || strings.Contains(flags[1], ","); dois["10.1000/a"] || !dois["10.1000/b"] || dois["10.1000/c"] != want {
			t.Errorf("%v: spans of %v", flags, dois)
		}
	}
	if _, _, err := cli(t, nil, "--db", db, "recall", "q", "--doi", "not-a-doi"); err == nil || !strings.Contains(err.Error(), "not a DOI") {
		t.Errorf("recall --doi not-a-doi: %v, want not a DOI", err)
	}
}

// TestRemote runs the commands against a running server with --url and
// an API key.
func TestRemote(t *testing.T) {
	ctx := context.Background()
	svc := testutil.OpenHosted(t, nil, nil)
	m := svc.Memory()
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	tok, err := client.New(srv.URL, nil).Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse", WorkspaceID: "lab-ada"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := client.New(srv.URL, &client.Options{Token: tok.AccessToken}).CreateAPIKey(ctx, api.CreateKeyRequest{Name: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PAPERMEM_URL": srv.URL, "PAPERMEM_KEY": key.Key}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "vitd.md"), []byte("# Vitamin D trial\n\nVitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98)."), 0o600)

	if out, _, err := cli(t, env, "ingest", dir, "--domain", "medicine"); err != nil || !strings.Contains(out, "1 stored, 0 failed, 0 skipped") {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	out, _, err := cli(t, env, "recall", "Does vitamin D prevent fractures?", "--label", "Any")
	if err != nil || !regexp.MustCompile(`(?m)^\[1\] .*fracture.*\n    — Vitamin D trial, vitd\.md`).MatchString(out) {
		t.Errorf("recall: %v\n%s", err, out)
	}
	if _, _, err := cli(t, env, "remember", "Ada wants effect sizes."); err == nil || !strings.Contains(err.Error(), "pass --user") || strings.Contains(err.Error(), "X-User-Id") {
		t.Errorf("remember with a key and no --user: %v, want to pass --user", err)
	}
	if out, _, err := cli(t, env, "--user", tok.User.UserID, "remember", "Ada wants effect sizes.", "--key", "style"); err != nil || !strings.Contains(out, `"style"`) {
		t.Errorf("remember: %v\n%s", err, out)
	}
	if _, err := client.New(srv.URL, &client.Options{Token: tok.AccessToken}).ExportSession(ctx, api.ExportRequest{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if out, _, err := cli(t, env, "export", "--session", "s1"); err != nil || !strings.Contains(out, `"session_id":"s1"`) {
		t.Errorf("export: %v\n%s", err, out)
	}
	m.Workspace("lab-ada").StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/vitd", Title: "Vitamin D and fractures", Text: "Vitamin D did not reduce fractures."})
	if out, _, err := cli(t, env, "papers", "vitamin D"); err != nil || !strings.Contains(out, "1. Vitamin D and fractures — doi:10.1000/vitd") {
		t.Errorf("papers: %v\n%s", err, out)
	}
	// Scoped to the paper, recall leaves out the ingested file.
	if out, _, err := cli(t, env, "recall", "Does vitamin D prevent fractures?", "--label", "Any", "--doi", "10.1000/vitd"); err != nil ||
		!strings.Contains(out, "doi:10.1000/vitd") || strings.Contains(out, "vitd.md") {
		t.Errorf("recall --doi: %v\n%s", err, out)
	}
	if _, _, err := cli(t, map[string]string{"PAPERMEM_URL": srv.URL, "PAPERMEM_KEY": "pm_wrong"}, "recall", "q"); err == nil {
		t.Error("a wrong key recalled")
	}
}

// TestMCPStdio runs `papermem mcp` on a database file and on a running
// server, and drives it over its stdin and stdout with the SDK's client:
// ingest_file by path, recall citing the file, remember for the user.
func TestMCPStdio(t *testing.T) {
	ctx := context.Background()
	note := filepath.Join(t.TempDir(), "vitd.md")
	os.WriteFile(note, []byte("# Vitamin D trial\n\nVitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98)."), 0o600)

	t.Run("File", func(t *testing.T) {
		db := testdb.Path(t)
		driveMCP(t, []string{"--db", db, "--user", "ada", "mcp"}, note)
		m, err := papermem.Open(ctx, db, &papermem.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		wantMemory(t, m.Workspace(papermem.DefaultWorkspace), "ada")
	})
	t.Run("Server", func(t *testing.T) {
		s := newTestServer(t)
		driveMCP(t, []string{"--url", s.url, "--api-key", s.key, "--user", s.user, "mcp"}, note)
		wantMemory(t, s.m.Workspace(s.org), s.user)
	})
}

// driveMCP runs the command line args (an mcp command) and calls its tools
// over stdin and stdout until the client closes.
func driveMCP(t *testing.T, args []string, note string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		var stderr bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, inR, outW, &stderr)
		outW.Close()
		done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	call("ingest_file", map[string]any{"path": note})
	if txt := call("recall", map[string]any{"question": "Does vitamin D prevent fractures?", "label": "Any"}); !strings.Contains(txt, "— Vitamin D trial, vitd.md") {
		t.Errorf("recall over stdio cites nothing:\n%s", txt)
	}
	call("remember", map[string]any{"text": "Ada wants effect sizes.", "key": "style"})
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("mcp: %v", err)
	}
}

// wantMemory checks that user's memory "style" is in ws.
func wantMemory(t *testing.T, ws *papermem.Workspace, user string) {
	t.Helper()
	res, err := ws.RecallUser(context.Background(), user, papermem.UserRecallRequest{Question: "effect sizes"})
	if err != nil || len(res.Spans) != 1 || res.Spans[0].Provenance.Key != "style" {
		t.Errorf("the memories of user %s: %+v, %v", user, res, err)
	}
}

// TestProgressBar checks what the terminal's bar shows: files done, bytes
// and rate.
func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	files := []file{{path: "a.md", size: 3 << 20}, {path: "b.pdf", size: 1 << 20}}
	p := newProgress(&buf, files, true)
	p.done(0, files[0], outcome{status: stored})
	time.Sleep(150 * time.Millisecond) // past the bar's redraw throttle, so that it draws
	p.done(1, files[1], outcome{status: stored})
	out := buf.String()
	for _, want := range []string{"2/2 files", "/4.0 MiB", "MiB/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("the bar never showed %q:\n%q", want, out)
		}
	}
}

// TestRecallStopFlags checks recall's --fill and --min-tokens: more spans
// with either than without, and a minimum over the budget refused; and
// papers --fill: more papers than without.
func TestRecallStopFlags(t *testing.T) {
	db := testdb.Path(t)
	m, err := papermem.Open(context.Background(), db, &papermem.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []papermem.PaperInput{
		{DOI: "10.1000/nap", Title: "Afternoon naps and memory in older adults", Text: "A 30-minute afternoon nap improved episodic memory in adults over 65. Older adults who napped recalled 12% more words."},
		{DOI: "10.1000/dram", Title: "Refresh overhead in DRAM memory", Text: "Refreshing DRAM cells consumes up to 20% of memory bandwidth. Older DRAM modules need more frequent refresh to keep their memory intact."},
	} {
		if _, _, err := m.StorePaper(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	m.Close()
	spans := func(flags ...string) int {
		t.Helper()
		out, _, err := cli(t, nil, append([]string{"--db", db, "recall", "Do naps help memory in older adults?", "--json"}, flags...)...)
		var res papermem.RecallResult
		if err != nil || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("%v: %v\n%s", flags, err, out)
		}
		return len(res.Spans)
	}
	stop, fill, least := spans(), spans("--fill"), spans("--min-tokens", "200")
	if stop == 0 || fill <= stop || least <= stop {
		t.Errorf("spans: %d by default, %d with --fill, %d with --min-tokens 200; want more with either", stop, fill, least)
	}
	if _, _, err := cli(t, nil, "--db", db, "recall", "q", "--budget", "100", "--min-tokens", "200"); err == nil || !strings.Contains(err.Error(), "min_tokens") {
		t.Errorf("--min-tokens over the budget: %v", err)
	}
	papers := func(flags ...string) int {
		t.Helper()
		out, _, err := cli(t, nil, append([]string{"--db", db, "papers", "Do naps help memory in older adults?", "--json"}, flags...)...)
		var ps []papermem.Paper
		if err != nil || json.Unmarshal([]byte(out), &ps) != nil {
			t.Fatalf("papers %v: %v\n%s", flags, err, out)
		}
		return len(ps)
	}
	if stop, fill := papers(), papers("--fill"); stop == 0 || fill <= stop {
		t.Errorf("papers: %d by default, %d with --fill; want more with --fill", stop, fill)
	}
}
