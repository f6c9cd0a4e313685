package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/testenv"
)

// testdocs holds real files from other projects (see its README); tests
// read them in place and never copy them here.
const testdocs = "../../../shared/testdocs"

// fixtures holds small hand-made files.
const fixtures = "../../testdata/extract"

// hangEnv, set in a test's environment, makes the PDF children it starts
// (this test binary, which inherits it) wait a minute before parsing, as a
// parser looping on a hostile file would: longer than any test waits, so
// only the parent ends them sooner. (A minute, not forever, so that no
// child outlives a failed test by long.)
const hangEnv = "PAPERMEM_EXTRACT_TEST_HANG"

// The hang is installed in a package-level variable's initializer, as
// those run before any init function, and the child does its work in
// pdf.go's.
var _ = func() bool {
	if os.Getenv(hangEnv) != "" {
		testHookParse = func() { time.Sleep(time.Minute) }
	}
	return true
}()

// want is a phrase expected in one section of a file, with the provenance
// that section must carry. Zero fields are not checked, except that page,
// sheet and row are always compared for the formats that set them.
type want struct {
	phrase  string
	page    int    // PDF
	sheet   string // XLSX
	row     int    // CSV, XLSX, JSON records
	heading string // substring of the heading path
	typ     string
	doi     string // Document.DOI
	title   string // Document.Title
}

var wellFormed = map[string]want{
	"csv_tsv/docling-csv-comma.csv":                    {phrase: "Company: Rasmussen Group", row: 1},
	"csv_tsv/docling-csv-inconsistent-header.csv":      {phrase: "column 4: d", row: 1},
	"csv_tsv/unstructured-semicolon-delimited.csv":     {phrase: "dolor sit: eiusmod", row: 2},
	"csv_tsv/unstructured-stanley-cups-utf-16.csv":     {phrase: "Team: Maple Leafs; Location: TOR", row: 3, title: "Stanley Cups"},
	"csv_tsv/unstructured-stanley-cups-with-emoji.tsv": {phrase: "Team: Flyers; Location: PHI", row: 2},
	"docx/docling-word_sample.docx":                    {phrase: "respectful duck could eat", heading: "Let’s eat"},
	"docx/python-docx-test.docx":                       {phrase: "python-docx was here too!", heading: "python-docx was here!"},
	"docx/unstructured-docx-tables.docx":               {phrase: "Lorem ipsum | A link example", typ: TypeTable},
	"json/unstructured-arbitrary-records.json":         {phrase: "name: Watering Can", row: 2},
	"json/unstructured-simple.json":                    {phrase: "text: Parrots", row: 2},
	"md/docling-pone.0234687.nxml.md":                  {phrase: "one kilogram of energy-corrected milk (ECM) at the farm gate", heading: "Materials and methods > Functional unit", typ: TypeMethods},
	"md/docling-wiki.md":                               {phrase: "introduced the highly successful Selectric typewriter", heading: "IBM > 1960s–1980s"},
	"md/unstructured-codeblock.md":                     {phrase: "<body>Don't forget me this weekend!</body>", heading: "XML Example"},
	"md/unstructured-umlauts-non-utf8.md":              {phrase: "äöüß", heading: "können"},
	"pdf/acl2020-s2orc-2020.acl-main.447.pdf":          {phrase: "a large corpus of 81.1M English-language academic papers", page: 1, heading: "Abstract", typ: TypeAbstract, title: "S2ORC: The Semantic Scholar Open Research Corpus"},
	"pdf/pypdf-multicolumn.pdf":                        {phrase: "This is a sample document with two columns filled with Lorem Ipsum text.", page: 1, heading: "Abstract"},
	"pdf/unstructured-multi-column-2p-DPR.pdf":         {phrase: "Sala Baker is best known for portraying the villain Sauron", page: 1, heading: "1 Introduction", typ: TypeIntroduction},
	"txt/unstructured-UDHR_first_article_all.txt":      {phrase: "是人都生而自由，在尊严和权利上一律平等。"},
	"txt/unstructured-book-war-and-peace-1p.txt":       {phrase: "the well-known Anna Pavlovna Scherer, maid of honor", heading: "CHAPTER I"},
	"txt/unstructured-fake-text-utf-16-be.txt":         {phrase: "Doylestown, PA 18901"},
	"xlsx/docling-xlsx_06_edge_cases.xlsx":             {phrase: "Question: What types of data will the AI process?", sheet: "missing_header_head", row: 3},
	"xlsx/excelize-Book1.xlsx":                         {phrase: "Brand: SAMSUNG", sheet: "Sheet2", row: 9},
	"xlsx/excelize-SharedStrings.xlsx":                 {phrase: "Test Weight (Kgs)", sheet: "Sheet2", row: 1},
	"xlsx/unstructured-stanley-cups.xlsx":              {phrase: "Team: Maple Leafs; Location: TOR; Stanley Cups: 0", sheet: "Stanley Cups Since 67", row: 3},
}

