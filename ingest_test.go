package papermem_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testenv"
	"github.com/papermem/papermem/internal/testutil"
)

// testdocs holds real files from other projects (see its README); tests
// read them in place.
const testdocs = "../shared/testdocs"

// fixtures holds small hand-made files with DOIs.
const fixtures = "testdata/extract"

// ingestWant is a phrase of one file and the provenance of the span that
// recalls it. Page, sheet and row are compared exactly (zero included);
// section is a substring of the span's section; typ, when set, its
// section type.
type ingestWant struct {
	phrase  string
	page    int
	sheet   string
	row     int
	section string
	typ     string
}

var testdocWants = map[string]ingestWant{
	"csv_tsv/docling-csv-comma.csv":                    {phrase: "Company: Murillo-Perry; City: Isabelborough", row: 3},
	"csv_tsv/docling-csv-inconsistent-header.csv":      {phrase: "column 4: d", row: 1},
	"csv_tsv/unstructured-semicolon-delimited.csv":     {phrase: "dolor sit: et, dolore; amet: magna aliqua", row: 3},
	"csv_tsv/unstructured-stanley-cups-utf-16.csv":     {phrase: "Team: Flyers; Location: PHI; Stanley Cups: 2", row: 2},
	"csv_tsv/unstructured-stanley-cups-with-emoji.tsv": {phrase: "Location: TOR; Stanley Cups: 15", row: 4},
	"docx/docling-word_sample.docx":                    {phrase: "first lay down in a water and try not to drown", section: "Let’s swim!"},
	"docx/python-docx-test.docx":                       {phrase: "python-docx was here too!", section: "python-docx was here!"},
	"docx/unstructured-docx-tables.docx":               {phrase: "Lorem ipsum | A link example", typ: "table"},
	"json/unstructured-arbitrary-records.json":         {phrase: "name: Pruning Shears; price: 24.99", row: 3},
	"json/unstructured-simple.json":                    {phrase: "element_id: 95f392d32c5271bfdb30eaef45921e59", row: 5},
	"md/docling-pone.0234687.nxml.md":                  {phrase: "showing the greatest sensitivity index, with values ranging from 0.53 to 0.62", section: "Results and discussion > Methane emissions"},
	"md/docling-wiki.md":                               {phrase: "Julius E. Pitrap patented the computing scale in 1885", section: "IBM > 1910s–1950s"},
	"md/unstructured-codeblock.md":                     {phrase: "<from>Jani</from>", section: "XML Example"},
	"md/unstructured-umlauts-non-utf8.md":              {phrase: "äöüß", section: "können"},
	"pdf/acl2020-s2orc-2020.acl-main.447.pdf":          {phrase: "we further require that one document within the cluster be the canonical document", page: 14},
	"pdf/pypdf-multicolumn.pdf":                        {phrase: "Suspendisse vel felis. Ut lorem lorem, interdum eu, tincidunt sit amet", page: 2},
	"pdf/unstructured-multi-column-2p-DPR.pdf":         {phrase: "Sala Baker is best known for portraying the villain Sauron", page: 1, section: "1 Introduction", typ: "introduction"},
	"txt/unstructured-UDHR_first_article_all.txt":      {phrase: "Novdiex nongv liex hufniv dav zer nier"},
	"txt/unstructured-book-war-and-peace-1p.txt":       {phrase: "so Genoa and Lucca are now just family estates", section: "CHAPTER I"},
	"txt/unstructured-fake-text-utf-16-be.txt":         {phrase: "Hamburgers are delicious"},
	"xlsx/docling-xlsx_06_edge_cases.xlsx":             {phrase: "G: Overview 2; H: Purpose 2; I: Extra 2", sheet: "Diagonal", row: 6},
	"xlsx/excelize-Book1.xlsx":                         {phrase: "Monitor: 17-20 Inch; B: 56; Brand: Lenove", sheet: "Sheet2", row: 3},
	"xlsx/excelize-SharedStrings.xlsx":                 {phrase: "Test Weight (Kgs)", sheet: "Sheet2", row: 1},
	"xlsx/unstructured-stanley-cups.xlsx":              {phrase: "Team: Maple Leafs; Location: TOR; Stanley Cups: 0", sheet: "Stanley Cups Since 67", row: 3},
}

