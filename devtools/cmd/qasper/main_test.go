package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/internal/locomo"
	"github.com/papermem/papermem/internal/qasper"
	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/testenv"
)

// tiny holds two papers: the first (even, held out) answers its question
// in one paragraph; the second's annotator marked only a heading.
const tiny = `{
 "2001.00001": {"title": "Election tweets", "abstract": "We study what people tweet before elections.",
  "full_text": [
   {"section_name": "Introduction", "paragraphs": ["Elections draw many tweets, and little is known about them."]},
   {"section_name": "Data ::: Collection", "paragraphs": ["We collected a corpus of ten thousand tweets about elections. Each tweet was labelled by two annotators."]}],
  "figures_and_tables": [],
  "qas": [{"question": "Which corpus of tweets do they use?", "question_id": "a1", "answers": [
   {"answer": {"unanswerable": false,
    "evidence": ["We collected a corpus of ten thousand tweets about elections. Each tweet was labelled by two annotators."],
    "highlighted_evidence": ["We collected a corpus of ten thousand tweets about elections."]}}]}]},
 "2001.00002": {"title": "Parsing poems", "abstract": "We parse poems with a grammar.",
  "full_text": [
   {"section_name": "Data", "paragraphs": ["The poems come from a public anthology of sonnets."]}],
  "figures_and_tables": [],
  "qas": [{"question": "Where do the poems come from?", "question_id": "b1", "answers": [
   {"answer": {"unanswerable": false, "evidence": ["Data"], "highlighted_evidence": []}}]}]}
}`

func writeTiny(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(tiny))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, qasper.File), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tables returns the rows of each printed table by "label half": the
// para and strict shares and the mean tokens.
func tables(out string) []map[string][]string {
	var ts []map[string][]string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| retrieval") {
			ts = append(ts, map[string][]string{})
			continue
		}
		f := strings.Split(strings.Trim(line, "| "), "|")
		if len(ts) == 0 || len(f) < 3 || strings.HasPrefix(line, "| -") {
			continue
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		ts[len(ts)-1][f[0]+" "+f[1]] = f[2:]
	}
	return ts
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"-data", writeTiny(t), "-labels", "Passage,Any", "-budgets", "1000", "-v",
		"-locomo", "../../../internal/evalcmd/testdata/locomo.json", "-scifact", "../scifact/testdata/scifact"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"2 papers, 2 with counted questions; 2 of their 2 questions counted (odd/tune 1, even/held 1)",
		"1 counted questions have a section heading among the evidence of every annotator",
		"per paper: each paper alone in its workspace", "workspace-wide, unscoped", "workspace-wide, scoped to the paper (dois)",
		"miss [per paper", `annotator 1 - "Data" (a heading)`,
		"off-topic recall at 2000 tokens, each paper alone in its workspace",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// Neither paper says anything of the other data sets' questions: they
	// get no span; its own questions get some.
	for _, row := range []string{`Recall Claim +off-topic: LoCoMo +4 +0 +0\.000 .* 1\.000 +0\.0 spans`, `Recall Any +off-topic: SciFact +4 +0 +0\.000 .* 1\.000 +0\.0 spans`,
		`Recall Claim +in-topic +2 +[1-9]`} {
		if !regexp.MustCompile(row).MatchString(got) {
			t.Errorf("output lacks a row like %q:\n%s", row, got)
		}
	}
	ts := tables(got)
	if len(ts) != 3 {
		t.Fatalf("%d tables, want 3:\n%s", len(ts), got)
	}
	// The whole paper fits in 1,000 tokens: the first paper's question is
	// answered, the second's, whose evidence is a heading, never is.
	for i, tab := range ts {
		for _, row := range []string{"floor", "Passage", "Any"} {
			for half, want := range map[string][]string{"all": {"0.500", "0.500"}, "odd/tune": {"0.000", "0.000"}, "even/held": {"1.000", "1.000"}} {
				r := tab[row+" "+half]
				if len(r) != 3 {
					t.Fatalf("table %d, %s %s: %q", i, row, half, r)
				}
				if diff := cmp.Diff(want, r[:2]); diff != "" {
					t.Errorf("table %d, %s %s (-want +got):\n%s", i, row, half, diff)
				}
			}
		}
	}
}

func TestRunShared(t *testing.T) {
	dir := filepath.Join("..", "..", "..", qasper.DefaultDir)
	if _, err := os.Stat(filepath.Join(dir, qasper.File)); err != nil {
		testenv.Need(t, "the shared QASPER data", err)
	}
	var out bytes.Buffer
	args := []string{"-data", dir, "-papers", "2", "-locomo", filepath.Join("..", "..", "..", locomo.DefaultFile), "-scifact", filepath.Join("..", "..", "..", scifact.DefaultDir)}
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "2 papers, 2 with counted questions") || !strings.Contains(got, "ingested 2 papers") {
		t.Errorf("output:\n%s", got)
	}
	ts := tables(got)
	if len(ts) != 3 {
		t.Fatalf("%d tables, want 3:\n%s", len(ts), got)
	}
	for _, tab := range ts {
		for _, row := range []string{"floor", "Claim", "Any", "Passage"} {
			// 3 budgets, para and strict, then 3 mean tokens.
			if r := tab[row+" all"]; len(r) != 9 {
				t.Errorf("%s: %q", row, r)
			}
		}
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{"-scope", "galaxy"}, {"-budgets", "0"}, {"-budgets", "x"}} {
		if err := run(context.Background(), append(args, "-data", writeTiny(t)), &bytes.Buffer{}); err == nil {
			t.Errorf("run %q succeeded", args)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-data", writeTiny(t), "-scope", "workspace", "-papers", "1", "-labels", "Passage"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "per paper:") || !strings.Contains(got, "1 papers, 1 with counted questions") {
		t.Errorf("output:\n%s", got)
	}
}

func TestWorkspaceID(t *testing.T) {
	if id, err := workspaceID("1602.03483"); err != nil || id != "qasper-1602-03483" {
		t.Errorf("workspaceID = %q, %v", id, err)
	}
	if _, err := workspaceID(strings.Repeat("9", 80)); err == nil {
		t.Error("an over-long id passed")
	}
}
