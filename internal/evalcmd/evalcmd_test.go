package evalcmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
)

func TestOpenMemory(t *testing.T) {
	m, done, err := OpenMemory(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	done()

	path := testdb.Path(t)
	m, done, err = OpenMemory(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.StorePaper(context.Background(), papermem.PaperInput{DOI: "10.1/kept", Text: "Kept."}); err != nil {
		t.Fatal(err)
	}
	done()
	kept, err := papermem.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if ok, err := kept.PaperExists(context.Background(), "10.1/kept"); err != nil || !ok {
		t.Errorf("a given database must be kept: exists %v (%v)", ok, err)
	}
}

func TestStartCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err := StartCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("profile not written: %v", err)
	}
	stop, err = StartCPUProfile("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
}
