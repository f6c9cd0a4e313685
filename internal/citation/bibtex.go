package citation

import (
	"regexp"
	"strconv"
	"strings"
)

// BibTeX renders w as one BibTeX entry, keyed by Key:
//
//	@article{doe2020vitamin,
//	  author = {Doe, Jane Q. and Roe, Richard},
//	  title = {{Vitamin D and fractures}},
//	  journal = {Journal of Bone Research},
//	  year = {2020},
//	  doi = {10.1000/vitd},
//	  url = {https://example.org/vitd}
//	}
//
// Authors are "Family, Given" ("Family, Suffix, Given"), a one-word name
// in braces; the title is in a second pair of braces, so that styles keep
// its capitalisation. In text fields & % $ # _ are escaped with a
// backslash and \ ~ ^ { } written as commands (\textbraceleft{} …):
// BibTeX counts even escaped braces, so the entry's braces always balance.
// doi and url are verbatim (biblatex reads them so), with { } \ and spaces
// percent-encoded. Non-ASCII text is kept as UTF-8.
func BibTeX(w Work) string {
	k := kindOf(w.Type)
	var fields [][2]string
	add := func(field, value string) {
		if value != "" {
			fields = append(fields, [2]string{field, value})
		}
	}
	var authors []string
	for _, n := range w.names() {
		authors = append(authors, n.bibtex())
	}
	add("author", strings.Join(authors, " and "))
	if t := texEscape(w.Title); t != "" {
		add("title", "{"+t+"}")
	}
	add(k.container, texEscape(w.Journal))
	if w.Year > 0 {
		add("year", strconv.Itoa(w.Year))
	}
	add("doi", verbatim(w.doi()))
	add("url", verbatim(clean(w.URL)))

	var b strings.Builder
	b.WriteString("@" + k.bibtex + "{" + Key(w))
	for _, f := range fields {
		b.WriteString(",\n  " + f[0] + " = {" + f[1] + "}")
	}
	b.WriteString("\n}\n")
	return b.String()
}

// bibtex writes n for an author field.
func (n name) bibtex() string {
	if n.literal != "" {
		return "{" + texEscape(n.literal) + "}"
	}
	parts := []string{texPart(n.family)}
	if n.suffix != "" {
		parts = append(parts, texPart(n.suffix))
	}
	if n.given != "" {
		parts = append(parts, texPart(n.given))
	}
	return strings.Join(parts, ", ")
}

// andWord finds "and" as a word, which would split an author field.
var andWord = regexp.MustCompile(`(?i)(^|\s)and(\s|$)`)

// texPart escapes a part of a name, in braces when it holds the word
// "and" or a comma, which would split the field or the name.
func texPart(s string) string {
	s = texEscape(s)
	if andWord.MatchString(s) || strings.Contains(s, ",") {
		return "{" + s + "}"
	}
	return s
}

// texCommands spell the characters TeX or BibTeX would read as syntax.
var texCommands = map[rune]string{
	'&': `\&`, '%': `\%`, '$': `\$`, '#': `\#`, '_': `\_`,
	'{': `\textbraceleft{}`, '}': `\textbraceright{}`, '\\': `\textbackslash{}`,
	'~': `\textasciitilde{}`, '^': `\textasciicircum{}`,
}

// texEscape cleans s (one line) and escapes it for a BibTeX text field.
func texEscape(s string) string {
	var b strings.Builder
	for _, r := range clean(s) {
		if c, ok := texCommands[r]; ok {
			b.WriteString(c)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// verbatimEscapes percent-encode what a verbatim field cannot hold.
var verbatimEscapes = strings.NewReplacer("{", "%7B", "}", "%7D", `\`, "%5C", " ", "%20")

// verbatim readies s (already clean) for a doi or url field.
func verbatim(s string) string { return verbatimEscapes.Replace(s) }
