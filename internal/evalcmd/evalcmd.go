// Package evalcmd holds what papermem's evaluation and benchmark commands
// share: a Memory to measure, a CPU profile of the measurement, a
// deterministic sample of questions and a table of how much recall returned.
package evalcmd

import (
	"context"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/papermem/papermem"
)

// OpenMemory opens a Memory over path or, when path is "", over a fresh
// file in a temporary directory. done closes the Memory and removes the
// temporary directory.
func OpenMemory(ctx context.Context, path string) (m *papermem.Memory, done func(), err error) {
	dir := ""
	if path == "" {
		if dir, err = os.MkdirTemp("", "papermem-eval"); err != nil {
			return nil, nil, err
		}
		path = filepath.Join(dir, "papermem.db")
	}
	m, err = papermem.Open(ctx, path, nil)
	if err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return nil, nil, err
	}
	return m, func() {
		m.Close()
		if dir != "" {
			os.RemoveAll(dir)
		}
	}, nil
}

// StartCPUProfile writes a CPU profile to path until stop is called; with
// path "" it does nothing.
func StartCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
