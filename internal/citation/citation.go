// Package citation renders the bibliographic record of a work as a
// reference in BibTeX, RIS or CSL-JSON. It reads only the Work it is given:
// no network, no lookup.
//
// The formats (Formats lists them, the default first):
//
//	bibtex    application/x-bibtex                      one entry: @article, @inproceedings or @misc
//	ris       application/x-research-info-systems       one record, TY first and ER last, lines ending CRLF
//	csl-json  application/vnd.citationstyles.csl+json   a JSON array of one CSL item
//
// The work's type (Work.Type: Crossref's type, or OpenAlex's; case and
// surrounding space ignored) chooses the kind of entry:
//
//	Work.Type                                      BibTeX          RIS    CSL
//	"", journal-article, article, article-journal  @article        JOUR   article-journal
//	proceedings-article, paper-conference          @inproceedings  CONF   paper-conference
//	posted-content, preprint                       @misc           GEN    article
//	anything else (book-chapter, dataset, …)       @misc           GEN    document
//
// Work.Journal is the container: BibTeX's journal, booktitle or
// howpublished, RIS's JO (T2 for other kinds), CSL's container-title. An
// id of the form "local:…" (a paper stored without a DOI) is never written
// as a DOI. Empty fields are left out; a Work with nothing set still gives
// a well-formed entry.
package citation

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Work is the bibliographic record of a paper. The zero value of each
// field means unknown, and is left out.
type Work struct {
	DOI     string   // e.g. "10.1000/xyz"; a "local:…" id is no DOI
	Title   string   // as published; its capitalisation is kept
	Authors []string // display names: "Jane Q. Doe", "Doe, Jane", "Doe, Jr., Jane" or one word ("Aristotle")
	Year    int      // of publication; 0 or less is unknown
	Journal string   // the container: journal, proceedings or preprint server
	Type    string   // Crossref's (or OpenAlex's) work type; see the package doc
	URL     string   // where the work can be read
}

// The formats Format renders.
const (
	FormatBibTeX  = "bibtex"
	FormatRIS     = "ris"
	FormatCSLJSON = "csl-json"

	// DefaultFormat is the format of an empty format name.
	DefaultFormat = FormatBibTeX
)

// Formats lists the format names, the default first.
var Formats = []string{FormatBibTeX, FormatRIS, FormatCSLJSON}

// mediaTypes are the formats' media types.
var mediaTypes = map[string]string{
	FormatBibTeX:  "application/x-bibtex",
	FormatRIS:     "application/x-research-info-systems",
	FormatCSLJSON: "application/vnd.citationstyles.csl+json",
}

// ErrFormat is Format's error for a name that is not one of Formats.
var ErrFormat = errors.New("unknown citation format")

// Canonical returns the format s names, ignoring case and surrounding
// space ("" names DefaultFormat), and whether it is one of Formats.
func Canonical(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return DefaultFormat, true
	}
	_, ok := mediaTypes[s]
	return s, ok
}

// MediaType returns the media type of format (a name of Formats), or ""
// for any other name.
func MediaType(format string) string { return mediaTypes[format] }

// Format renders w in format (see Canonical) and returns the text with its
// media type. A format not in Formats is ErrFormat.
func Format(w Work, format string) (body, mediaType string, err error) {
	f, ok := Canonical(format)
	if !ok {
		return "", "", ErrFormat
	}
	switch f {
	case FormatRIS:
		body = RIS(w)
	case FormatCSLJSON:
		b, err := CSLJSON(w)
		if err != nil {
			return "", "", err
		}
		body = string(b)
	default:
		body = BibTeX(w)
	}
	return body, mediaTypes[f], nil
}

// kind is a work type's entry type in each format.
type kind struct {
	bibtex    string // entry type
	container string // BibTeX field of the container
	ris       string // TY
	csl       string // type
}

