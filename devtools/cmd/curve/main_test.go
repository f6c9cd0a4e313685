package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/qasper"
)

// tinyQASPER is one paper whose question its second section answers.
const tinyQASPER = `{
 "2001.00001": {"title": "Election tweets", "abstract": "We study what people tweet before elections.",
  "full_text": [
   {"section_name": "Introduction", "paragraphs": ["Elections draw many tweets, and little is known about them."]},
   {"section_name": "Data", "paragraphs": ["We collected a corpus of ten thousand tweets about elections. Each tweet was labelled by two annotators."]}],
  "figures_and_tables": [],
  "qas": [{"question": "Which corpus of tweets do they use?", "question_id": "a1", "answers": [
   {"answer": {"unanswerable": false,
    "evidence": ["We collected a corpus of ten thousand tweets about elections. Each tweet was labelled by two annotators."],
    "highlighted_evidence": ["We collected a corpus of ten thousand tweets about elections."]}}]}]}
}`

// TestRun runs the three data sets on small files and reads each table:
// a row per half and budget, each way's share from 0 to 1 and its tokens
// within the budget; the stop never returns more than fill.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(tinyQASPER))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, qasper.File), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	svg := filepath.Join(dir, "curves.svg")
	err := run(context.Background(), []string{"-budgets", "100,2000", "-scifact", "../scifact/testdata/scifact",
		"-qasper", dir, "-locomo", "../locomo/testdata/tiny.json", "-svg", svg}, &out)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, svg)
	tables := 0
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| half") {
			tables++
			continue
		}
		f := strings.Split(strings.Trim(line, "| "), "|")
		if len(f) != 8 || strings.HasPrefix(line, "|---") {
			continue
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		if f[2] == "-" {
			continue // no question in this half
		}
		rows++
		budget, _ := strconv.Atoi(f[1])
		var tokens [3]float64
		for w := range 3 {
			share, err := strconv.ParseFloat(strings.Fields(f[2+2*w])[0], 64)
			if err != nil || share < 0 || share > 1 {
				t.Errorf("row %q: share %q", line, f[2+2*w])
			}
			if tokens[w], err = strconv.ParseFloat(f[3+2*w], 64); err != nil || tokens[w] > float64(budget) {
				t.Errorf("row %q: tokens %q over budget %d", line, f[3+2*w], budget)
			}
		}
		if tokens[stop] > tokens[fill] {
			t.Errorf("row %q: the stop returned more than fill", line)
		}
	}
	if tables != 3 || rows == 0 {
		t.Errorf("%d tables, %d rows:\n%s", tables, rows, out.String())
	}
	if err := run(context.Background(), []string{"-sets", "bogus"}, &out); err == nil {
		t.Error("an unknown data set was accepted")
	}
}

// checkPlot reads the SVG image run wrote: well-formed, a titled panel a
// data set, and the held-out QASPER paper's three lines.
func checkPlot(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName   xml.Name
		Texts     []string `xml:"text"`
		Polylines []struct {
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("not an SVG image (%v): %.200s", err, data)
	}
	for _, title := range []string{"SciFact", "QASPER (para)", "LoCoMo"} {
		if !slices.Contains(doc.Texts, title) {
			t.Errorf("no panel titled %q", title)
		}
	}
	if len(doc.Polylines) < 3 {
		t.Errorf("%d lines; want at least the QASPER paper's floor, fill and stop", len(doc.Polylines))
	}
	for _, l := range doc.Polylines {
		if n := len(strings.Fields(l.Points)); n != 2 {
			t.Errorf("a line of %d points (%q); want one a budget", n, l.Points)
		}
	}
}