// moreWants checks a second place in some files: later pages and reading
// order across columns.
var moreWants = map[string]want{
	"pdf/acl2020-s2orc-2020.acl-main.447.pdf":  {phrase: "we further require that one document within the cluster be the canonical document", page: 14},
	"pdf/pypdf-multicolumn.pdf":                {phrase: "Suspendisse vel felis. Ut lorem lorem, interdum eu, tincidunt sit amet", page: 2},
	"pdf/unstructured-multi-column-2p-DPR.pdf": {phrase: "can we train a better dense embedding model using only pairs of questions and passages", page: 2, heading: "1 Introduction"},
}

var fixtureWants = map[string]want{
	"sample.pdf":  {phrase: "The average loss was 1.8 m per year.", page: 1, heading: "1 Introduction", doi: "10.5555/papermem.glacier.2021", title: "Melting Glaciers in the Alps"},
	"sample.docx": {phrase: "GRIP-2 | 3028", heading: "2 Drilling > 2.1 Site selection", typ: TypeTable, doi: "10.5555/papermem.ice.2022", title: "Ice Cores from Greenland"},
	"sample.xlsx": {phrase: "Station: Vernagtferner; Altitude (m): 3180; First survey: 2019-06-14; Loss (m/yr): 1.92", sheet: "Stations", row: 2, title: "Alpine glacier survey"},
	"sample.md":   {phrase: "Moulins carry meltwater to the glacier bed.", heading: "Glacier hydrology > Moulins", doi: "10.5555/papermem.md.2020", title: "Glacier hydrology"},
	"sample.txt":  {phrase: "Firn turns to ice below about fifty metres.", heading: "2. Firn", typ: TypeBody},
	"sample.log":  {phrase: "ERROR stake 7 unreadable", heading: "lines 1–"},
	"sample.csv":  {phrase: "station: Rhone; loss_m: 2.1", row: 2},
	"sample.tsv":  {phrase: "station: Aletsch; note: largest, in the Alps", row: 1},
	"sample.json": {phrase: "name: Morteratsch; tags[0]: valley", row: 2, heading: "stations", doi: "10.5555/papermem.json.2023", title: "Swiss glacier inventory"},
}

