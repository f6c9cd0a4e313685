package papermem

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// headingLine matches a Markdown heading or a short numbered or named
// section heading standing on its own line.
var (
	mdHeading    = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	namedHeading = regexp.MustCompile(`(?i)^(\d+(\.\d+)*\.?\s+)?(abstract|introduction|background|related work|methods?|materials and methods|methodology|experiments?|results?|results and discussion|discussion|conclusions?|limitations|references|bibliography|acknowledg(e)?ments?)\s*:?\s*$`)
)

// textSections splits plain or Markdown text into sections at headings.
// Text before the first heading is a section without a heading.
func textSections(text string) []section {
	var out []section
	cur := section{Type: "body"}
	start := 0 // byte offset of cur's text
	pos := 0
	flush := func(end int) {
		body := text[start:end]
		trim := strings.TrimSpace(body)
		if trim != "" {
			lead := strings.Index(body, trim)
			cur.Text = trim
			cur.CharStart = utf8.RuneCountInString(text[:start+lead])
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
			cur = section{Heading: heading, Type: SectionType(heading)}
			start = min(end+1, len(text))
		}
		pos = end + 1
	}
	flush(len(text))
	return out
}

// SectionTypes lists the section types recall can filter on.
var SectionTypes = []string{"abstract", "introduction", "background", "methods", "results",
	"discussion", "conclusion", "limitations", "references", "body", "table", "sheet"}

var sectionCues = []struct {
	typ string
	re  *regexp.Regexp
}{
	{"abstract", regexp.MustCompile(`(?i)\b(abstract|summary)\b`)},
	{"introduction", regexp.MustCompile(`(?i)\b(introduction|overview|motivation)\b`)},
	{"background", regexp.MustCompile(`(?i)\b(background|related work|prior work|preliminaries|literature)\b`)},
	{"methods", regexp.MustCompile(`(?i)\b(methods?|methodology|materials|experimental setup|experiments?|approach|model|data(set)?s?|implementation|study design|procedure)\b`)},
	{"results", regexp.MustCompile(`(?i)\b(results?|findings|evaluation|analysis|performance)\b`)},
	{"discussion", regexp.MustCompile(`(?i)\b(discussion)\b`)},
	{"conclusion", regexp.MustCompile(`(?i)\b(conclusions?|concluding|future work|summary and)\b`)},
	{"limitations", regexp.MustCompile(`(?i)\b(limitations?|threats to validity|caveats)\b`)},
	{"references", regexp.MustCompile(`(?i)\b(references|bibliography|works cited|citations)\b`)},
}

// SectionType types a section from its heading: one of SectionTypes, "body"
// when no cue matches.
func SectionType(heading string) string {
	for _, c := range sectionCues {
		if c.re.MatchString(heading) {
			return c.typ
		}
	}
	return "body"
}
