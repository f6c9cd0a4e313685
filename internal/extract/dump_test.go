package extract

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestDump prints the extraction of the file named by EXTRACT_DUMP; a
// debugging aid, skipped otherwise.
func TestDump(t *testing.T) {
	path := os.Getenv("EXTRACT_DUMP")
	if path == "" {
		t.Skip("set EXTRACT_DUMP=file to print its extraction")
	}
	f, ok := FormatFor(path)
	if !ok {
		t.Fatalf("unknown format: %s", path)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	doc, err := Extract(context.Background(), f, in, Limits{})
	if err != nil {
		t.Fatalf("%v", err)
	}
	fmt.Printf("format=%s title=%q doi=%q year=%d authors=%q pages=%d rows=%d chars=%d sections=%d\n",
		doc.Format, doc.Title, doc.DOI, doc.Year, doc.Authors, doc.Pages, doc.Rows, doc.Chars, len(doc.Sections))
	for i, s := range doc.Sections {
		fmt.Printf("--- #%d heading=%q type=%s page=%d sheet=%q row=%d [%d,%d)\n%s\n", i, s.Heading, s.Type, s.Page, s.Sheet, s.Row, s.CharStart, s.CharEnd, s.Text)
	}
}