var (
	articleKind    = kind{"article", "journal", "JOUR", "article-journal"}
	conferenceKind = kind{"inproceedings", "booktitle", "CONF", "paper-conference"}
	preprintKind   = kind{"misc", "howpublished", "GEN", "article"}
	otherKind      = kind{"misc", "howpublished", "GEN", "document"}
)

// kinds are the work types with a kind of their own; any other is
// otherKind.
var kinds = map[string]kind{
	"": articleKind, "journal-article": articleKind, "article": articleKind, "article-journal": articleKind,
	"proceedings-article": conferenceKind, "paper-conference": conferenceKind,
	"posted-content": preprintKind, "preprint": preprintKind,
}

func kindOf(typ string) kind {
	if k, ok := kinds[strings.ToLower(strings.TrimSpace(typ))]; ok {
		return k
	}
	return otherKind
}

// doi is w's DOI, cleaned, or "" for none or a local id.
func (w Work) doi() string {
	d := clean(w.DOI)
	if strings.HasPrefix(strings.ToLower(d), "local:") {
		return ""
	}
	return d
}

// names are w's authors parsed, blank ones left out.
func (w Work) names() []name {
	var out []name
	for _, a := range w.Authors {
		if n, ok := parseName(a); ok {
			out = append(out, n)
		}
	}
	return out
}

// clean makes s one line: invalid UTF-8 replaced, control characters and
// runs of white space made one space, ends trimmed.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// name is an author's name in parts: family and given (and a suffix such
// as "Jr."), or literal for a name of one word.
type name struct {
	family, given, suffix string
	literal               string
}

// suffixes are the generational suffixes a name may end with, lower case,
// without a trailing dot.
var suffixes = map[string]bool{"jr": true, "sr": true, "ii": true, "iii": true, "iv": true}

func isSuffix(s string) bool { return suffixes[strings.TrimSuffix(strings.ToLower(s), ".")] }

// isParticle reports whether word is a lower-case particle of a family
// name ("van", "de", "von"): as BibTeX reads a name, a word that starts
// with a lower-case letter, but not "and", which BibTeX reads as between
// two names.
func isParticle(word string) bool {
	r, _ := utf8.DecodeRuneInString(word)
	return unicode.IsLower(r) && word != "and"
}

// parseName splits display name s: "Family, Given", "Family, Suffix,
// Given", or "Given Family" where the family name takes the lower-case
// particles before the last word ("Ludwig van Beethoven") and a
// generational suffix may end the name ("Martin Luther King Jr."). A name
// of one word is literal. It reports false for a name of nothing but
// spaces and commas.
func parseName(s string) (name, bool) {
	s = clean(s)
	if s == "" {
		return name{}, false
	}
	var parts []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	switch {
	case len(parts) == 0:
		return name{}, false // commas only
	case len(parts) == 2 && isSuffix(parts[1]) && strings.Contains(parts[0], " "):
		// "Martin Luther King, Jr.": a display name and its suffix.
		n := displayName(parts[0])
		n.suffix = parts[1]
		return n, true
	case len(parts) == 2:
		return name{family: parts[0], given: parts[1]}, true
	case len(parts) >= 3 && isSuffix(parts[1]):
		return name{family: parts[0], suffix: parts[1], given: strings.Join(parts[2:], ", ")}, true
	case len(parts) >= 3:
		return name{family: parts[0], given: parts[1], suffix: strings.Join(parts[2:], ", ")}, true
	}
	return displayName(parts[0]), true
}

// displayName splits a name without commas.
func displayName(s string) name {
	words := strings.Fields(s)
	var suffix string
	if len(words) > 2 && isSuffix(words[len(words)-1]) {
		suffix, words = words[len(words)-1], words[:len(words)-1]
	}
	if len(words) == 1 {
		return name{literal: words[0]}
	}
	i := len(words) - 1
	for i > 1 && isParticle(words[i-1]) {
		i--
	}
	return name{family: strings.Join(words[i:], " "), given: strings.Join(words[:i], " "), suffix: suffix}
}
