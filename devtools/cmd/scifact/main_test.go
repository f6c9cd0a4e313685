package main

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNDCG(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	tests := []struct {
		ranked []string
		want   float64
	}{
		{[]string{"a", "b", "c"}, 1},
		{[]string{"c", "a", "b"}, (1/math.Log2(3) + 1/math.Log2(4)) / (1 + 1/math.Log2(3))},
		{[]string{"c", "d"}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := nDCG(tt.ranked, rel, 10); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("nDCG(%v) = %v, want %v", tt.ranked, got, tt.want)
		}
	}
	// Only the first k count.
	if got := nDCG([]string{"c", "a"}, map[string]int{"a": 1}, 1); got != 0 {
		t.Errorf("nDCG@1 = %v, want 0", got)
	}
}

func TestRecallAt(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}
	if got := recallAt([]string{"a", "x", "c"}, rel, 100); got != 0.5 {
		t.Errorf("recall = %v, want 0.5", got)
	}
	if got := recallAt([]string{"x", "a"}, rel, 1); got != 0 {
		t.Errorf("recall@1 = %v, want 0", got)
	}
}

// TestRun runs every measurement over a four-abstract corpus and checks
// that each prints its table.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	args := []string{"-data", "testdata/scifact", "-locomo", "../../../internal/evalcmd/testdata/locomo.json", "-budgets", "200", "-offtopic-questions", "3"}
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"stored 4 abstracts",
		"paper ranking, 3 judged claims",
		"evidence recall, 3 claims with rationales",
		"claim extractor",
		"off-topic recall at 2000 tokens: 3 LoCoMo questions (categories 1-4, spread over 2 conversations) asked of the 4 abstracts; in-topic: 3 SciFact claims",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// The off-topic table: recall, questions, n, mean tokens, of budget,
	// median, max, none returned, mean returned and its unit.
	rows := map[string][]string{}
	for _, line := range strings.Split(got[strings.Index(got, "off-topic recall"):], "\n") {
		f := strings.Fields(line)
		if i := slices.IndexFunc(f, func(s string) bool { return s == "off-topic" || s == "in-topic" }); i > 0 {
			rows[strings.Join(f[:i+1], " ")] = f[i+1:]
		}
	}
	for _, call := range []string{"Recall Claim", "Recall Any", "RecallPapers 20"} {
		for _, set := range []string{"off-topic", "in-topic"} {
			r := rows[call+" "+set]
			if len(r) != 8 || r[0] != "3" {
				t.Errorf("%s %s: row %q", call, set, r)
			}
		}
	}
	// Every claim finds its abstract's sentences and the papers.
	for _, row := range []string{"Recall Claim in-topic", "Recall Any in-topic", "RecallPapers 20 in-topic"} {
		if r := rows[row]; len(r) == 8 && r[5] != "0.000" {
			t.Errorf("%s: none returned %s, want 0.000", row, r[5])
		}
	}
	if r := rows["RecallPapers 20 off-topic"]; len(r) == 8 && (r[1] != "-" || r[7] != "papers") {
		t.Errorf("paper recall row %q: want no token figures and papers counted", r)
	}
}

func TestRunErrors(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		flag string
	}{
		"no locomo":      {[]string{"-locomo", "testdata/none.json"}, "-locomo"},
		"zero budget":    {[]string{"-offtopic-budget", "0"}, "-offtopic-budget"},
		"zero questions": {[]string{"-offtopic-questions", "0"}, "-offtopic-questions"},
	} {
		args := append([]string{"-data", "testdata/scifact", "-modes", "none", "-labels", "none"}, c.args...)
		err := run(context.Background(), args, new(bytes.Buffer))
		if err == nil || !strings.HasPrefix(err.Error(), c.flag+":") {
			t.Errorf("%s: error %v, want one naming %s", name, err, c.flag)
		}
	}
	// Without the measurement the LoCoMo file is not needed.
	args := []string{"-data", "testdata/scifact", "-modes", "none", "-labels", "none", "-offtopic=false", "-locomo", "testdata/none.json"}
	if err := run(context.Background(), args, new(bytes.Buffer)); err != nil {
		t.Errorf("-offtopic=false: %v", err)
	}
}
