package citation

import (
	"fmt"
	"strings"
)

// RIS renders w as one RIS record, as the RIS specification writes it:
// "TY  - JOUR" first (CONF, GEN: see the package doc), then TI, one AU a
// author ("Family, Given" or "Family, Given, Suffix"; a one-word name
// alone), PY (the year, four digits), JO (T2 for other kinds than
// articles: the proceedings, the preprint server), DO and UR, and
// "ER  - " last; every line, the last too, ends with CR LF. Values are one
// line each; the asterisks the specification forbids in names and
// periodical names are dropped there.
func RIS(w Work) string {
	k := kindOf(w.Type)
	var b strings.Builder
	tag := func(tag, value string) {
		if value = clean(value); value != "" {
			b.WriteString(tag + "  - " + value + "\r\n")
		}
	}
	tag("TY", k.ris)
	tag("TI", w.Title)
	for _, n := range w.names() {
		tag("AU", noStars(n.ris()))
	}
	if w.Year > 0 {
		tag("PY", fmt.Sprintf("%04d", w.Year))
	}
	container := "T2"
	if k == articleKind {
		container = "JO"
	}
	tag(container, noStars(w.Journal))
	tag("DO", w.doi())
	tag("UR", w.URL)
	b.WriteString("ER  - \r\n")
	return b.String()
}

// ris writes n for an AU tag.
func (n name) ris() string {
	if n.literal != "" {
		return n.literal
	}
	s := n.family
	if n.given != "" {
		s += ", " + n.given
	}
	if n.suffix != "" {
		s += ", " + n.suffix
	}
	return s
}

func noStars(s string) string { return strings.ReplaceAll(s, "*", "") }
