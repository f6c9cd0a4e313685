package citation

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// works are the golden cases, by name: testdata/<name>.<ext>.golden.
var works = map[string]Work{
	"article": {DOI: "10.1000/vitd", Title: "Vitamin D and fractures: a randomised trial in UK adults",
		Authors: []string{"Jane Q. Doe", "Richard Roe"}, Year: 2020, Journal: "Journal of Bone & Mineral Research",
		Type: "journal-article", URL: "https://example.org/vitd"},
	"names": {DOI: "10.1000/names", Title: "On names",
		Authors: []string{"Doe, Jane", "Ludwig van Beethoven", "Martin Luther King Jr.", "Aristotle",
			"García Márquez, Gabriel", "  ", "Smith, Jr., John", "Barnes and Noble"},
		Year: 1999},
	"conference": {DOI: "10.1000/CONF_2021", Title: "The {Bayesian} brain: 100% of $5 #tags_here ~ ^ \\ ok",
		Authors: []string{"Ørsted, Hans Christian"}, Year: 2021, Journal: "Proceedings of NeurIPS 2021",
		Type: "Proceedings-Article", URL: "https://example.org/a b{c}"},
	"preprint": {DOI: "10.1101/2023.01.01.123456", Title: "Ångström-scale imaging\nof  synapses",
		Authors: []string{"Zoë Ångström"}, Year: 2023, Journal: "bioRxiv", Type: "posted-content"},
	"local": {DOI: "local:0123456789abcdef", Title: "The lab's notes on sleep", URL: "https://lab.example/notes.pdf"},
	"chapter": {DOI: "10.1000/ch", Title: "A chapter", Authors: []string{"Wang Wei"}, Year: 812,
		Journal: "A Book*", Type: "book-chapter"},
	"empty": {},
}

// formats are the golden files' extensions, by format.
var formats = map[string]string{FormatBibTeX: "bib", FormatRIS: "ris", FormatCSLJSON: "json"}

func TestGolden(t *testing.T) {
	for caseName, w := range works {
		for format, ext := range formats {
			t.Run(caseName+"/"+format, func(t *testing.T) {
				got, mediaType, err := Format(w, format)
				if err != nil {
					t.Fatal(err)
				}
				if mediaType != MediaType(format) || mediaType == "" {
					t.Errorf("media type %q", mediaType)
				}
				path := filepath.Join("testdata", caseName+"."+ext+".golden")
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test -update writes it)", err)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("%s differs (-want +got):\n%s", path, diff)
				}
				wellFormed(t, format, got)
			})
		}
	}
}

func TestLocalIDIsNoDOI(t *testing.T) {
	w := works["local"]
	for format := range formats {
		body, _, err := Format(w, format)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body, "local:") || strings.Contains(strings.ToLower(body), "doi") {
			t.Errorf("%s writes the local id or a DOI field:\n%s", format, body)
		}
	}
}

func TestFormatNames(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"", FormatBibTeX, true},
		{"bibtex", FormatBibTeX, true},
		{" BibTeX ", FormatBibTeX, true},
		{"RIS", FormatRIS, true},
		{"csl-json", FormatCSLJSON, true},
		{"CSL-JSON", FormatCSLJSON, true},
		{"csljson", "", false},
		{"apa", "", false},
	} {
		got, ok := Canonical(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Canonical(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		_, _, err := Format(works["article"], tc.in)
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, ErrFormat)) {
			t.Errorf("Format(%q): %v", tc.in, err)
		}
	}
	want := map[string]string{"bibtex": "application/x-bibtex", "ris": "application/x-research-info-systems",
		"csl-json": "application/vnd.citationstyles.csl+json"}
	for _, f := range Formats {
		if MediaType(f) != want[f] {
			t.Errorf("MediaType(%q) = %q, want %q", f, MediaType(f), want[f])
		}
	}
	if len(Formats) != len(want) || Formats[0] != DefaultFormat || MediaType("apa") != "" {
		t.Errorf("Formats %q, default %q", Formats, DefaultFormat)
	}
}

