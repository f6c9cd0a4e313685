package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunWritesDOT builds the demo workspace twice over the same database
// and checks the DOT file: the hand-computed related edges and their
// weights, and the stub drawn dashed.
func TestRunWritesDOT(t *testing.T) {
	t.Setenv("PATH", "") // no dot: DOT only
	dir := t.TempDir()
	db, out := filepath.Join(dir, "g.db"), filepath.Join(dir, "g")
	for i, wantLog := range []string{"7 related edges (7 new)", "7 related edges (0 new)"} {
		var log bytes.Buffer
		if err := run(context.Background(), []string{"-db", db, "-out", out}, &log); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), wantLog) {
			t.Errorf("run %d logged %q, want %q", i+1, log.String(), wantLog)
		}
	}
	b, err := os.ReadFile(out + ".dot")
	if err != nil {
		t.Fatal(err)
	}
	related := regexp.MustCompile(`"session:([^"]+)" -> "session:([^"]+)" \[.*label="([0-9.]+)"`)
	var got []string
	for _, m := range related.FindAllStringSubmatch(string(b), -1) {
		pair := []string{m[1], m[2]}
		slices.Sort(pair)
		got = append(got, pair[0]+" "+pair[1]+" "+m[3])
	}
	slices.Sort(got)
	// Paper sets: lit-review {s1,s2,s3}, replication {s1,s2}, nap {s1,s3,
	// preprint}, caffeine-sleep-loss {c1,s1}, caffeine-review {c1,c2},
	// fracture {v1}.
	want := []string{
		"caffeine-review caffeine-sleep-loss 0.33",
		"caffeine-sleep-loss lit-review-sleep 0.25",
		"caffeine-sleep-loss nap-study-design 0.25",
		"caffeine-sleep-loss replication-replay 0.33",
		"lit-review-sleep nap-study-design 0.50",
		"lit-review-sleep replication-replay 0.67",
		"nap-study-design replication-replay 0.25",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("related edges in the DOT (-want +got):\n%s", diff)
	}
	if !regexp.MustCompile(`"paper:10.9999/unread.preprint" \[shape=box, style="rounded,dashed"`).Match(b) {
		t.Errorf("the stub paper is not dashed:\n%s", b)
	}
}
