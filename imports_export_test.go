package papermem_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testutil"
)

// writeExport writes a Zotero-style export, name in dir, with its files/
// folder: files maps paths to contents.
func writeExport(t *testing.T, dir, name, body string, files map[string][]byte) []byte {
	t.Helper()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return []byte(body)
}

const libraryBib = `@article{lovelace_glacier_2020,
	title = {Glacier retreat in the {Alps}},
	doi = {10.1000/glacier.2020},
	journal = {Journal of Glaciology},
	author = {Lovelace, Ada and Noether, Emmy},
	year = {2020},
	keywords = {glaciers, climate},
	file = {Full Text PDF:files/12/Lovelace - 2020 - Glacier.pdf:application/pdf;Snapshot:files/13/snap.html:text/html},
}

@book{noether_rings_2019,
	title = {Rings and ideals in commutative algebra},
	author = {Noether, Emmy},
	year = {2019},
	abstract = {Ascending chain conditions on ideals of commutative rings.},
	keywords = {algebra},
}

@misc{escape_2021,
	title = {An escaping attachment},
	doi = {10.1000/escape},
	file = {../secret.pdf;/etc/passwd.pdf},
}
`

func TestImportExport(t *testing.T) {
	m := mustOpen(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "My Library")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(dir, "secret.pdf"), testutil.PDF("Secret moraine sediments outside the export."), 0o644)
	data := writeExport(t, lib, "My Library.bib", libraryBib, map[string][]byte{
		"files/12/Lovelace - 2020 - Glacier.pdf": testutil.PDF("Glacier retreat in the Alps",
			"Moraine sediments show that the Rhone glacier lost forty percent of its ice mass since 1850."),
		"files/13/snap.html": []byte("<html>snapshot</html>"),
	})
	req := papermem.ImportRequest{Name: "My Library.bib", Data: data, Dir: lib}
	im, err := m.RunImport(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if im.Status != papermem.ImportDone || im.Source != papermem.ImportBibTeX || im.Items != 3 || im.Papers != 2 || im.Documents != 1 || len(im.Errors) != 1 {
		t.Fatalf("import %+v", im)
	}
	if im.Errors[0].Item != "escape_2021" || im.Errors[0].Code != papermem.EINVALID {
		t.Errorf("the escaping attachment's error: %+v", im.Errors[0])
	}

	t.Run("Paper", func(t *testing.T) {
		p, err := m.Paper(ctx, "10.1000/glacier.2020")
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != "Glacier retreat in the Alps" || p.Year != 2020 || p.Journal != "Journal of Glaciology" || !p.Cached ||
			!slices.Equal(p.Tags, []string{"climate", "glaciers"}) || p.Source != "bibtex:My Library.bib" || len(p.Authors) != 2 {
			t.Errorf("paper %+v", p)
		}
		page, err := m.ListPapers(ctx, papermem.PaperQuery{Tag: "algebra"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Papers) != 1 || page.Papers[0].Title != "Rings and ideals in commutative algebra" {
			t.Errorf("tagged algebra: %+v", page.Papers)
		}
	})
	t.Run("RecallWithDOI", func(t *testing.T) {
		res, err := m.Recall(ctx, papermem.RecallRequest{Question: "How much ice did the Rhone glacier lose since 1850?", Label: papermem.LabelAny})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/glacier.2020" {
			t.Fatalf("spans %+v", res.Spans)
		}
		for _, s := range res.Spans {
			if s.Provenance.DOI == "" && s.Provenance.Kind == papermem.KindPaper {
				t.Errorf("a span of a paper without its DOI: %+v", s)
			}
		}
		for _, tags := range [][]string{{"algebra"}, {"nowhere"}} {
			res, err := m.Recall(ctx, papermem.RecallRequest{Question: "How much ice did the Rhone glacier lose since 1850?", Label: papermem.LabelAny, Tags: tags})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range res.Spans {
				if s.Provenance.DOI == "10.1000/glacier.2020" {
					t.Errorf("recall scoped to tags %v returned the glacier paper", tags)
				}
			}
		}
		res, err = m.Recall(ctx, papermem.RecallRequest{Question: "How much ice did the Rhone glacier lose since 1850?", Label: papermem.LabelAny, Tags: []string{"climate"}})
		if err != nil || len(res.Spans) == 0 {
			t.Errorf("recall scoped to tag climate: %v, %v", res, err)
		}
		ps, err := m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "glacier retreat", Tags: []string{"algebra"}})
		if err != nil || len(ps) != 0 {
			t.Errorf("papers recalled within tag algebra: %+v, %v", ps, err)
		}
		ps, err = m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "glacier retreat", Tags: []string{"glaciers"}})
		if err != nil || len(ps) != 1 {
			t.Errorf("papers recalled within tag glaciers: %+v, %v", ps, err)
		}
	})
	t.Run("ReimportChangesNothing", func(t *testing.T) {
		im, err := m.RunImport(ctx, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if im.Papers != 0 || im.Documents != 0 || im.Skipped != 2 || len(im.Errors) != 1 {
			t.Errorf("second import %+v", im)
		}
		all, err := m.Imports(ctx, 0)
		if err != nil || len(all) != 2 || all[0].ID != im.ID {
			t.Errorf("imports %+v, %v", all, err)
		}
	})
	t.Run("Upload", func(t *testing.T) {
		// Without a folder no attached file is read, and none escapes.
		m := mustOpen(t)
		im, err := m.RunImport(ctx, papermem.ImportRequest{Name: "My Library.bib", Data: data}, nil)
		if err != nil || im.Papers != 3 || im.Documents != 0 || len(im.Errors) != 0 {
			t.Errorf("import without files: %+v, %v", im, err)
		}
	})
	t.Run("ErrBadFile", func(t *testing.T) {
		for _, c := range []struct {
			req  papermem.ImportRequest
			code string
		}{
			{papermem.ImportRequest{Name: "lib.bib", Data: []byte("@article{x, title = {open")}, papermem.EINVALID},
			{papermem.ImportRequest{Name: "lib.docx", Data: []byte("x")}, papermem.EUNSUPPORTED},
			{papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/1"}, papermem.EINVALID}, // no key
			{papermem.ImportRequest{Source: papermem.ImportZotero, Library: "me", APIKey: "k"}, papermem.EINVALID},
		} {
			if _, err := m.StartImport(ctx, c.req); papermem.ErrorCode(err) != c.code {
				t.Errorf("%+v: %v, want %s", c.req, err, c.code)
			}
		}
	})
}

func TestImportFormats(t *testing.T) {
	dir := t.TempDir()
	pdf := testutil.PDF("Permafrost thaw releases methane from Siberian lakes at rising rates.")
	for _, c := range []struct{ name, body string }{
		{"lib.ris", "TY  - JOUR\nTI  - Permafrost methane\nDO  - 10.1000/permafrost\nKW  - arctic\nL1  - files/1/p.pdf\nER  - \n"},
		{"lib.json", `[{"id": "p1", "type": "article-journal", "title": "Permafrost methane", "DOI": "10.1000/permafrost", "keyword": "arctic"}]`},
		{"manifest.csv", "file,doi,title\nfiles/1/p.pdf,10.1000/permafrost,Permafrost methane\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustOpen(t)
			data := writeExport(t, dir, c.name, c.body, map[string][]byte{"files/1/p.pdf": pdf})
			im, err := m.RunImport(ctx, papermem.ImportRequest{Name: c.name, Data: data, Dir: dir}, nil)
			if err != nil || im.Status != papermem.ImportDone || im.Papers != 1 || len(im.Errors) != 0 {
				t.Fatalf("import %+v, %v", im, err)
			}
			p, err := m.Paper(ctx, "10.1000/permafrost")
			if err != nil || p.Title != "Permafrost methane" {
				t.Fatalf("paper %+v, %v", p, err)
			}
			if c.name != "lib.json" {
				res, err := m.Recall(ctx, papermem.RecallRequest{Question: "methane from Siberian lakes", Label: papermem.LabelAny})
				if err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/permafrost" {
					t.Errorf("recall %+v, %v", res, err)
				}
			}
		})
	}
}

// TestRecallScopeManyPapers scopes a recall to a tag on more papers than
// one query takes parameters for in a batch.
func TestRecallScopeManyPapers(t *testing.T) {
	m := mustOpen(t)
	var b strings.Builder
	b.WriteString("[")
	for i := range 1200 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"p%d","title":"Moraine study %d","DOI":"10.1000/moraine.%d","keyword":"bulk","abstract":"Moraine sediments of glacier %d record its retreat."}`, i, i, i, i)
	}
	b.WriteString("]")
	im, err := m.RunImport(ctx, papermem.ImportRequest{Name: "bulk.json", Data: []byte(b.String())}, nil)
	if err != nil || im.Papers != 1200 {
		t.Fatalf("import %+v, %v", im, err)
	}
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "What do moraine sediments record?", Label: papermem.LabelAny, Tags: []string{"bulk"}})
	if err != nil || len(res.Spans) == 0 {
		t.Errorf("recall within a tag of 1,200 papers: %+v, %v", res, err)
	}
}
