package citation

import (
	"bytes"
	"encoding/json"
)

// cslItem is a CSL-JSON item, its fields in the order they are written.
type cslItem struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	DOI            string    `json:"DOI,omitempty"`
	Title          string    `json:"title,omitempty"`
	Author         []cslName `json:"author,omitempty"`
	Issued         *cslDate  `json:"issued,omitempty"`
	ContainerTitle string    `json:"container-title,omitempty"`
	URL            string    `json:"URL,omitempty"`
}

type cslName struct {
	Family  string `json:"family,omitempty"`
	Given   string `json:"given,omitempty"`
	Suffix  string `json:"suffix,omitempty"`
	Literal string `json:"literal,omitempty"`
}

type cslDate struct {
	DateParts [][]int `json:"date-parts"`
}

// CSLJSON renders w as CSL-JSON, the input of citeproc processors (Zotero,
// Pandoc): an array of one item with id (Key), type (article-journal,
// paper-conference, article or document: see the package doc), DOI, title,
// author (family, given and suffix; literal for a one-word name), issued
// ({"date-parts":[[year]]}), container-title and URL, the unknown ones
// left out. The JSON is indented, HTML characters unescaped, and ends with
// a newline. It fails only if encoding/json does.
func CSLJSON(w Work) ([]byte, error) {
	item := cslItem{ID: Key(w), Type: kindOf(w.Type).csl, DOI: w.doi(), Title: clean(w.Title),
		ContainerTitle: clean(w.Journal), URL: clean(w.URL)}
	for _, n := range w.names() {
		item.Author = append(item.Author, cslName{Family: n.family, Given: n.given, Suffix: n.suffix, Literal: n.literal})
	}
	if w.Year > 0 {
		item.Issued = &cslDate{DateParts: [][]int{{w.Year}}}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode([]cslItem{item}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
