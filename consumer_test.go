package papermem_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// consumerMain is the program of TestConsumerModule: what a user of the
// library writes first. It also reports whether its SQLite has FTS5, which
// it must not need.
const consumerMain = `package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"

	"github.com/papermem/papermem"
)

func main() {
	ctx := context.Background()
	m, err := papermem.Open(ctx, os.Args[1], nil)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	if _, _, err := m.StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/vitd", Title: "Vitamin D and fractures",
		Text: "Vitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98)."}); err != nil {
		log.Fatal(err)
	}
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D prevent fractures?"})
	if err != nil || len(res.Spans) == 0 {
		log.Fatalf("recall: %+v, %v", res, err)
	}
	fmt.Println("recalled", res.Spans[0].Provenance.DOI)

	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	var fts5 bool
	if err := db.QueryRow("SELECT sqlite_compileoption_used('ENABLE_FTS5')").Scan(&fts5); err != nil {
		log.Fatal(err)
	}
	fmt.Println("fts5 compiled in:", fts5)
}
`

// TestConsumerModule builds the library as its users do: a fresh module
// outside this repository (go mod init, a replace directive to this
// checkout, go mod tidy) whose main opens a Memory, stores a paper and
// recalls it, run with a plain `go run .`, no build tag. Skipped under
// -short: it builds a program.
func TestConsumerModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a separate module")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gobin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if flags := goCmd("env", "GOFLAGS"); strings.Contains(flags, "-tags") {
		t.Skipf("GOFLAGS sets build tags (%s); this test checks a build without them", strings.TrimSpace(flags))
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(consumerMain), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd("mod", "init", "example.com/app")
	goCmd("mod", "edit", "-require=github.com/papermem/papermem@v0.0.0", "-replace=github.com/papermem/papermem="+checkout)
	goCmd("mod", "tidy")
	out := goCmd("run", ".", filepath.Join(dir, "app.db"))
	if !strings.Contains(out, "recalled 10.1000/vitd\n") || !strings.Contains(out, "fts5 compiled in: false\n") {
		t.Errorf("go run . printed:\n%s", out)
	}
}
