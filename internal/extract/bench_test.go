package extract

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchFiles returns the testdocs (or, without them, the fixtures) of one
// format, excluding malformed ones.
func benchFiles(b *testing.B, format Format) map[string][]byte {
	out := map[string][]byte{}
	for _, dir := range []string{testdocs, fixtures} {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Base(filepath.Dir(path)) == "malformed" {
				return nil
			}
			if f, ok := FormatFor(path); ok && f == format && filepath.Base(path) != "README.md" {
				data, err := os.ReadFile(path)
				if err == nil {
					out[filepath.Base(path)] = data
				}
			}
			return nil
		})
		if len(out) > 0 {
			break
		}
	}
	if len(out) == 0 {
		b.Skipf("no %s files", format)
	}
	return out
}

// BenchmarkExtractPDF measures whole Extract calls, child process included,
// and reports pages/s.
func BenchmarkExtractPDF(b *testing.B) {
	for name, data := range benchFiles(b, PDF) {
		b.Run(name, func(b *testing.B) {
			pages := 0
			b.SetBytes(int64(len(data)))
			start := time.Now()
			for i := 0; i < b.N; i++ {
				doc, err := Extract(context.Background(), PDF, bytes.NewReader(data), Limits{})
				if err != nil {
					b.Fatal(err)
				}
				pages += doc.Pages
			}
			b.ReportMetric(float64(pages)/time.Since(start).Seconds(), "pages/s")
		})
	}
}

// BenchmarkParsePDF measures the in-process parse and layout alone.
func BenchmarkParsePDF(b *testing.B) {
	for name, data := range benchFiles(b, PDF) {
		b.Run(name, func(b *testing.B) {
			pages := 0
			b.SetBytes(int64(len(data)))
			start := time.Now()
			for i := 0; i < b.N; i++ {
				doc, err := parsePDF(data)
				if err != nil {
					b.Fatal(err)
				}
				pages += doc.Pages
			}
			b.ReportMetric(float64(pages)/time.Since(start).Seconds(), "pages/s")
		})
	}
}

func benchFormat(b *testing.B, format Format) {
	files := benchFiles(b, format)
	var total int64
	for _, d := range files {
		total += int64(len(d))
	}
	b.SetBytes(total)
	for i := 0; i < b.N; i++ {
		for name, data := range files {
			if _, err := Extract(context.Background(), format, bytes.NewReader(data), Limits{}); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
		}
	}
}

func BenchmarkExtractMarkdown(b *testing.B) { benchFormat(b, Markdown) }
func BenchmarkExtractText(b *testing.B)     { benchFormat(b, Text) }
func BenchmarkExtractCSV(b *testing.B)      { benchFormat(b, CSV) }
func BenchmarkExtractJSON(b *testing.B)     { benchFormat(b, JSON) }
func BenchmarkExtractXLSX(b *testing.B)     { benchFormat(b, XLSX) }
func BenchmarkExtractDOCX(b *testing.B)     { benchFormat(b, DOCX) }
