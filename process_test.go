package papermem_test

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// childWriterEnv makes the test binary a writer process for
// TestTwoProcesses instead of running tests.
const childWriterEnv = "PAPERMEM_TEST_CHILD_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childWriterEnv); spec != "" {
		var path, prefix string
		var n int
		if _, err := fmt.Sscanf(spec, "%s %s %d", &path, &prefix, &n); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		if err := writePapers(path, prefix, n); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func writePapers(path, prefix string, n int) error {
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	for i := range n {
		in := vitaminD
		in.DOI = fmt.Sprintf("10.1000/%s.%d", prefix, i)
		if _, _, err := m.StorePaper(ctx, in); err != nil {
			return err
		}
	}
	return nil
}

// TestTwoProcesses writes to one database file from two processes at once
// and checks that nothing is lost or corrupted, and that each process's
// recall sees the other's writes.
func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	path := testdb.Path(t)
	const n = 40
	// Create the schema first so both writers start from a migrated file.
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	var wg sync.WaitGroup
	var childErr error
	var out []byte
	wg.Add(1)
	go func() {
		defer wg.Done()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s child %d", childWriterEnv, path, n))
		out, childErr = cmd.CombinedOutput()
	}()
	for i := range n {
		in := vitaminD
		in.DOI = fmt.Sprintf("10.1000/parent.%d", i)
		if _, _, err := m.StorePaper(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if childErr != nil {
		t.Fatalf("child writer: %v\n%s", childErr, out)
	}

	for _, prefix := range []string{"parent", "child"} {
		for i := range n {
			if ok, err := m.PaperExists(ctx, fmt.Sprintf("10.1000/%s.%d", prefix, i)); err != nil || !ok {
				t.Fatalf("paper %s.%d missing: %v", prefix, i, err)
			}
		}
	}
	// The child's papers are found by vector search in this process too.
	res, err := m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "vitamin D fracture risk", Limit: 100, Retrieval: papermem.RetrievalVector})
	if err != nil || len(res) != 2*n {
		t.Fatalf("vector paper recall found %d papers, want %d (%v)", len(res), 2*n, err)
	}
	if !testdb.Postgres() { // SQLite's check of its file
		testutil.OpenChecked(t, path)
	}
}
