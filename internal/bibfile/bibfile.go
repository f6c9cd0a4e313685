// Package bibfile reads the files a reference manager exports: BibTeX
// (Zotero's and Better BibTeX's), RIS, CSL-JSON, and a CSV manifest of a
// plain folder of PDFs. Each becomes a list of Entry, the works with
// their metadata and the paths of their attached files as the export
// wrote them; resolving those paths (relative to the export's folder,
// never outside it) is the importer's concern.
//
// Formatting citations is internal/citation's; this package only parses.
package bibfile

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// Format is an export format.
type Format string

// The formats Parse reads.
const (
	BibTeX   Format = "bibtex"
	RIS      Format = "ris"
	CSLJSON  Format = "csl-json"
	Manifest Format = "manifest"
)

// FormatOf returns the format of a file by its extension: .bib, .ris,
// .json, .csv.
func FormatOf(name string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".bib", ".bibtex":
		return BibTeX, true
	case ".ris":
		return RIS, true
	case ".json":
		return CSLJSON, true
	case ".csv":
		return Manifest, true
	}
	return "", false
}

// Entry is one work of an export.
type Entry struct {
	Key      string   // the cite key, RIS ID, CSL id or manifest file; may be empty
	Type     string   // the export's type of work (article, JOUR, article-journal, …)
	DOI      string   // as written; empty when none
	Title    string   // plain text
	Authors  []string // "Given Family", in order
	Year     int      // 0 when unknown
	Venue    string   // journal or proceedings
	Abstract string
	URL      string
	Tags     []string // keywords
	Files    []string // attached files' paths as written, slashes as in the file
}

// MaxEntries bounds the entries of one file.
const MaxEntries = 100_000

// Error is a malformed export: Line is the 1-based line of the fault (0
// when unknown).
type Error struct {
	Format Format
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d: %s", e.Format, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Format, e.Reason)
}

// Parse reads an export of format f. Entries without a title, a DOI or a
// file are left out. Errors: *Error for malformed input; r's errors.
func Parse(f Format, r io.Reader) ([]Entry, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var es []Entry
	switch f {
	case BibTeX:
		es, err = parseBibTeX(string(b))
	case RIS:
		es, err = parseRIS(string(b))
	case CSLJSON:
		es, err = parseCSL(b)
	case Manifest:
		es, err = parseManifest(b)
	default:
		return nil, &Error{Format: f, Reason: "unknown format"}
	}
	if err != nil {
		return nil, err
	}
	out := es[:0]
	for _, e := range es {
		e.Title = strings.Join(strings.Fields(e.Title), " ")
		e.DOI = strings.TrimSpace(e.DOI)
		if e.Title != "" || e.DOI != "" || len(e.Files) > 0 {
			out = append(out, e)
		}
	}
	if len(out) > MaxEntries {
		return nil, &Error{Format: f, Reason: fmt.Sprintf("more than %d entries", MaxEntries)}
	}
	return out, nil
}

// yearOf returns the first four-digit year in s, 0 when none.
func yearOf(s string) int {
	for i := 0; i+4 <= len(s); i++ {
		if i > 0 && isDigit(s[i-1]) {
			continue
		}
		if isDigit(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) && (i+4 == len(s) || !isDigit(s[i+4])) {
			y, _ := strconv.Atoi(s[i : i+4])
			return y
		}
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// splitList splits a keyword list on sep, trimmed, without empties.
func splitList(s string, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