func extractFile(t *testing.T, path string) (*Document, error) {
	t.Helper()
	f, ok := FormatFor(path)
	if !ok {
		t.Fatalf("FormatFor(%q): no format", path)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	return Extract(context.Background(), f, in, Limits{})
}

func TestTestdocs(t *testing.T) {
	if _, err := os.Stat(testdocs); err != nil {
		testenv.Need(t, "../shared/testdocs", err)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(testdocs, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(testdocs, path)
		rel = filepath.ToSlash(rel)
		if rel == "README.md" || rel == "SOURCES.tsv" {
			return nil
		}
		seen[rel] = true
		t.Run(rel, func(t *testing.T) {
			if strings.HasPrefix(rel, "malformed/") {
				doc, err := extractFile(t, path)
				if err == nil {
					t.Fatalf("extracted %d sections from a malformed file, want an error", len(doc.Sections))
				}
				if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("error %q wraps neither ErrInvalid nor ErrTooLarge", err)
				}
				t.Logf("refused: %v", err)
				return
			}
			w, ok := wellFormed[rel]
			if !ok {
				t.Fatalf("no expectation for %s: add one to wellFormed", rel)
			}
			doc, err := extractFile(t, path)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			checkDocument(t, doc)
			checkWant(t, doc, w)
			if w2, ok := moreWants[rel]; ok {
				checkWant(t, doc, w2)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range wellFormed {
		if !seen[rel] {
			t.Errorf("expected file %s is missing from testdocs", rel)
		}
	}
}

func TestFixtures(t *testing.T) {
	for name, w := range fixtureWants {
		t.Run(name, func(t *testing.T) {
			doc, err := extractFile(t, filepath.Join(fixtures, name))
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			checkDocument(t, doc)
			checkWant(t, doc, w)
		})
	}
}

// checkWant finds w.phrase in a section and compares its provenance.
func checkWant(t *testing.T, doc *Document, w want) {
	t.Helper()
	phrase := squash(w.phrase)
	for _, s := range doc.Sections {
		if !strings.Contains(squash(s.Text), phrase) {
			continue
		}
		if s.Page != w.page {
			t.Errorf("%q: page %d, want %d", w.phrase, s.Page, w.page)
		}
		if s.Sheet != w.sheet {
			t.Errorf("%q: sheet %q, want %q", w.phrase, s.Sheet, w.sheet)
		}
		if s.Row != w.row {
			t.Errorf("%q: row %d, want %d", w.phrase, s.Row, w.row)
		}
		if !strings.Contains(s.Heading, w.heading) {
			t.Errorf("%q: heading %q, want it to contain %q", w.phrase, s.Heading, w.heading)
		}
		if w.typ != "" && s.Type != w.typ {
			t.Errorf("%q: type %q, want %q", w.phrase, s.Type, w.typ)
		}
		if w.doi != "" && doc.DOI != w.doi {
			t.Errorf("DOI %q, want %q", doc.DOI, w.doi)
		}
		if w.title != "" && doc.Title != w.title {
			t.Errorf("Title %q, want %q", doc.Title, w.title)
		}
		return
	}
	t.Errorf("phrase %q not found in any of %d sections", w.phrase, len(doc.Sections))
}

// squash collapses runs of white space, so a phrase matches across the
// line breaks a layout keeps.
func squash(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

var sectionTypes = map[string]bool{
	TypeAbstract: true, TypeIntroduction: true, TypeBackground: true, TypeMethods: true,
	TypeResults: true, TypeDiscussion: true, TypeConclusion: true, TypeLimitations: true,
	TypeReferences: true, TypeBody: true, TypeTable: true, TypeSheet: true,
}

// checkDocument verifies the invariants every extraction keeps.
func checkDocument(t *testing.T, doc *Document) {
	t.Helper()
	if len(doc.Sections) == 0 {
		t.Fatal("no sections")
	}
	text := []rune(doc.Text())
	if doc.Chars != len(text) {
		t.Errorf("Chars = %d, want %d", doc.Chars, len(text))
	}
	prevEnd := -1
	for i, s := range doc.Sections {
		if !sectionTypes[s.Type] {
			t.Errorf("section %d: unknown type %q", i, s.Type)
		}
		if s.Text == "" || strings.TrimSpace(s.Text) != s.Text {
			t.Errorf("section %d: text %q is empty or untrimmed", i, clip(s.Text, 40))
		}
		if !utf8.ValidString(s.Text) {
			t.Errorf("section %d: invalid UTF-8", i)
		}
		if s.CharStart < 0 || s.CharEnd > len(text) || s.CharStart > s.CharEnd || s.CharStart <= prevEnd {
			t.Fatalf("section %d: bad offsets [%d,%d) after %d in %d runes", i, s.CharStart, s.CharEnd, prevEnd, len(text))
		}
		if got := string(text[s.CharStart:s.CharEnd]); got != s.Text {
			t.Errorf("section %d: text at offsets differs: %q vs %q", i, clip(got, 40), clip(s.Text, 40))
		}
		prevEnd = s.CharEnd
		switch doc.Format {
		case PDF:
			if s.Page < 1 || s.Page > doc.Pages {
				t.Errorf("section %d: page %d outside 1..%d", i, s.Page, doc.Pages)
			}
		case XLSX:
			if s.Sheet == "" {
				t.Errorf("section %d: no sheet", i)
			}
		}
	}
}

func TestSectionType(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Abstract", TypeAbstract},
		{"1 Introduction", TypeIntroduction},
		{"2. Materials and Methods", TypeMethods},
		{"Related work", TypeBackground},
		{"2 Background", TypeBackground},
		{"Results", TypeResults},
		{"5.2 Results and Discussion", TypeDiscussion},
		{"Discussion", TypeDiscussion},
		{"6 Conclusions and Future Work", TypeConclusion},
		{"Limitations", TypeLimitations},
		{"References", TypeReferences},
		{"Bibliography", TypeReferences},
		{"REFERENCES", TypeReferences},
		{"IV. EXPERIMENTAL RESULTS", TypeResults},
		{"Statistical analysis", TypeMethods},
		{"Data availability", TypeBody},
		{"Acknowledgments", TypeBody},
		{"2 Methods > 2.1 Data", TypeMethods},
		{"3 Methods > 3.2 Something else", TypeMethods},
		{"Chapter 1 > The beginning", TypeBody},
		{"", TypeBody},
		{"IBM", TypeBody},
	}
	for _, tt := range tests {
		if got := SectionType(tt.heading); got != tt.want {
			t.Errorf("SectionType(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

func TestFormatFor(t *testing.T) {
	tests := []struct {
		name string
		want Format
		ok   bool
	}{
		{"a.md", Markdown, true}, {"A.MARKDOWN", Markdown, true}, {"x.txt", Text, true},
		{"x.text", Text, true}, {"server.LOG", Text, true}, {"t.csv", CSV, true}, {"t.TSV", CSV, true},
		{"d.json", JSON, true}, {"p.Pdf", PDF, true}, {"b.xlsx", XLSX, true}, {"w.docx", DOCX, true},
		{"old.doc", "", false}, {"old.xls", "", false}, {"noext", "", false}, {"dir.pdf/file", "", false},
	}
	for _, tt := range tests {
		got, ok := FormatFor(tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("FormatFor(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	n := 0
	for _, f := range Formats() {
		for _, e := range f.Extensions {
			n++
			if got, ok := FormatFor("x" + e); !ok || got != f.Format {
				t.Errorf("extension %s: FormatFor = %q, %v", e, got, ok)
			}
		}
	}
	if n != 11 {
		t.Errorf("Formats lists %d extensions, want 11", n)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zeros is an endless reader.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("ErrTooLarge", func(t *testing.T) {
		cr := &countingReader{r: zeros{}}
		_, err := Extract(ctx, Text, cr, Limits{MaxBytes: 1000})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if cr.n > 1001 {
			t.Errorf("read %d bytes, want at most MaxBytes+1", cr.n)
		}
	})
	t.Run("AtLimit", func(t *testing.T) {
		data := bytes.Repeat([]byte("word "), 200)
		if _, err := Extract(ctx, Text, bytes.NewReader(data), Limits{MaxBytes: int64(len(data))}); err != nil {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrUnsupported", func(t *testing.T) {
		_, err := Extract(ctx, Format("rtf"), strings.NewReader("x"), Limits{})
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("err = %v, want ErrUnsupported", err)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		for _, f := range Formats() {
			_, err := Extract(ctx, f.Format, strings.NewReader(""), Limits{})
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: err = %v, want ErrInvalid", f.Format, err)
			}
		}
	})
	t.Run("NoText", func(t *testing.T) {
		for _, in := range []struct {
			f    Format
			data string
		}{{Text, " \n\n \t\n"}, {Markdown, "#\n\n```\n```\n"}, {CSV, ",,,\n,,\n"}, {JSON, `{"a": null, "b": [], "c": ""}`}} {
			_, err := Extract(ctx, in.f, strings.NewReader(in.data), Limits{})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no text found") {
				t.Errorf("%s %q: err = %v, want ErrInvalid no text found", in.f, in.data, err)
			}
		}
	})
	t.Run("JSONDepth", func(t *testing.T) {
		deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
		_, err := Extract(ctx, JSON, strings.NewReader(deep), Limits{})
		if !errors.Is(err, ErrInvalid) || err.Error() != "json: nesting deeper than 64" {
			t.Fatalf("err = %v", err)
		}
		ok := `{"a":` + strings.Repeat("[", 10) + `"deep"` + strings.Repeat("]", 10) + "}"
		if _, err := Extract(ctx, JSON, strings.NewReader(ok), Limits{MaxJSONDepth: 11}); err != nil {
			t.Fatalf("depth 11: %v", err)
		}
		if _, err := Extract(ctx, JSON, strings.NewReader(ok), Limits{MaxJSONDepth: 10}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("depth 11 over limit 10: err = %v", err)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		data, err := os.ReadFile(filepath.Join(fixtures, "sample.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Extract(cctx, PDF, bytes.NewReader(data), Limits{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("PDFTimeout", func(t *testing.T) {
		// The child waits a minute before parsing (hangEnv), as if the
		// parser looped on a hostile file: only the timeout can end the
		// extraction first. The guard catches a timeout not honoured; it
		// measures no speed.
		t.Setenv(hangEnv, "1")
		data, err := os.ReadFile(filepath.Join(fixtures, "sample.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := Extract(ctx, PDF, bytes.NewReader(data), Limits{Timeout: time.Millisecond})
			done <- err
		}()
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("Extract of a PDF whose parse never ends has not returned 30 s after its 1 ms timeout")
		}
		if !errors.Is(err, ErrInvalid) || err.Error() != "pdf: extraction timed out" {
			t.Fatalf("err = %v, want pdf: extraction timed out", err)
		}
	})
}

func TestRecoverGuard(t *testing.T) {
	const boom = Format("boom")
	extractors[boom] = func(context.Context, []byte, Limits) (*Document, error) { panic("kaboom") }
	defer delete(extractors, boom)
	_, err := Extract(context.Background(), boom, strings.NewReader("x"), Limits{})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("err = %v, want ErrInvalid naming the panic", err)
	}
}

func TestPDFChildCrash(t *testing.T) {
	// A child that dies without a reply is reported as ErrInvalid.
	t.Setenv("GOTRACEBACK", "none")
	var out bytes.Buffer
	code := runPDFChild(strings.NewReader("%PDF-1.4\nnot really"), &out)
	if code != 0 || !strings.Contains(out.String(), `"error"`) {
		t.Fatalf("child exit %d, reply %q", code, out.String())
	}
}

func TestEncrypted(t *testing.T) {
	ctx := context.Background()
	pdfData := buildPDF([]string{"<< /Type /Catalog >>"}, "/Root 1 0 R /Encrypt << /Filter /Standard /V 1 /R 2 >>")
	_, err := Extract(ctx, PDF, bytes.NewReader(pdfData), Limits{})
	if !errors.Is(err, ErrInvalid) || err.Error() != "pdf: file is encrypted" {
		t.Errorf("pdf: err = %v", err)
	}
	ole := append(append([]byte{}, oleMagic...), []byte("....E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o\x00")...)
	for _, f := range []Format{XLSX, DOCX} {
		_, err := Extract(ctx, f, bytes.NewReader(ole), Limits{})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "encrypted") {
			t.Errorf("%s: err = %v", f, err)
		}
		_, err = Extract(ctx, f, strings.NewReader("PK not a zip at all"), Limits{})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "zip") {
			t.Errorf("%s: err = %v", f, err)
		}
	}
}

func TestDecodeText(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"UTF8", []byte("grüße"), "grüße"},
		{"UTF8BOM", []byte("\xef\xbb\xbfgrüße"), "grüße"},
		{"Latin1", []byte("k\xf6nnen \xe4\xf6\xfc\xdf"), "können äöüß"},
		{"Windows1252", []byte("\x93quoted\x94 \x80 5"), "“quoted” € 5"},
		{"UTF16LEBOM", []byte("\xff\xfeh\x00i\x00"), "hi"},
		{"UTF16BEBOM", []byte("\xfe\xff\x00h\x00i"), "hi"},
		{"UTF16BE", []byte("\x00h\x00e\x00l\x00l\x00o"), "hello"},
		{"UTF16LE", []byte("h\x00e\x00l\x00l\x00o\x00"), "hello"},
	}
	for _, tt := range tests {
		got, err := decodeText(Text, tt.in)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := decodeText(Text, []byte("\x00\x01\x02\x03\x04binary\x05\x06\x07\x08\x0e\x0f\x10")); !errors.Is(err, ErrInvalid) {
		t.Errorf("binary: err = %v", err)
	}
}

func TestSniffDelimiter(t *testing.T) {
	tests := []struct {
		in   string
		want rune
	}{
		{"a,b,c\n1,2,3\n", ','},
		{"a;b;c\n1;2;3\n", ';'},
		{"a\tb\tc\n1\t2\t3\n", '\t'},
		{"a|b|c\n1|2|3\n", '|'},
		{"Lorem, ipsum; dolor; amet\nx; y, z; w\n", ';'},
		{"\"a,b\";c\n\"d,e\";f\n", ';'},
	}
	for _, tt := range tests {
		if got := sniffDelimiter(tt.in); got != tt.want {
			t.Errorf("sniffDelimiter(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHyphenation(t *testing.T) {
	secs := []Section{{Text: "a rep" + string(hyphenMark) + "resentation and a model" + string(hyphenMark) + "based view; model-based again"}}
	resolveHyphens(secs)
	if want := "a representation and a model-based view; model-based again"; secs[0].Text != want {
		t.Errorf("got %q, want %q", secs[0].Text, want)
	}
	var sb strings.Builder
	sb.WriteString("the ﬁrst state-of-the-")
	joinLine(&sb, "art method")
	if got := cleanText(sb.String()); got != "the first state-of-the-art method" {
		t.Errorf("got %q", got)
	}
}

// buildPDF assembles a PDF from object bodies (numbered from 1) with a
// correct cross-reference table; extra goes into the trailer dictionary.
func buildPDF(objs []string, extra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, extra, x)
	return b.Bytes()
}

func TestLargeInputsStayLinear(t *testing.T) {
	// One 8 MB line used to be split in quadratic time and time out.
	if testing.Short() {
		t.Skip("large input")
	}
	ctx := context.Background()
	one := strings.Repeat("word ", 8<<20/5)
	doc, err := Extract(ctx, Text, strings.NewReader(one), Limits{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("single line: %v", err)
	}
	for _, s := range doc.Sections {
		if n := utf8.RuneCountInString(s.Text); n > maxSectionRunes {
			t.Fatalf("section of %d runes, want at most %d", n, maxSectionRunes)
		}
	}
	var md strings.Builder
	for i := 0; md.Len() < 4<<20; i++ {
		fmt.Fprintf(&md, "## Heading %d\n\nText %d.\n\n", i, i)
	}
	if _, err := Extract(ctx, Markdown, strings.NewReader(md.String()), Limits{Timeout: 20 * time.Second}); err != nil {
		t.Fatalf("many headings: %v", err)
	}
}
