package papermem

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/extract"
)

// Heading lines of a paper's plain or Markdown text: a Markdown heading,
// or a short numbered or named section heading standing on its own line.
var (
	mdHeading    = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	namedHeading = regexp.MustCompile(`(?i)^(\d+(\.\d+)*\.?\s+)?(abstract|introduction|background|related work|methods?|materials and methods|methodology|experiments?|results?|results and discussion|discussion|conclusions?|limitations|references|bibliography|acknowledg(e)?ments?)\s*:?\s*$`)
)

// textSections splits the plain or Markdown text a caller stores (a
// paper's text, an analysis) into sections at headings, typed by
// extract.SectionType. Text before the first heading is a section without
// a heading. Unlike extract's readers, it keeps the caller's text as it is,
// so that section offsets (runes) cite that very text: a heading may sit
// directly above its paragraph ("Abstract\nWe show…").
func textSections(text string) []extract.Section {
	var out []extract.Section
	cur := extract.Section{Type: extract.TypeBody}
	start := 0 // byte offset of cur's text
	pos := 0
	flush := func(end int) {
		body := text[start:end]
		trim := strings.TrimSpace(body)
		if trim != "" {
			lead := strings.Index(body, trim)
			cur.Text = trim
			cur.CharStart = utf8.RuneCountInString(text[:start+lead])
			cur.CharEnd = cur.CharStart + utf8.RuneCountInString(trim)
			out = append(out, cur)
		}
	}
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		line := strings.TrimSpace(text[pos:end])
		heading := ""
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			heading = m[1]
		} else if namedHeading.MatchString(line) {
			heading = strings.TrimSuffix(line, ":")
		}
		if heading != "" {
			flush(pos)
			cur = extract.Section{Heading: heading, Type: extract.SectionType(heading)}
			start = min(end+1, len(text))
		}
		pos = end + 1
	}
	flush(len(text))
	return out
}

// SectionTypes lists the section types recall can filter on: those
// extract.SectionType assigns, plus table and sheet for tabular sections.
var SectionTypes = []string{extract.TypeAbstract, extract.TypeIntroduction, extract.TypeBackground,
	extract.TypeMethods, extract.TypeResults, extract.TypeDiscussion, extract.TypeConclusion,
	extract.TypeLimitations, extract.TypeReferences, extract.TypeBody, extract.TypeTable, extract.TypeSheet}
