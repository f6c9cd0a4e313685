package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/testenv"
)

func TestMidStart(t *testing.T) {
	for s, want := range map[string]bool{
		"pus contains 16.4B tokens.": true, "bles for corpus-level results.": true, ", and then it fell.": true,
		"(which contained 1M papers)": true, "We introduce S2ORC.": false, "mRNA levels rose.": false,
		"p53 binds DNA.": false, "iPhone users sleep less.": false, "e.g. this one.": false, "“In Figure 3, we show.”": false,
		"12The data format is described": false, "": false,
	} {
		if got := midStart(s); got != want {
			t.Errorf("midStart(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestHyphenEnd(t *testing.T) {
	for s, want := range map[string]bool{
		"There is an opportunity to use these ta-": true, "a ta\u2010": true, "It ended.": false, "pages 12-": false,
		"Vancouver-, and Chicago- style": false, "-": false, "": false,
	} {
		if got := hyphenEnd(s); got != want {
			t.Errorf("hyphenEnd(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestUnterminated(t *testing.T) {
	for s, want := range map[string]bool{
		"full text full text snippets snippets": true, "we use majority voting to select": true, "Digital archives like arXiv,2": true,
		"It ended.": false, "It ended.”": false, "as in 2019.3": false, "The pipeline is:": false, "Why (really)?)": false,
		"the output†": true,
	} {
		if got := unterminated(s); got != want {
			t.Errorf("unterminated(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestRun measures the fixture PDFs with this build alone, and beside
// HEAD's build when git can export it.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-dir", "../../../testdata/extract", "-base", "", "-v"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"this tree", "sample.pdf", "start mid-sentence", "end on hyphen", "end unterminated", "\nall "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := exec.Command("git", "rev-parse", "HEAD").Run(); err != nil {
		testenv.Need(t, "a git checkout", err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"-dir", "../../../testdata/extract", "-base", "HEAD"}, &out, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "HEAD → this tree") || !strings.Contains(out.String(), " → ") {
		t.Errorf("no base column:\n%s", out.String())
	}
}

func TestRunErrors(t *testing.T) {
	var out bytes.Buffer
	// A PDF that cannot be read is reported in its row; the run goes on.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "bad.pdf"), []byte("%PDF-1.4 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-dir", bad, "-base", ""}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "bad.pdf  error: Cannot read bad.pdf") {
		t.Errorf("no error row:\n%s", out.String())
	}
	if err := run(context.Background(), []string{"-dir", t.TempDir()}, &out, &out); err == nil {
		t.Error("a folder without PDFs: no error")
	}
	if err := run(context.Background(), []string{"-dir", "../../../testdata/extract", "-base", "no-such-revision"}, &out, &out); err == nil {
		t.Error("an unknown revision: no error")
	}
}
