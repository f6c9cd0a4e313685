package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/scifact"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	sf := filepath.Join("..", "..", "..", scifact.DefaultDir)
	if err := run(context.Background(), []string{"-docs", "../../../testdata/extract", "-n", "1", "-scifact", sf}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PDF text extraction", "sample.pdf", "all PDFs", "Other formats", "ingest MB/s", "ingest ms/file", "markdown", "xlsx", "docx", "text formats", "scifact-500.csv", "scifact-500.json"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunErrors(t *testing.T) {
	if err := run(context.Background(), []string{"-docs", t.TempDir()}, new(bytes.Buffer)); err == nil {
		t.Error("empty folder: no error")
	}
	if err := run(context.Background(), []string{"-n", "0"}, new(bytes.Buffer)); err == nil {
		t.Error("-n 0: no error")
	}
}
