package papermem_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testutil"
)

func TestCitation(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    papermem.Provenance
		want string
	}{
		{"Paper", papermem.Provenance{Kind: "paper", DOI: "10.1000/vitd", Title: "Vitamin D and fractures", Section: "Results", Page: 3},
			"Vitamin D and fractures, doi:10.1000/vitd, Results, p. 3"},
		{"Document", papermem.Provenance{Kind: "document", Title: "Cups", Source: "cups.xlsx", Sheet: "Winners", Row: 4},
			"Cups, cups.xlsx, sheet Winners, row 4"},
		{"DocumentSectionRepeatsTitle", papermem.Provenance{Kind: "document", Title: "Notes", Source: "notes.md", Section: "Notes > Night shifts"},
			"Notes, notes.md, Night shifts"},
		{"TitleIsFileName", papermem.Provenance{Kind: "document", Title: "cups.xlsx", Source: "cups.xlsx", Section: "Winners", Sheet: "Winners"},
			"cups.xlsx, sheet Winners"},
		{"Analysis", papermem.Provenance{Kind: "analysis", DOI: "10.1000/vitd"}, "analysis of doi:10.1000/vitd"},
		{"Memory", papermem.Provenance{Kind: "memory", Key: "style"}, `memory "style"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Citation(); got != tc.want {
				t.Errorf("Citation() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCite(t *testing.T) {
	m := mustOpen(t)
	w := m.Workspace("lab-a")
	mustStore(t, w, papermem.PaperInput{DOI: "https://doi.org/10.1000/VitD", Title: "Vitamin D and fractures",
		Authors: []string{"Jane Q. Doe", "Roe, Richard"}, Year: 2020, SourceURL: "https://example.org/vitd"})
	local := mustStore(t, w, papermem.PaperInput{Title: "The lab's notes on sleep", Authors: []string{"Aristotle"}})
	mustStore(t, m.Workspace("lab-b"), papermem.PaperInput{DOI: "10.1000/elsewhere", Title: "Another workspace's"})

	t.Run("OK", func(t *testing.T) {
		for _, tc := range []struct{ format, mediaType, want string }{
			{"", "application/x-bibtex", "@article{doe2020vitamin,\n  author = {Doe, Jane Q. and Roe, Richard},\n  title = {{Vitamin D and fractures}},\n" +
				"  year = {2020},\n  doi = {10.1000/vitd},\n  url = {https://example.org/vitd}\n}\n"},
			{"RIS", "application/x-research-info-systems", "TY  - JOUR\r\nTI  - Vitamin D and fractures\r\nAU  - Doe, Jane Q.\r\nAU  - Roe, Richard\r\n" +
				"PY  - 2020\r\nDO  - 10.1000/vitd\r\nUR  - https://example.org/vitd\r\nER  - \r\n"},
			{"csl-json", "application/vnd.citationstyles.csl+json", `"DOI": "10.1000/vitd"`},
		} {
			c, err := w.Cite(ctx, "doi:10.1000/VITD", tc.format)
			if err != nil {
				t.Fatal(err)
			}
			if c.DOI != "10.1000/vitd" || c.MediaType != tc.mediaType || !strings.Contains(c.Text, tc.want) {
				t.Errorf("Cite(%q) = %+v, want %s containing %q", tc.format, c, tc.mediaType, tc.want)
			}
		}
	})
	t.Run("LocalIDIsNoDOI", func(t *testing.T) {
		for _, f := range papermem.CitationFormats {
			c, err := w.Cite(ctx, local.DOI, f)
			if err != nil {
				t.Fatal(err)
			}
			if c.Format != f || strings.Contains(c.Text, "local:") || !strings.Contains(c.Text, "Aristotle") {
				t.Errorf("%s: %+v", f, c)
			}
		}
	})
	t.Run("JournalFromOrigins", func(t *testing.T) {
		m := openWithOrigins(t, testutil.FakeOrigins(t, nil, fallsWork))
		mustStore(t, m, papermem.PaperInput{DOI: fallsWork.DOI})
		for format, want := range map[string]string{
			papermem.CitationBibTeX:  "@article{lovelace2021vitamin,\n  author = {Lovelace, Ada and Turing, Alan},\n",
			papermem.CitationRIS:     "\r\nJO  - Journal of Bone Research\r\n",
			papermem.CitationCSLJSON: `"container-title": "Journal of Bone Research"`,
		} {
			c, err := m.Cite(ctx, fallsWork.DOI, format)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.Text, want) {
				t.Errorf("%s: want %q in\n%s", format, want, c.Text)
			}
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		_, err := w.Cite(ctx, "10.1000/vitd", "apa")
		if papermem.ErrorCode(err) != papermem.EINVALID || !strings.Contains(papermem.ErrorMessage(err), "bibtex, ris, csl-json") {
			t.Errorf("unknown format: %v", err)
		}
		if _, err := w.Cite(ctx, "not a doi", ""); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("bad DOI: %v", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, doi := range []string{"10.1000/none", "10.1000/elsewhere"} {
			if _, err := w.Cite(ctx, doi, "ris"); !errors.Is(err, papermem.ErrNotFound) {
				t.Errorf("%s: %v", doi, err)
			}
		}
	})
}
