package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/locomo"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	args := []string{"-data", "testdata/tiny.json", "-budgets", "40,4000", "-scifact", "testdata/scifact", "-offtopic-claims", "2"}
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"1 conversations, 5 turns stored",
		"3 questions (categories 1-4), 1 skipped",
		"full recall latency over 6 calls",
		"off-topic recall at 2000 tokens: 2 SciFact claims asked of each of 1 users; in-topic: their 3 questions (categories 1-4)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// Each row: mode, budget, the four categories, overall, mean tokens;
	// an off-topic row: RecallUser full, questions, n, mean tokens, of
	// budget, median, max, none returned, mean returned and its unit.
	rows := map[string][]string{}
	for _, line := range strings.Split(got, "\n") {
		switch f := strings.Fields(line); {
		case len(f) == 8:
			rows[f[0]+" "+f[1]] = f[2:7]
		case len(f) == 11 && f[0] == "RecallUser":
			rows[f[2]] = f[3:]
		}
	}
	if r := rows["off-topic"]; len(r) != 8 || r[0] != "2" || r[7] != "spans" {
		t.Errorf("off-topic row %q", r)
	}
	// Every turn fits in 2,000 tokens: each question gets some.
	if r := rows["in-topic"]; len(r) != 8 || r[0] != "3" || r[5] != "0.000" {
		t.Errorf("in-topic row %q", r)
	}
	// At 4,000 tokens every turn fits: all three questions are covered in
	// every mode (bm25 and vector fill the budget, whatever their spans
	// score; full recall stops once the evidence is in); a category
	// without questions scores 0. At 40 tokens no mode recalls both
	// evidence turns of the category 1 question.
	for _, mode := range []string{"bm25", "vector", "full"} {
		want := []string{"1.000", "1.000", "0.000", "1.000", "1.000"}
		if diff := cmp.Diff(want, rows[mode+" 4000"]); diff != "" {
			t.Errorf("%s at 4000 (-want +got):\n%s", mode, diff)
		}
		if r := rows[mode+" 40"]; len(r) != 5 || r[0] != "0.000" {
			t.Errorf("%s at 40: %q", mode, r)
		}
	}
}

func TestRunConversations(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-data", "testdata/tiny.json", "-conversations", "0", "-retrieval", "full", "-offtopic=false"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "1 conversations, 5 turns stored") || strings.Contains(got, "bm25") || strings.Contains(got, "off-topic") {
		t.Errorf("output:\n%s", got)
	}
}

// TestStoreConversation checks what each turn is stored as, with and
// without the speaker's name, by recalling it.
func TestStoreConversation(t *testing.T) {
	ctx := context.Background()
	convs, err := locomo.Load("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	m, done, err := evalcmd.OpenMemory(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	w := m.Workspace("locomo-test")
	for _, c := range []struct {
		user string
		as   locomo.StoreAs
		want string
	}{
		{"named", locomo.StoreAs{Speakers: true}, "Ada: Four hours and ten minutes. Look at my medal! [shared a photo of a gold medal on a table]"},
		{"unnamed", locomo.StoreAs{Prefix: "x/", SessionOffset: 1000}, "Four hours and ten minutes. Look at my medal! [shared a photo of a gold medal on a table]"},
	} {
		texts, err := locomo.Store(ctx, w, c.user, convs[0].Conversation, c.as)
		if err != nil {
			t.Fatal(err)
		}
		if texts["D1:3"] != c.want {
			t.Errorf("%s: D1:3 stored as %q, want %q", c.user, texts["D1:3"], c.want)
		}
		res, err := w.RecallUser(ctx, c.user, papermem.UserRecallRequest{Question: "How long did the marathon take?"})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.Spans, func(s papermem.Span) bool { return s.Provenance.Key == c.as.Prefix+"D1:3" })
		if i < 0 || res.Spans[i].Text != c.want {
			t.Errorf("%s: recalled %+v, want key %sD1:3 with text %q", c.user, res.Spans, c.as.Prefix, c.want)
			continue
		}
		if got := res.Spans[i].Provenance.Metadata["session"]; got != float64(1+c.as.SessionOffset) {
			t.Errorf("%s: session %v, want %d", c.user, got, 1+c.as.SessionOffset)
		}
	}
}

func TestRunErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"missing file": {"-data", "testdata/none.json"},
		"bad budget":   {"-data", "testdata/tiny.json", "-budgets", "10,x"},
		"zero budget":  {"-data", "testdata/tiny.json", "-budgets", "0"},
		"no such conv": {"-data", "testdata/tiny.json", "-conversations", "1"},
		"bad conv":     {"-data", "testdata/tiny.json", "-conversations", "a"},
	} {
		if err := run(context.Background(), args, new(bytes.Buffer)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	for name, c := range map[string]struct {
		args []string
		flag string
	}{
		"no scifact":  {[]string{"-scifact", "testdata/none"}, "-scifact"},
		"zero budget": {[]string{"-offtopic-budget", "0"}, "-offtopic-budget"},
		"zero claims": {[]string{"-offtopic-claims", "0"}, "-offtopic-claims"},
	} {
		args := append([]string{"-data", "testdata/tiny.json", "-scifact", "testdata/scifact"}, c.args...)
		err := run(context.Background(), args, new(bytes.Buffer))
		if err == nil || !strings.HasPrefix(err.Error(), c.flag+":") {
			t.Errorf("%s: error %v, want one naming %s", name, err, c.flag)
		}
	}
}
