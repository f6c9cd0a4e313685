package api

import (
	"fmt"
	"strings"
)

// Citation renders the provenance as a reference a reader can follow: the
// title and DOI of a paper (the file for a document, the key for a
// memory), then the section, page, sheet and row that are known, e.g.
// "Vitamin D and fractures, doi:10.1000/vitd, Results, p. 3".
func (p Provenance) Citation() string {
	var parts []string
	add := func(format string, v any) { parts = append(parts, fmt.Sprintf(format, v)) }
	switch p.Kind {
	case KindAnalysis:
		add("analysis of doi:%s", p.DOI)
	case KindMemory:
		add("memory %q", p.Key)
	default:
		if p.Title != "" {
			parts = append(parts, p.Title)
		}
		if p.DOI != "" {
			add("doi:%s", p.DOI)
		} else if p.Source != "" && p.Source != p.Title {
			add("%s", p.Source)
		}
	}
	if p.Section != "" && p.Section != p.Title && p.Section != p.Sheet {
		parts = append(parts, strings.TrimPrefix(strings.TrimPrefix(p.Section, p.Title), " > "))
	}
	if p.Page > 0 {
		add("p. %d", p.Page)
	}
	if p.Sheet != "" {
		add("sheet %s", p.Sheet)
	}
	if p.Row > 0 {
		add("row %d", p.Row)
	}
	if p.Retracted {
		parts = append(parts, "RETRACTED")
	}
	return strings.Join(parts, ", ")
}
