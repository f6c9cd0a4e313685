package bibfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseFile(t *testing.T, name string) []Entry {
	t.Helper()
	f, ok := FormatOf(name)
	if !ok {
		t.Fatalf("no format for %s", name)
	}
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	es, err := Parse(f, strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func TestBibTeX(t *testing.T) {
	got := parseFile(t, "zotero.bib")
	want := []Entry{
		{Key: "lovelace_glacier_2020", Type: "article", DOI: "10.1000/GLACIER.2020",
			Title:   "Glacier retreat in the Alps: a century of Ötztal data",
			Authors: []string{"Ada Lovelace", "Kurt Gödel", "World Glacier Service"}, Year: 2020, Venue: "Journal of Glaciology",
			Abstract: "We measure the retreat of alpine glaciers.", URL: "https://example.org/glacier", Tags: []string{"glaciers", "climate"},
			Files: []string{"files/12/Lovelace - 2020 - Glacier retreat.pdf", "files/13/snapshot.html"}},
		{Key: "noether_rings_2019", Type: "inproceedings", Title: "Rings and ideals", Authors: []string{"Emmy Noether"}, Year: 2019,
			Venue: "Proceedings of Algebra", Files: []string{"/home/ada/Zotero/storage/ABCD1234/rings.pdf", `files/14/C:\papers\x.pdf`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestRIS(t *testing.T) {
	got := parseFile(t, "zotero.ris")
	want := []Entry{
		{Type: "JOUR", DOI: "10.1000/glacier.2020", Title: "Glacier retreat in the Alps", Authors: []string{"Ada Lovelace", "Kurt Gödel"},
			Year: 2020, Venue: "Journal of Glaciology", Abstract: "We measure the retreat of alpine glaciers.", URL: "https://example.org/glacier",
			Tags: []string{"glaciers", "climate"}, Files: []string{"files/12/Lovelace - 2020 - Glacier retreat.pdf", "/home/ada/papers/a b.pdf"}},
		{Type: "BOOK", Title: "Rings and ideals", Authors: []string{"Emmy Noether"}, Year: 2019},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestCSLJSON(t *testing.T) {
	got := parseFile(t, "zotero.json")
	want := []Entry{
		{Key: "http://zotero.org/users/4242/items/ABCD1234", Type: "article-journal", DOI: "10.1000/glacier.2020", Title: "Glacier retreat in the Alps",
			Authors: []string{"Ada Lovelace", "World Glacier Service"}, Year: 2020, Venue: "Journal of Glaciology",
			Abstract: "We measure the retreat of alpine glaciers.", Tags: []string{"glaciers", "climate"}},
		{Key: "7", Type: "book", Title: "Rings and ideals", Authors: []string{"Emmy Noether"}, Year: 2019},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestManifest(t *testing.T) {
	got := parseFile(t, "manifest.csv")
	want := []Entry{
		{Key: "glacier.pdf", DOI: "10.1000/glacier.2020", Title: "Glacier retreat in the Alps", Tags: []string{"glaciers", "climate"}, Files: []string{"glacier.pdf"}},
		{Key: "sub/rings, ideals.pdf", Title: "Rings and ideals", Files: []string{"sub/rings, ideals.pdf"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Format
		in   string
	}{
		{"BibTeXUnclosed", BibTeX, "@article{a, title = {open"},
		{"BibTeXNoEquals", BibTeX, "@article{a, title {x}}"},
		{"RISNoER", RIS, "TY  - JOUR\nTI  - x\n"},
		{"RISOutside", RIS, "TI  - x\n"},
		{"CSLNotArray", CSLJSON, `[{"title": 3}]`},
		{"ManifestNoFile", Manifest, "doi,title\n10.1/x,y\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse(c.f, strings.NewReader(c.in)); err == nil {
				t.Errorf("no error for %q", c.in)
			} else if _, ok := err.(*Error); !ok {
				t.Errorf("error %T %v, want *Error", err, err)
			}
		})
	}
}

func TestLatex(t *testing.T) {
	for in, want := range map[string]string{
		`Schr\"{o}dinger`:      "Schrödinger",
		`Schr\"odinger`:        "Schrödinger",
		`{\'E}cole`:            "École",
		`Ca\c{c}a`:             "Caça",
		`Stra\ss e`:            "Straße",
		`A \& B 50\%`:          "A & B 50%",
		`\emph{Deep} learning`: "Deep learning",
		`Na\"{\i}ve`:           "Naïve",
		`Erd\H{o}s~Pal`:        "Erdős Pal",
	} {
		if got := latex(in); got != want {
			t.Errorf("latex(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"zotero.bib", "zotero.ris", "zotero.json", "manifest.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`@string{j = "J"} @article{k, journal = j # " X", title = "a {"} b"}`)
	f.Fuzz(func(t *testing.T, in string) {
		for _, format := range []Format{BibTeX, RIS, CSLJSON, Manifest} {
			es, err := Parse(format, strings.NewReader(in))
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("%s: error %T %v, want *Error", format, err, err)
				}
				continue
			}
			for _, e := range es {
				if e.Year < 0 || e.Year > 9999 {
					t.Fatalf("%s: year %d", format, e.Year)
				}
			}
		}
	})
}
