package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets call each extractor in-process, in the fuzzing
// goroutine and without Extract's recover guard, so a panic in our code is
// a crash the fuzzer reports. Found crashers live in testdata/fuzz/<Target>
// and run as regression seeds with go test. Run a target with
//
//	go test -run XXX -fuzz FuzzExtractPDF -fuzztime 60s -fuzzminimizetime 200x ./internal/extract/
//
// The -fuzzminimizetime bound matters: map iteration order makes coverage
// vary between runs of one input, and the default 60s minimization of every
// new input then stalls the fuzzer at 0 execs/s.

// addSeeds adds the fixtures with the given extensions and extra seeds.
func addSeeds(f *testing.F, exts []string, extra ...string) {
	for _, e := range exts {
		matches, _ := filepath.Glob(filepath.Join(fixtures, "*"+e))
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// fuzzOne runs one extraction and checks the result's invariants.
func fuzzOne(t *testing.T, format Format, data []byte, run func(ctx context.Context, data []byte) (*Document, error)) {
	if len(data) > 1<<20 {
		t.Skip()
	}
	doc, err := run(context.Background(), data)
	if err == nil {
		err = finish(format, doc)
	}
	if err != nil {
		if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: error %v wraps no sentinel", format, err)
		}
		return
	}
	fuzzCheck(t, doc)
}

func fuzzCheck(t *testing.T, doc *Document) {
	text := []rune(doc.Text())
	if doc.Chars != len(text) || len(doc.Sections) == 0 {
		t.Fatalf("Chars %d, text %d runes, %d sections", doc.Chars, len(text), len(doc.Sections))
	}
	for i, s := range doc.Sections {
		if s.CharStart < 0 || s.CharEnd > len(text) || s.CharStart > s.CharEnd {
			t.Fatalf("section %d: offsets [%d,%d) of %d", i, s.CharStart, s.CharEnd, len(text))
		}
		if string(text[s.CharStart:s.CharEnd]) != s.Text || !utf8.ValidString(s.Text) || strings.TrimSpace(s.Text) == "" {
			t.Fatalf("section %d: text does not match offsets or is empty", i)
		}
		if !sectionTypes[s.Type] {
			t.Fatalf("section %d: type %q", i, s.Type)
		}
	}
}

func lim() Limits { return Limits{}.withDefaults() }

func FuzzExtractMarkdown(f *testing.F) {
	addSeeds(f, []string{".md"}, "# a\n## b\ntext\n", "---\ntitle: x\n---\n```\n# no\n", "Setext\n===\n\n    code\n", "[x](y \"z\") ![i](j)")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, Markdown, data, func(ctx context.Context, d []byte) (*Document, error) { return extractMarkdown(ctx, d, lim()) })
	})
}

func FuzzExtractText(f *testing.F) {
	addSeeds(f, []string{".txt", ".log"}, "CHAPTER I\n\ntext\n", "\xff\xfeh\x00i\x00", "\x00a\x00b\x00c", "2024-01-01 10:00:00 INFO x\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, Text, data, func(ctx context.Context, d []byte) (*Document, error) { return extractText(ctx, d, lim()) })
	})
}

func FuzzExtractCSV(f *testing.F) {
	addSeeds(f, []string{".csv", ".tsv"}, "a;b\n1;2\n", "title,,\na,b,c\n1,2,3\n", "\"unterminated,1\n2,3", "a|b|c\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, CSV, data, func(ctx context.Context, d []byte) (*Document, error) { return extractCSV(ctx, d, lim()) })
	})
}

func FuzzExtractJSON(f *testing.F) {
	addSeeds(f, []string{".json"}, `[{"a":1},{"a":2}]`, `{"doi":"10.1/x","r":[{"a":[1,{"b":null}]}]}`, "{\"a\":1}\n{\"a\":2}\n", "[[[[", `"\u0000"`)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, JSON, data, func(ctx context.Context, d []byte) (*Document, error) { return extractJSON(ctx, d, lim()) })
	})
}

func FuzzExtractPDF(f *testing.F) {
	addSeeds(f, []string{".pdf"}, "%PDF-1.4\ntrailer<</Root<</Pages<</Kids[<</Type/Page>>]>>>>>>\nstartxref\n0\n%%EOF")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, PDF, data, func(ctx context.Context, d []byte) (*Document, error) { return parsePDF(d) })
	})
}

func FuzzExtractXLSX(f *testing.F) {
	addSeeds(f, []string{".xlsx"})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, XLSX, data, func(ctx context.Context, d []byte) (*Document, error) { return extractXLSX(ctx, d, lim()) })
	})
}

func FuzzExtractDOCX(f *testing.F) {
	addSeeds(f, []string{".docx"})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, DOCX, data, func(ctx context.Context, d []byte) (*Document, error) { return extractDOCX(ctx, d, lim()) })
	})
}