// openAt opens a Memory over a fresh file and a second, plain connection
// to the same file for counting rows.
func openAt(t *testing.T, opts *papermem.Options) (*papermem.Memory, *sql.DB) {
	t.Helper()
	path := testdb.Path(t)
	m, err := papermem.Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, testutil.Raw(t, path, false)
}

// rowCounts counts the rows of every table an ingest writes.
func rowCounts(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"workspaces", "papers", "documents", "nodes", "node_vectors"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func ingestPath(t *testing.T, w *papermem.Workspace, path string, opts papermem.IngestOptions) (*papermem.IngestReport, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return w.IngestFile(ctx, filepath.Base(path), f, opts)
}

// extractedText is the whole extracted text of a file, which span offsets
// index in runes.
func extractedText(t *testing.T, path string) []rune {
	t.Helper()
	f, ok := extract.FormatFor(path)
	if !ok {
		t.Fatalf("no format for %s", path)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	doc, err := extract.Extract(ctx, f, in, extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return []rune(doc.Text())
}

// squash collapses white space so a phrase matches across kept line breaks.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// recallPhrase recalls w.phrase and returns the span from source that
// holds it, trying label Any, then the given label.
func recallPhrase(t *testing.T, ws *papermem.Workspace, source, label string, w ingestWant) papermem.Span {
	t.Helper()
	for _, l := range []string{papermem.LabelAny, label} {
		res, err := ws.Recall(ctx, papermem.RecallRequest{Question: w.phrase, Label: l})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range res.Spans {
			if s.Provenance.Source == source && strings.Contains(squash(s.Text), squash(w.phrase)) {
				t.Logf("label %s: rank %d of %d", l, i+1, len(res.Spans))
				return s
			}
		}
	}
	t.Fatalf("no span of %s holds %q", source, w.phrase)
	return papermem.Span{}
}

// checkSpan compares a span's provenance with w and its offsets with the
// extracted text.
func checkSpan(t *testing.T, s papermem.Span, w ingestWant, text []rune) {
	t.Helper()
	p := s.Provenance
	if p.Page != w.page || p.Sheet != w.sheet || p.Row != w.row {
		t.Errorf("page/sheet/row = %d/%q/%d, want %d/%q/%d", p.Page, p.Sheet, p.Row, w.page, w.sheet, w.row)
	}
	if !strings.Contains(p.Section, w.section) {
		t.Errorf("section %q, want it to contain %q", p.Section, w.section)
	}
	if w.typ != "" && p.SectionType != w.typ {
		t.Errorf("section type %q, want %q", p.SectionType, w.typ)
	}
	if p.CharStart < 0 || p.CharEnd > len(text) || p.CharStart >= p.CharEnd || string(text[p.CharStart:p.CharEnd]) != s.Text {
		t.Errorf("offsets %d:%d of %d runes do not cite %q", p.CharStart, p.CharEnd, len(text), s.Text)
	}
	if p.IngestedAt == "" || p.Title == "" {
		t.Errorf("provenance lacks ingested_at or title: %+v", p)
	}
}

// TestIngestTestdocs ingests every well-formed file of the shared test
// documents into one workspace, recalls a phrase of each with its
// provenance, and checks that every malformed file is refused with a
// client error and changes nothing.
func TestIngestTestdocs(t *testing.T) {
	if _, err := os.Stat(testdocs); err != nil {
		testenv.Need(t, "../shared/testdocs", err)
	}
	m, db := openAt(t, nil)
	var good, bad []string
	err := filepath.WalkDir(testdocs, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(testdocs, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "README.md" || rel == "SOURCES.tsv":
		case strings.HasPrefix(rel, "malformed/"):
			bad = append(bad, rel)
		default:
			good = append(good, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range good {
		t.Run("Ingest/"+rel, func(t *testing.T) {
			if _, ok := testdocWants[rel]; !ok {
				t.Fatalf("no phrase for %s: add one to testdocWants", rel)
			}
			path := filepath.Join(testdocs, rel)
			rep, err := ingestPath(t, m.Workspace("default"), path, papermem.IngestOptions{Domain: "testdocs"})
			if err != nil {
				t.Fatalf("IngestFile: %v", err)
			}
			format, _ := extract.FormatFor(rel)
			if rep.Kind != papermem.KindDocument || !strings.HasPrefix(rep.DocID, "doc:") || rep.Format != string(format) ||
				rep.CharsRead == 0 || rep.Sections == 0 || rep.NodesStored < rep.Sections || rep.ClaimsFound > rep.NodesStored {
				t.Errorf("report %+v", rep)
			}
			if (format == extract.PDF) != (rep.Pages > 0) {
				t.Errorf("pages = %d for a %s file", rep.Pages, format)
			}
			if (format == extract.CSV || format == extract.XLSX) && rep.Rows == 0 {
				t.Errorf("rows = 0 for a %s file", format)
			}
		})
	}
	// Each file is recalled from a workspace of its own as well: a file
	// whose rows repeat another's (the same table as CSV and XLSX) has its
	// spans dropped as repeats of the other's wherever that ranks first.
	for i, rel := range good {
		t.Run("Recall/"+rel, func(t *testing.T) {
			w, ok := testdocWants[rel]
			if !ok {
				t.Skip("no phrase")
			}
			path := filepath.Join(testdocs, rel)
			alone := m.Workspace(fmt.Sprintf("file%d", i))
			if _, err := ingestPath(t, alone, path, papermem.IngestOptions{Domain: "testdocs"}); err != nil {
				t.Fatalf("IngestFile: %v", err)
			}
			s := recallPhrase(t, alone, filepath.Base(rel), papermem.LabelDocument, w)
			if s.Provenance.Kind != papermem.KindDocument || s.Provenance.DOI != "" {
				t.Errorf("provenance %+v, want a document's", s.Provenance)
			}
			checkSpan(t, s, w, extractedText(t, path))
		})
	}
	for _, rel := range bad {
		t.Run("Refuse/"+rel, func(t *testing.T) {
			before := rowCounts(t, db)
			_, err := ingestPath(t, m.Workspace("default"), filepath.Join(testdocs, rel), papermem.IngestOptions{})
			code := papermem.ErrorCode(err)
			if !slices.Contains([]string{papermem.EINVALID, papermem.ETOOLARGE, papermem.EUNSUPPORTED}, code) {
				t.Fatalf("err = %v (code %q), want a client error", err, code)
			}
			if diff := cmp.Diff(before, rowCounts(t, db)); diff != "" {
				t.Errorf("refused ingest changed the database (-before +after):\n%s", diff)
			}
			t.Logf("refused: %s", papermem.ErrorMessage(err))
		})
	}
	for rel := range testdocWants {
		if !slices.Contains(good, rel) {
			t.Errorf("expected file %s is missing from testdocs", rel)
		}
	}
}

// TestIngestPaper checks that files with a DOI become papers.
func TestIngestPaper(t *testing.T) {
	m, db := openAt(t, nil)
	t.Run("DOIInFile", func(t *testing.T) {
		path := filepath.Join(fixtures, "sample.pdf")
		rep, err := ingestPath(t, m.Workspace("default"), path, papermem.IngestOptions{Domain: "glaciology"})
		if err != nil {
			t.Fatal(err)
		}
		const doi = "10.5555/papermem.glacier.2021"
		if rep.Kind != papermem.KindPaper || rep.DocID != doi || rep.Format != "pdf" || rep.Pages != 2 {
			t.Fatalf("report %+v", rep)
		}
		p, err := m.Paper(ctx, doi)
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != "Melting Glaciers in the Alps" || !p.Cached || p.Domain != "glaciology" {
			t.Errorf("paper %+v", p)
		}
		w := ingestWant{phrase: "The average loss was 1.8 m per year.", page: 1, section: "1 Introduction"}
		s := recallPhrase(t, m.Workspace("default"), "", papermem.LabelPassage, w)
		if s.Provenance.Kind != papermem.KindPaper || s.Provenance.DOI != doi {
			t.Errorf("provenance %+v", s.Provenance)
		}
		checkSpan(t, s, w, extractedText(t, path))
	})
	t.Run("GivenDOIUpdatesPaper", func(t *testing.T) {
		path := filepath.Join(testdocs, "pdf/acl2020-s2orc-2020.acl-main.447.pdf")
		if _, err := os.Stat(path); err != nil {
			testenv.Need(t, "../shared/testdocs", err)
		}
		const doi = "10.18653/v1/2020.acl-main.447"
		mustStore(t, m, papermem.PaperInput{DOI: doi, Title: "S2ORC (curated title)", OA: true})
		rep, err := ingestPath(t, m.Workspace("default"), path, papermem.IngestOptions{DOI: "https://doi.org/" + doi})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kind != papermem.KindPaper || rep.DocID != doi || rep.Pages != 15 || rep.ClaimsFound == 0 {
			t.Fatalf("report %+v", rep)
		}
		p, err := m.Paper(ctx, doi)
		if err != nil {
			t.Fatal(err)
		}
		want := papermem.Paper{DOI: doi, Title: "S2ORC (curated title)", Year: 2020, OA: true, Cached: true,
			Authors:  []string{"Kyle Lo", "Lucy Lu Wang", "Mark Neumann", "Rodney Kinney", "Daniel Weld"},
			Metadata: papermem.MetadataUnavailable} // no origins
		if diff := cmp.Diff(want, *p); diff != "" {
			t.Errorf("paper (-want +got):\n%s", diff)
		}
		w := ingestWant{phrase: "we further require that one document within the cluster be the canonical document", page: 14}
		s := recallPhrase(t, m.Workspace("default"), "", papermem.LabelPassage, w)
		if s.Provenance.Kind != papermem.KindPaper || s.Provenance.DOI != doi {
			t.Errorf("provenance %+v", s.Provenance)
		}
		checkSpan(t, s, w, extractedText(t, path))

		before := rowCounts(t, db)
		if _, err := ingestPath(t, m.Workspace("default"), path, papermem.IngestOptions{DOI: doi}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, rowCounts(t, db)); diff != "" {
			t.Errorf("re-ingesting a paper duplicated rows (-before +after):\n%s", diff)
		}
	})
}

// failReader fails the test that reads it.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("the file was read")
	return 0, io.EOF
}

// endless yields bytes forever and counts them.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// failingEmbedder fails every call.
type failingEmbedder struct{ papermem.Embedder }

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("embedding service down")
}

func TestIngestFileErrors(t *testing.T) {
	const limit = 1000
	m, db := openAt(t, &papermem.Options{MaxIngestBytes: limit})
	before := rowCounts(t, db)
	for name, c := range map[string]struct {
		file   string
		r      func(t *testing.T) io.Reader
		opts   papermem.IngestOptions
		code   string
		reason string // in the message: the parser's reason
	}{
		"UnknownExtension": {"setup.exe", func(t *testing.T) io.Reader { return failReader{t} }, papermem.IngestOptions{}, papermem.EUNSUPPORTED, ""},
		"NoExtension":      {"README", func(t *testing.T) io.Reader { return failReader{t} }, papermem.IngestOptions{}, papermem.EUNSUPPORTED, ""},
		"NoName":           {"dir/", func(t *testing.T) io.Reader { return failReader{t} }, papermem.IngestOptions{}, papermem.EINVALID, ""},
		"BadDOI":           {"a.txt", func(t *testing.T) io.Reader { return failReader{t} }, papermem.IngestOptions{DOI: "not a doi"}, papermem.EINVALID, "not a DOI"},
		"NotPDF":           {"a.pdf", func(*testing.T) io.Reader { return strings.NewReader("plain words") }, papermem.IngestOptions{}, papermem.EINVALID, "pdf: "},
		"Empty":            {"a.md", func(*testing.T) io.Reader { return strings.NewReader("") }, papermem.IngestOptions{}, papermem.EINVALID, "markdown: "},
		"BadJSON":          {"a.json", func(*testing.T) io.Reader { return strings.NewReader(`{"a": [1, 2`) }, papermem.IngestOptions{}, papermem.EINVALID, "json: "},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := m.IngestFile(ctx, c.file, c.r(t), c.opts)
			if got := papermem.ErrorCode(err); got != c.code {
				t.Fatalf("err = %v (code %q), want %s", err, got, c.code)
			}
			if !strings.Contains(papermem.ErrorMessage(err), c.reason) {
				t.Errorf("message %q does not give the parser's reason %q", papermem.ErrorMessage(err), c.reason)
			}
		})
	}
	t.Run("TooLarge", func(t *testing.T) {
		src := &endless{}
		_, err := m.IngestFile(ctx, "big.txt", src, papermem.IngestOptions{})
		if papermem.ErrorCode(err) != papermem.ETOOLARGE {
			t.Fatalf("err = %v, want ETOOLARGE", err)
		}
		if src.n > limit+1 {
			t.Errorf("read %d bytes of an over-size file, want at most %d", src.n, limit+1)
		}
	})
	t.Run("AtLimit", func(t *testing.T) {
		text := strings.Repeat("Glaciers retreat. ", limit/18+1)
		if _, err := m.IngestFile(ctx, "ok.txt", strings.NewReader(text[:limit]), papermem.IngestOptions{}); err != nil {
			t.Fatalf("a file of exactly the limit: %v", err)
		}
		before = rowCounts(t, db)
	})
	if diff := cmp.Diff(before, rowCounts(t, db)); diff != "" {
		t.Errorf("failed ingests changed the database (-before +after):\n%s", diff)
	}

	t.Run("EmbedderFails", func(t *testing.T) {
		m, db := openAt(t, &papermem.Options{Embedder: failingEmbedder{papermem.NewHashEmbedder(papermem.DefaultDim)}})
		before := rowCounts(t, db)
		_, err := m.IngestFile(ctx, "notes.md", strings.NewReader("# Notes\nThe retreat doubled since 2000."), papermem.IngestOptions{})
		if papermem.ErrorCode(err) != papermem.EUPSTREAM {
			t.Fatalf("err = %v, want EUPSTREAM", err)
		}
		if diff := cmp.Diff(before, rowCounts(t, db)); diff != "" {
			t.Errorf("a failed ingest changed the database (-before +after):\n%s", diff)
		}
	})
}

func TestIngestFileDocument(t *testing.T) {
	m := mustOpen(t)
	acme, globex := m.Workspace("acme"), m.Workspace("globex")
	const text = "# Field notes\n\n## Results\nThe Rhone glacier lost 2.1 m of ice per year between 2015 and 2020, more than twice the rate of the 1990s.\n"
	rep, err := acme.IngestFile(ctx, `C:\reports\notes.md`, strings.NewReader(text), papermem.IngestOptions{Domain: "glaciology", Title: "Rhone notes"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != papermem.KindDocument || rep.Format != "markdown" || rep.Sections != 1 || rep.ClaimsFound != 1 || rep.NodesStored != 2 {
		t.Errorf("report %+v", rep)
	}

	t.Run("Provenance", func(t *testing.T) {
		res, err := acme.Recall(ctx, papermem.RecallRequest{Question: "How fast did the Rhone glacier lose ice?", Domain: "glaciology"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) == 0 {
			t.Fatal("no claim recalled")
		}
		s := res.Spans[0]
		want := papermem.Provenance{Kind: "document", Title: "Rhone notes", Source: "notes.md", Section: "Field notes > Results",
			SectionType: "results", CharStart: 0, CharEnd: len([]rune(s.Text)), IngestedAt: s.Provenance.IngestedAt}
		if diff := cmp.Diff(want, s.Provenance); diff != "" || s.Label != papermem.LabelClaim {
			t.Errorf("label %s, provenance (-want +got):\n%s", s.Label, diff)
		}
	})
	t.Run("Tenancy", func(t *testing.T) {
		for _, label := range []string{papermem.LabelAny, papermem.LabelDocument, papermem.LabelClaim} {
			res, err := globex.Recall(ctx, papermem.RecallRequest{Question: "Rhone glacier ice per year", Label: label})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Spans) != 0 {
				t.Errorf("label %s: workspace globex recalled %+v", label, res.Spans)
			}
		}
		if docs, err := globex.Documents(ctx, 10); err != nil || len(docs) != 0 {
			t.Errorf("globex documents %+v, %v", docs, err)
		}
	})
}

// wrappedEmbedder hides the offline embedder's type, so that IngestFile
// treats it as a remote one: nodes embedded before the transaction.
type wrappedEmbedder struct{ papermem.Embedder }

// TestIngestFilePipelined checks that the offline embedder's path, which
// chunks and embeds while it inserts, stores exactly what the path for
// other embedders stores: the same nodes, numbering, parents, offsets and
// vectors.
func TestIngestFilePipelined(t *testing.T) {
	files := []string{"txt/unstructured-UDHR_first_article_all.txt", "md/docling-pone.0234687.nxml.md", "md/docling-wiki.md"}
	dump := func(t *testing.T, opts *papermem.Options) []string {
		t.Helper()
		m, db := openAt(t, opts)
		w := m.Workspace("default")
		for _, f := range files {
			rep, err := ingestPath(t, w, filepath.Join(testdocs, f), papermem.IngestOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.NodesStored == 0 {
				t.Fatalf("%s: report %+v", f, rep)
			}
		}
		rows, err := db.Query(`SELECT n.owner_id, n.seq, n.label, coalesce(p.seq, -1), n.section, n.section_type, n.text,
			n.tokens, n.page, n.row, n.sheet, n.char_start, n.char_end, v.embedding
			FROM nodes n JOIN node_vectors v ON v.node_id = n.id LEFT JOIN nodes p ON p.id = n.parent_id
			ORDER BY n.owner_id, n.seq`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var owner, seq, parent, tokens, page, row, start, end int
			var label, section, typ, text, sheet string
			var vec []byte
			if err := rows.Scan(&owner, &seq, &label, &parent, &section, &typ, &text, &tokens, &page, &row, &sheet, &start, &end, &vec); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d/%d %s parent %d %q %s %q %d p%d r%d %q %d-%d %s", owner, seq, label, parent, section, typ, text, tokens, page, row, sheet, start, end, fmt.Sprintf("%X", vec)))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	pipelined := dump(t, nil)
	before := dump(t, &papermem.Options{Embedder: wrappedEmbedder{papermem.NewOfflineEmbedder()}})
	if len(pipelined) < 300 {
		t.Fatalf("%d nodes: the files do not exercise the pipeline", len(pipelined))
	}
	if diff := cmp.Diff(before, pipelined); diff != "" {
		t.Errorf("stored nodes differ (-embedded first +pipelined):\n%s", diff)
	}
}

// pdfOrigin serves one PDF for every URL.
type pdfOrigin struct{ body []byte }

func (o pdfOrigin) Fetch(context.Context, string) ([]byte, string, error) {
	return o.body, "application/pdf", nil
}

func TestFetchPaperPDF(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(fixtures, "sample.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	m := testutil.Open(t, &papermem.Options{Fetcher: pdfOrigin{body}})
	const doi = "10.1000/glacier-fetch"
	mustStore(t, m, papermem.PaperInput{DOI: doi, Title: "Glaciers", SourceURL: "https://example.org/glaciers.pdf"})
	res, err := m.FetchPaper(ctx, doi)
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != "origin" || res.Warm || res.Bytes != len(body) {
		t.Errorf("fetch %+v", res)
	}
	p, err := m.Paper(ctx, doi)
	if err != nil || !p.Cached || p.Title != "Glaciers" {
		t.Fatalf("paper %+v, %v", p, err)
	}
	w := ingestWant{phrase: "The average loss was 1.8 m per year.", page: 1, section: "1 Introduction"}
	s := recallPhrase(t, m.Workspace("default"), "https://example.org/glaciers.pdf", papermem.LabelPassage, w)
	if s.Provenance.DOI != doi {
		t.Errorf("provenance %+v", s.Provenance)
	}
	res, err = m.FetchPaper(ctx, doi)
	if err != nil || !res.Warm {
		t.Errorf("second fetch %+v, %v", res, err)
	}
}

// BenchmarkIngestText measures IngestFile on plain text (extraction,
// chunking, claims, embeddings, full-text and vector indexing), in MB/s.
func BenchmarkIngestText(b *testing.B) {
	var sb strings.Builder
	for _, d := range scifactDocs(b, 2000) {
		sb.WriteString(d.Title + "\n\n" + d.Text + "\n\n")
		if sb.Len() > 1<<20 {
			break
		}
	}
	data := []byte(sb.String())
	m := mustOpen(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := m.IngestFile(ctx, "corpus.txt", bytes.NewReader(data), papermem.IngestOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIngestFrontMatter checks that a paper's front matter (the lines
// before its abstract: authors, affiliations, addresses) gives no claims,
// while its abstract and a methods section do, and that a section's
// heading helps recall find its sentences.
func TestIngestFrontMatter(t *testing.T) {
	m := mustOpen(t)
	md := "# Scam dialogues\n\nAda Lovelace† Charles Babbage‡\n\n†University of Somewhere, ‡Institute of Elsewhere\n\n{ada, charles}@example.org\n\n" +
		"## Abstract\n\nWe collect dialogues between scammers and their targets and train a model that detects scams.\n\n" +
		"## Datasets\n\n### AntiScam Dataset\n\nIt consists of 220 human-human dialogs collected on Amazon Mechanical Turk.\n\n" +
		"## Results\n\nThe model detected 80% of the scams in the held-out dialogs.\n"
	rep, err := m.IngestFile(ctx, "scam.md", strings.NewReader(md), papermem.IngestOptions{DOI: "10.1000/scam"})
	if err != nil {
		t.Fatal(err)
	}
	secs, err := m.PaperSections(ctx, "10.1000/scam")
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string][]string{}
	for _, s := range secs {
		claims[s.Title] = append(claims[s.Title], s.Claims...)
	}
	if c := claims["Scam dialogues"]; len(c) != 0 {
		t.Errorf("front matter gave claims %q", c)
	}
	if len(claims["Scam dialogues > Abstract"]) != 1 || len(claims["Scam dialogues > Datasets > AntiScam Dataset"]) != 1 {
		t.Errorf("claims by section %q (report %+v); want one in the abstract and one in the dataset's section", claims, rep)
	}
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "How big is the AntiScam dataset?", BudgetTokens: 30})
	if err != nil || len(res.Spans) == 0 || !strings.Contains(res.Spans[0].Text, "220 human-human dialogs") {
		t.Errorf("Recall = %+v, %v; want the sentence under the AntiScam Dataset heading first", res, err)
	}
}
