package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testenv"
)

// repoRoot is the repository's root seen from this package's directory,
// where go test runs its tests; the tour names its sample file from there.
const repoRoot = "../.."

// readTour returns the shell code of README.md's "A 30-second tour": the
// first sh block of that section.
func readTour(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## A 30-second tour\n")
	if !ok {
		t.Fatal(`README.md has no section "## A 30-second tour"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, code, ok := strings.Cut(section, "\n```sh\n")
	if !ok {
		t.Fatal("README.md's tour has no sh code block")
	}
	code, _, ok = strings.Cut(code, "\n```\n")
	if !ok {
		t.Fatal("README.md's tour: the sh code block is not closed")
	}
	return code
}

// TestTour runs README.md's 30-second tour as written, with bash, curl and
// jq, against a server on a fresh database, twice: the second run finds
// Ada's address taken and logs in, then stores, ingests and recalls again.
// bash runs it with -e -u -o pipefail, so a step that fails ends the run.
func TestTour(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Need(t, tool+" (for README.md's tour)", err)
		}
	}
	if out, err := exec.Command("curl", "--fail-with-body", "--version").CombinedOutput(); err != nil {
		testenv.Need(t, "curl 7.76 or later (for --fail-with-body in README.md's tour)", fmt.Errorf("%v: %s", err, out))
	}
	tour := readTour(t)
	base, stop := start(t, []string{"-addr", "127.0.0.1:0", "-db", testdb.Path(t)}, nil)
	defer stop()

	for run := 1; run <= 2; run++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-u", "-o", "pipefail", "-c", tour)
		cmd.Dir = repoRoot
		// The server is on the test's port; a proxy set for the developer's
		// machine must not stand between curl and it.
		cmd.Env = append(os.Environ(), "PAPERMEM_URL="+base, "no_proxy=*", "NO_PROXY=*")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("run %d: %v\nstdout:\n%s\nstderr:\n%s", run, err, stdout.String(), stderr.String())
		}
		checkTourOutput(t, run, stdout.String())
	}
}

// checkTourOutput checks what each call of the tour printed, in order.
func checkTourOutput(t *testing.T, run int, out string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	step := func(name string, v any) {
		t.Helper()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("run %d, %s: %v\noutput:\n%s", run, name, err, out)
		}
	}
	type span struct {
		Text       string `json:"text"`
		Provenance struct {
			DOI string `json:"doi"`
		} `json:"provenance"`
	}
	type recall struct {
		Spans       []span `json:"spans"`
		TotalTokens int    `json:"total_tokens"`
	}
	const storedDOI, fileDOI = "10.1000/vitd", "10.5555/papermem.tour.2024"

	var paper struct {
		DOI string `json:"doi"`
	}
	step("store a paper", &paper)
	if paper.DOI != storedDOI {
		t.Errorf("run %d: stored paper %+v, want DOI %s", run, paper, storedDOI)
	}

	var ingested struct {
		DocID       string `json:"doc_id"`
		Format      string `json:"format"`
		ClaimsFound int    `json:"claims_found"`
	}
	step("ingest a file", &ingested)
	if ingested.DocID != fileDOI || ingested.Format != "pdf" || ingested.ClaimsFound == 0 {
		t.Errorf("run %d: ingested %+v, want the PDF under %s with claims", run, ingested, fileDOI)
	}

	var claims recall
	step("recall", &claims)
	fromDOI := map[string]int{}
	for _, s := range claims.Spans {
		fromDOI[s.Provenance.DOI]++
	}
	if fromDOI[storedDOI] == 0 || fromDOI[fileDOI] == 0 || claims.TotalTokens > 500 {
		t.Errorf("run %d: recall %+v, want spans from %s and %s within 500 tokens", run, claims, storedDOI, fileDOI)
	}

	var ranked []struct {
		DOI string `json:"doi"`
	}
	step("rank papers", &ranked)
	if len(ranked) != 2 {
		t.Errorf("run %d: ranked papers %+v, want the two of the tour", run, ranked)
	}

	var remembered struct {
		Key string `json:"key"`
	}
	step("remember", &remembered)
	if remembered.Key != "style" {
		t.Errorf("run %d: remembered %+v, want key style", run, remembered)
	}

	var notes recall
	step("recall notes", &notes)
	if len(notes.Spans) != 1 || !strings.Contains(notes.Spans[0].Text, "effect sizes") {
		t.Errorf("run %d: user recall %+v, want Ada's one note", run, notes)
	}

	var key struct {
		Key string `json:"key"`
	}
	step("create an API key", &key)
	if !strings.HasPrefix(key.Key, "pm_") {
		t.Errorf("run %d: API key %+v, want a pm_ key", run, key)
	}

	var paths []string
	step("list the API's paths", &paths)
	if !slices.Contains(paths, "/v1/recall") {
		t.Errorf("run %d: OpenAPI paths %q lack /v1/recall", run, paths)
	}
	if dec.More() {
		t.Errorf("run %d: the tour printed more than its eight answers:\n%s", run, out)
	}
}
