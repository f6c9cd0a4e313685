// Package testutil holds helpers shared by papermem's tests.
package testutil

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem"
)

// Open opens a Memory over a fresh database file in a temporary directory
// (with the offline embedder unless opts says otherwise) and closes it when
// the test ends.
func Open(tb testing.TB, opts *papermem.Options) *papermem.Memory {
	tb.Helper()
	m, err := papermem.Open(context.Background(), filepath.Join(tb.TempDir(), "papermem.db"), opts)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}
