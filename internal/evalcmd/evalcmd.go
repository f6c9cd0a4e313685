// Package evalcmd holds what papermem's evaluation and benchmark commands
// share: a Memory to measure, a CPU profile of the measurement, a
// deterministic sample of questions, a table of how much recall returned,
// the reading of their list and budget flags, and percentiles.
package evalcmd

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

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

// List splits a comma-separated flag value, leaving out blanks and the
// word "none", which stands for the empty list.
func List(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "none" {
			out = append(out, f)
		}
	}
	return out
}

// Budgets reads a comma-separated list of token budgets (List's rules).
func Budgets(s string) ([]int, error) {
	var out []int
	for _, b := range List(s) {
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a token budget", b)
		}
		out = append(out, n)
	}
	return out, nil
}

// Percentile returns the p-th percentile of xs by the nearest rank (the
// value at index len·p/100 of xs sorted, the last at most), leaving xs
// as it is; the zero value for none.
func Percentile[T cmp.Ordered](xs []T, p int) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Sorted(slices.Values(xs))
	return s[min(len(s)-1, len(s)*p/100)]
}

// FillSuffix marks a label (or mode) of an evaluation command's list that
// asks recall for the whole budget (RecallRequest.Fill): "Claim:fill"
// measures the fixed-budget curve beside "Claim", which stops when the
// evidence is in.
const FillSuffix = ":fill"

// Label splits a label of a command's list into the label and whether it
// asks for the whole budget (FillSuffix).
func Label(s string) (label string, fill bool) { return strings.CutSuffix(s, FillSuffix) }