func TestKey(t *testing.T) {
	for _, tc := range []struct {
		w    Work
		want string
	}{
		{Work{Authors: []string{"Jane Doe"}, Year: 2020, Title: "Vitamin D and fractures"}, "doe2020vitamin"},
		{Work{Authors: []string{"Doe, Jane"}, Year: 2020, Title: "The effect of vitamin D"}, "doe2020effect"},
		{Work{Authors: []string{"Ludwig van Beethoven"}, Year: 1808, Title: "Symphony No. 5"}, "beethoven1808symphony"},
		{Work{Authors: []string{"van Beethoven, Ludwig"}, Title: "Fidelio"}, "beethovenfidelio"},
		{Work{Authors: []string{"Søren Kierkegaard"}, Year: 1843, Title: "Ægteskabets æstetiske gyldighed"}, "kierkegaard1843aegteskabets"},
		{Work{Authors: []string{"José Núñez-Ortíz"}, Title: "¿Por qué?"}, "nunezortizpor"},
		{Work{Authors: []string{"O'Brien, Pat"}, Title: "2019 novel coronavirus"}, "obriennovel"},
		{Work{Authors: []string{"Aristotle"}, Title: "On the soul"}, "aristotlesoul"},
		{Work{Authors: []string{"王伟"}, Year: 2001, Title: "A study"}, "2001study"},
		{Work{Authors: []string{"  ", "Roe, R."}, Title: "What is it"}, "roewhat"},
		{Work{Title: "The 42"}, "the"},
		{Work{Year: 2020}, "2020"},
		{Work{}, "anon"},
	} {
		if got := Key(tc.w); got != tc.want {
			t.Errorf("Key(%+v) = %q, want %q", tc.w, got, tc.want)
		}
	}
}

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want name
		ok   bool
	}{
		{"Jane Q. Doe", name{family: "Doe", given: "Jane Q."}, true},
		{"Doe, Jane Q.", name{family: "Doe", given: "Jane Q."}, true},
		{"  Doe ,  Jane  ", name{family: "Doe", given: "Jane"}, true},
		{"Aristotle", name{literal: "Aristotle"}, true},
		{"Aristotle,", name{literal: "Aristotle"}, true},
		{"Ludwig van Beethoven", name{family: "van Beethoven", given: "Ludwig"}, true},
		{"Johannes Diderik van der Waals", name{family: "van der Waals", given: "Johannes Diderik"}, true},
		{"Martin Luther King Jr.", name{family: "King", given: "Martin Luther", suffix: "Jr."}, true},
		{"Martin Luther King, Jr.", name{family: "King", given: "Martin Luther", suffix: "Jr."}, true},
		{"King, Jr., Martin Luther", name{family: "King", given: "Martin Luther", suffix: "Jr."}, true},
		{"Doe, Jane, PhD", name{family: "Doe", given: "Jane", suffix: "PhD"}, true},
		{"John III", name{family: "III", given: "John"}, true},
		{"", name{}, false},
		{" , ,", name{}, false},
	} {
		got, ok := parseName(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseName(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// risLine is a line of a RIS record without its CR LF.
var risLine = regexp.MustCompile(`^[A-Z][A-Z0-9]  - ([^\r\n]*[^\s])?$`)

// wellFormed checks the shape every rendering must have, whatever the
// work: one entry with balanced braces, one RIS record of tag lines, one
// CSL item.
func wellFormed(t *testing.T, format, body string) {
	t.Helper()
	switch format {
	case FormatBibTeX:
		if !strings.HasPrefix(body, "@") || !strings.HasSuffix(body, "\n}\n") {
			t.Fatalf("not one entry:\n%s", body)
		}
		depth := 0
		for i, r := range body {
			switch r {
			case '{':
				depth++
			case '}':
				depth--
				if depth < 0 || depth == 0 && i != len(body)-2 {
					t.Fatalf("braces close early at byte %d:\n%s", i, body)
				}
			}
		}
		if depth != 0 {
			t.Fatalf("braces unbalanced (%d):\n%s", depth, body)
		}
		if strings.Count(body, "\n") != strings.Count(body, " = {")+2 {
			t.Fatalf("a field spans lines:\n%s", body)
		}
	case FormatRIS:
		if !strings.HasPrefix(body, "TY  - ") || !strings.HasSuffix(body, "\r\nER  - \r\n") {
			t.Fatalf("not one record:\n%q", body)
		}
		lines := strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n")
		for _, l := range lines {
			if !risLine.MatchString(l) {
				t.Fatalf("line %q is not a tag line", l)
			}
		}
		if n := strings.Count(body, "\n"); n != len(lines) || strings.Count(body, "\r") != n {
			t.Fatalf("%d lines, %d LF, %d CR", len(lines), n, strings.Count(body, "\r"))
		}
	case FormatCSLJSON:
		var items []map[string]any
		if err := json.Unmarshal([]byte(body), &items); err != nil || len(items) != 1 {
			t.Fatalf("not an array of one item (%v):\n%s", err, body)
		}
		if items[0]["id"] == "" || items[0]["type"] == "" {
			t.Fatalf("no id or type: %s", body)
		}
	}
}

// FuzzFormats checks that no work makes a formatter panic or write a
// malformed entry, and that BibTeX's braces always balance. Authors are
// the lines of authors.
func FuzzFormats(f *testing.F) {
	for _, w := range works {
		f.Add(w.DOI, w.Title, strings.Join(w.Authors, "\n"), w.Year, w.Journal, w.Type, w.URL)
	}
	f.Add("10.1000/}{", "}{", "}, {\n{ and }\n, , Jr.", -1, "\\", "posted-content", "}")
	f.Add("local:", "\x00\xff\r\n", "\u200b\n\u0301", 99999, "*", "\t", "\u2028")
	f.Fuzz(func(t *testing.T, doi, title, authors string, year int, journal, typ, url string) {
		w := Work{DOI: doi, Title: title, Authors: strings.Split(authors, "\n"), Year: year, Journal: journal, Type: typ, URL: url}
		for _, format := range Formats {
			body, _, err := Format(w, format)
			if err != nil {
				t.Fatal(err)
			}
			wellFormed(t, format, body)
		}
		if k := Key(w); !regexp.MustCompile(`^[a-z0-9]+$`).MatchString(k) {
			t.Fatalf("key %q", k)
		}
	})
}
