package evalcmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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

	path := filepath.Join(t.TempDir(), "kept.db")
	_, done, err = OpenMemory(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	done()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("a given database file must be kept: %v", err)
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
