package bibfile

import (
	"encoding/json"
	"fmt"
	"strings"
)

// cslItem is a CSL-JSON item, the fields read.
type cslItem struct {
	ID             any       `json:"id"`
	Type           string    `json:"type"`
	Title          string    `json:"title"`
	DOI            string    `json:"DOI"`
	URL            string    `json:"URL"`
	Abstract       string    `json:"abstract"`
	ContainerTitle string    `json:"container-title"`
	Keyword        string    `json:"keyword"`
	Author         []cslName `json:"author"`
	Issued         cslDate   `json:"issued"`
	File           string    `json:"file"` // not CSL, but some exporters add it
	Files          []string  `json:"files"`
}

type cslName struct {
	Family  string `json:"family"`
	Given   string `json:"given"`
	Literal string `json:"literal"`
}

type cslDate struct {
	DateParts [][]any `json:"date-parts"`
	Raw       string  `json:"raw"`
	Literal   string  `json:"literal"`
}

// parseCSL reads a CSL-JSON array of items (or one item).
func parseCSL(b []byte) ([]Entry, error) {
	var items []cslItem
	if err := json.Unmarshal(b, &items); err != nil {
		var one cslItem
		if err1 := json.Unmarshal(b, &one); err1 != nil || strings.HasPrefix(strings.TrimSpace(string(b)), "[") {
			return nil, &Error{Format: CSLJSON, Reason: "not a CSL-JSON array of items: " + err.Error()}
		}
		items = []cslItem{one}
	}
	out := make([]Entry, 0, len(items))
	for _, it := range items {
		e := Entry{Type: it.Type, Title: it.Title, DOI: it.DOI, URL: it.URL, Abstract: it.Abstract, Venue: it.ContainerTitle,
			Tags: splitList(it.Keyword, ",")}
		switch id := it.ID.(type) {
		case string:
			e.Key = id
		case float64:
			e.Key = fmt.Sprint(id)
		}
		for _, a := range it.Author {
			name := strings.TrimSpace(a.Literal)
			if name == "" {
				name = strings.TrimSpace(a.Given + " " + a.Family)
			}
			if name != "" {
				e.Authors = append(e.Authors, name)
			}
		}
		if len(it.Issued.DateParts) > 0 && len(it.Issued.DateParts[0]) > 0 {
			e.Year = yearOf(fmt.Sprint(it.Issued.DateParts[0][0]))
		}
		if e.Year == 0 {
			e.Year = yearOf(it.Issued.Raw + " " + it.Issued.Literal)
		}
		for _, f := range append(splitList(it.File, ";"), it.Files...) {
			if p := filePath(strings.TrimSpace(f)); p != "" {
				e.Files = append(e.Files, p)
			}
		}
		out = append(out, e)
	}
	return out, nil
}
