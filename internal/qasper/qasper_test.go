package qasper

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tiny is a hand-made data file of two papers, in the data's format.
const tiny = `{
 "2001.00002": {"title": "Second", "abstract": "Short.", "full_text": [], "figures_and_tables": [], "qas": []},
 "2001.00001": {
  "title": "A  tiny\npaper",
  "abstract": "We study   tiny corpora. Results hold.",
  "full_text": [
   {"section_name": "Introduction", "paragraphs": ["Tiny corpora are\nrare.", "", "Second paragraph."]},
   {"section_name": "Data ::: Collection ::: Sources", "paragraphs": ["We took tweets."]},
   {"section_name": "Data ::: Cleaning", "paragraphs": ["We removed spam."]},
   {"section_name": "Data", "paragraphs": ["Both steps took a week."]},
   {"section_name": " ::: ", "paragraphs": ["Orphan."]}
  ],
  "figures_and_tables": [{"caption": "Table 1", "file": "t1.png"}],
  "qas": [
   {"question": "Where do the tweets come from?", "question_id": "q1", "answers": [
    {"answer": {"unanswerable": true, "evidence": ["We took tweets."], "highlighted_evidence": []}},
    {"answer": {"unanswerable": false, "evidence": ["FLOAT SELECTED: Table 1"], "highlighted_evidence": []}},
    {"answer": {"unanswerable": false, "evidence": ["FLOAT SELECTED: Table 1", "We took tweets."],
     "highlighted_evidence": ["FLOAT SELECTED: Table 1", "We took tweets."]}}]},
   {"question": "Only tables?", "question_id": "q2", "answers": [
    {"answer": {"unanswerable": false, "evidence": ["FLOAT SELECTED: Table 2"], "highlighted_evidence": []}}]},
   {"question": "Unanswerable?", "question_id": "q3", "answers": [
    {"answer": {"unanswerable": true, "evidence": [], "highlighted_evidence": []}}]}
  ]}
}`

func load(t *testing.T) []Paper {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(tiny))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ps, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestLoad(t *testing.T) {
	ps := load(t)
	if len(ps) != 2 || ps[0].ID != "2001.00001" || ps[1].ID != "2001.00002" {
		t.Fatalf("papers not sorted by id: %+v", ps)
	}
	if got := ps[0].DOI(); got != "10.48550/arXiv.2001.00001" {
		t.Errorf("DOI = %q", got)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty directory succeeded")
	}
}

func TestMarkdown(t *testing.T) {
	p := load(t)[0]
	want := `# A tiny paper

## Abstract

We study tiny corpora. Results hold.

## Introduction

Tiny corpora are rare.

Second paragraph.

## Data

### Collection

#### Sources

We took tweets.

### Cleaning

We removed spam.

## Data

Both steps took a week.

Orphan.

`
	if diff := cmp.Diff(want, p.Markdown()); diff != "" {
		t.Errorf("Markdown (-want +got):\n%s", diff)
	}
	deep := Paper{Title: "T", Sections: []Section{{Name: "A ::: B ::: C ::: D ::: E ::: F", Paragraphs: []string{"x"}}}}
	if got := deep.Markdown(); got != "# T\n\n## Abstract\n\n## A\n\n### B\n\n#### C\n\n##### D\n\n###### E\n\n###### F\n\nx\n\n" {
		t.Errorf("deep Markdown = %q", got)
	}
}

func TestSentences(t *testing.T) {
	got := load(t)[0].Sentences()
	want := []Sentence{
		{"Abstract", "We study tiny corpora."}, {"Abstract", "Results hold."},
		{"Introduction", "Tiny corpora are rare."}, {"Introduction", "Second paragraph."},
		{"Data ::: Collection ::: Sources", "We took tweets."},
		{"Data ::: Cleaning", "We removed spam."},
		{"Data", "Both steps took a week."},
		{" ::: ", "Orphan."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sentences (-want +got):\n%s", diff)
	}
}

func TestQuestions(t *testing.T) {
	p := load(t)[0]
	want := []Question{{ID: "q1", Text: "Where do the tweets come from?", Annotators: []Annotation{
		{Evidence: []string{"We took tweets."}, Highlighted: []string{"We took tweets."}}}}}
	if diff := cmp.Diff(want, p.Questions()); diff != "" {
		t.Errorf("Questions (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		s    string
		want bool
	}{{"Data", true}, {"Collection", true}, {"Data ::: Cleaning", true}, {"We took tweets.", false}} {
		if got := p.IsHeading(c.s); got != c.want {
			t.Errorf("IsHeading(%q) = %v", c.s, got)
		}
	}
}

func TestFloor(t *testing.T) {
	ps := load(t)
	var f Floor
	for i := range ps {
		f.Add(&ps[i])
	}
	if f.Len() != 9 {
		t.Fatalf("%d rows, want 9", f.Len())
	}
	// "tweets" is in one sentence; "data" in the section names of three,
	// where it counts twice; "short" only in the other paper.
	rows, tokens := f.Pack("Which data has tweets, short?", 100, "")
	var got []string
	for _, r := range rows {
		got = append(got, r.Paper+" "+r.Text)
	}
	want := []string{
		"2001.00001 We took tweets.", "2001.00002 Short.",
		"2001.00001 We removed spam.", "2001.00001 Both steps took a week.",
	}
	if diff := cmp.Diff(want, got); diff != "" || tokens != 4+2+4+6 {
		t.Errorf("Pack (-want +got):\n%s\n%d tokens", diff, tokens)
	}
	// The budget stops packing at the first sentence that does not fit.
	if rows, tokens := f.Pack("Which data has tweets, short?", 9, ""); len(rows) != 2 || tokens != 6 {
		t.Errorf("Pack at 9 tokens: %v, %d tokens", rows, tokens)
	}
	if rows, _ := f.Pack("Which data has tweets, short?", 100, "2001.00002"); len(rows) != 1 || rows[0].Text != "Short." {
		t.Errorf("Pack of one paper: %v", rows)
	}
}
