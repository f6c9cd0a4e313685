package extract

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// maxSectionRunes is the size past which a run of paragraphs under one
// heading is split into several sections.
const maxSectionRunes = 4000

// decodeText turns file bytes into UTF-8: BOMs (UTF-8, UTF-16, UTF-32) are
// honoured, BOM-less UTF-16 is detected from its zero bytes, and input
// that is not valid UTF-8 is read as Windows-1252 (a superset of the
// printable Latin-1). Binary input fails with ErrInvalid.
func decodeText(f Format, data []byte) (string, error) {
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(data, []byte{0xef, 0xbb, 0xbf}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xff, 0xfe, 0, 0}):
		enc = utf32.UTF32(utf32.LittleEndian, utf32.ExpectBOM)
	case bytes.HasPrefix(data, []byte{0, 0, 0xfe, 0xff}):
		enc = utf32.UTF32(utf32.BigEndian, utf32.ExpectBOM)
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		enc = xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM)
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		enc = xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM)
	default:
		switch guessUTF16(data) {
		case 'B':
			enc = xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM)
		case 'L':
			enc = xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM)
		}
	}
	var s string
	if enc != nil {
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil {
			return "", invalidf(f, "cannot decode text: %v", err)
		}
		s = string(out)
	} else if mostlyUTF8(data) {
		s = string(data)
	} else {
		out, err := charmap.Windows1252.NewDecoder().Bytes(data)
		if err != nil {
			return "", invalidf(f, "cannot decode text: %v", err)
		}
		s = string(out)
	}
	if isBinary(s) {
		return "", invalidf(f, "binary data, not text")
	}
	return s, nil
}

// guessUTF16 recognises BOM-less UTF-16 by its zero bytes: 'B' for big
// endian, 'L' for little endian, 0 for neither.
func guessUTF16(data []byte) byte {
	n := len(data)
	if n > 4096 {
		n = 4096
	}
	n &^= 1
	if n < 4 {
		return 0
	}
	even, odd := 0, 0
	for i := 0; i < n; i += 2 {
		if data[i] == 0 {
			even++
		}
		if data[i+1] == 0 {
			odd++
		}
	}
	pairs := n / 2
	switch {
	case even*10 >= pairs*3 && odd*20 <= pairs:
		return 'B'
	case odd*10 >= pairs*3 && even*20 <= pairs:
		return 'L'
	}
	return 0
}

// mostlyUTF8 reports whether data is UTF-8 but for a few stray bytes (a
// truncated last rune, say): valid multi-byte sequences outnumber invalid
// bytes four to one, or there are no invalid bytes at all.
func mostlyUTF8(data []byte) bool {
	if utf8.Valid(data) {
		return true
	}
	good, bad := 0, 0
	for i := 0; i < len(data); {
		if data[i] < 0x80 {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			bad++
		} else {
			good++
		}
		i += size
	}
	return good >= 4*bad && good > 0
}

// isBinary reports text with many control characters (NULs, escapes
// other than tabs, newlines, form feeds and ANSI colour codes).
func isBinary(s string) bool {
	total, ctrl := 0, 0
	for i, r := range s {
		if i > 1<<16 {
			break
		}
		total++
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != 0x1b || r == utf8.RuneError {
			ctrl++
		}
	}
	return total > 0 && ctrl*10 > total
}

// extractText reads plain text: paragraphs under detected headings, or,
// for log files, groups of lines.
func extractText(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	s, err := decodeText(Text, data)
	if err != nil {
		return nil, err
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	if looksLikeLog(lines) {
		return extractLog(ctx, lines)
	}
	doc := &Document{}
	sb := newSectionBuilder(doc)
	var path headingPath
	var para []string
	flushPara := func() {
		if len(para) > 0 {
			sb.addParagraph(unwrap(para))
			para = para[:0]
		}
	}
	for i, l := range lines {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if strings.TrimSpace(l) == "" {
			flushPara()
			continue
		}
		prevBlank := i == 0 || strings.TrimSpace(lines[i-1]) == ""
		nextBlank := i+1 == len(lines) || strings.TrimSpace(lines[i+1]) == ""
		if prevBlank && nextBlank {
			if level, ok := textHeading(l); ok {
				flushPara()
				path.set(level, strings.TrimSpace(l))
				sb.startSection(path.String())
				continue
			}
		}
		para = append(para, l)
	}
	flushPara()
	sb.flush()
	doc.DOI = findDOI(head(s, 3000))
	return doc, nil
}

// unwrap joins the lines of a hard-wrapped prose paragraph with spaces;
// lists, verse, tables and code keep their line breaks.
func unwrap(lines []string) string {
	if len(lines) < 2 {
		return strings.Join(lines, "\n")
	}
	maxLen := 0
	for _, l := range lines {
		if n := utf8.RuneCountInString(strings.TrimRight(l, " \t")); n > maxLen {
			maxLen = n
		}
	}
	if maxLen < 40 {
		return strings.Join(lines, "\n")
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if i > 0 && (strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "\t")) || listMarker.MatchString(t) || strings.Contains(t, "  ") && strings.Count(t, "  ") > 2 {
			return strings.Join(lines, "\n")
		}
		if i < len(lines)-1 && utf8.RuneCountInString(strings.TrimRight(l, " \t"))*10 < maxLen*6 {
			return strings.Join(lines, "\n")
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return strings.Join(out, " ")
}

var listMarker = regexp.MustCompile(`^(?:[-*•+]|\d{1,3}[.)]|[a-z][.)])\s`)

var chapterHeading = regexp.MustCompile(`(?i)^(chapter|part|book|section|appendix)\s+([0-9]+|[ivxlc]+|[a-z])\b`)

// textHeading recognises a heading line in plain text: a short isolated
// line in capitals, a "Chapter I" line, or a numbered title.
func textHeading(l string) (int, bool) {
	t := strings.TrimSpace(l)
	n := utf8.RuneCountInString(t)
	if n < 2 || n > 80 || strings.ContainsAny(lastRune(t), ".,;!?") {
		return 0, false
	}
	if chapterHeading.MatchString(t) {
		return 1, true
	}
	if _, depth := headingNumber(t); depth > 0 && len(strings.Fields(t)) <= 10 {
		return depth, true
	}
	if isUpperText(t) && len(strings.Fields(t)) <= 8 {
		return 1, true
	}
	if headingType(t) != "" && len(strings.Fields(t)) <= 3 && unicode.IsUpper([]rune(t)[0]) {
		return 1, true
	}
	return 0, false
}

var logLine = regexp.MustCompile(`^(?:\[?\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b|\d{1,3}(?:\.\d{1,3}){3} - )`)

// looksLikeLog reports whether most non-empty lines start like log entries.
func looksLikeLog(lines []string) bool {
	n, hits := 0, 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n++
		if logLine.MatchString(l) {
			hits++
		}
		if n == 200 {
			break
		}
	}
	return n >= 3 && hits*10 >= n*6
}

// logGroup is the number of log lines in one section.
const logGroup = 50

// extractLog groups log lines, keeping continuation lines (stack traces)
// with their entry; each section's heading names its line range.
func extractLog(ctx context.Context, lines []string) (*Document, error) {
	doc := &Document{}
	var cur []string
	start := 0
	flush := func(end int) {
		if len(cur) > 0 {
			doc.Sections = append(doc.Sections, Section{
				Heading: fmt.Sprintf("lines %d–%d", start+1, end),
				Type:    TypeBody,
				Text:    strings.Join(cur, "\n"),
			})
			cur = cur[:0]
		}
	}
	for i, l := range lines {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(cur) >= logGroup && logLine.MatchString(l) {
			flush(i)
		}
		if len(cur) == 0 {
			if strings.TrimSpace(l) == "" {
				continue
			}
			start = i
		}
		cur = append(cur, l)
	}
	flush(len(lines))
	return doc, nil
}

// sectionBuilder accumulates paragraphs under the current heading and
// splits a section that grows past maxSectionRunes.
type sectionBuilder struct {
	doc     *Document
	heading string
	typ     string
	paras   []string
	runes   int
}

func newSectionBuilder(doc *Document) *sectionBuilder {
	return &sectionBuilder{doc: doc}
}

func (b *sectionBuilder) startSection(heading string) {
	b.flush()
	b.heading = heading
	b.typ = ""
}

func (b *sectionBuilder) addParagraph(p string) {
	p = strings.TrimSpace(p)
	if p == "" {
		return
	}
	n := utf8.RuneCountInString(p)
	if n > maxSectionRunes {
		for _, part := range splitLong(p, maxSectionRunes) {
			b.addParagraph(part)
		}
		return
	}
	if b.runes > 0 && b.runes+n > maxSectionRunes {
		b.flush()
	}
	b.paras = append(b.paras, p)
	b.runes += n + 2
}

// splitLong cuts a long paragraph into pieces of at most max runes, at a
// line break, else a sentence end, else a space when one is near the end.
// It walks the text once.
func splitLong(p string, max int) []string {
	var out []string
	for p != "" {
		// cut is the byte offset just past max runes (or the end).
		cut, n := 0, 0
		for cut < len(p) && n < max {
			_, size := utf8.DecodeRuneInString(p[cut:])
			cut += size
			n++
		}
		if cut == len(p) {
			out = append(out, p)
			break
		}
		window := p[:cut]
		at := strings.LastIndexByte(window, '\n')
		if at < cut/2 {
			at = strings.LastIndex(window, ". ")
			if at >= 0 {
				at++
			}
		}
		if at < cut/2 {
			at = strings.LastIndexByte(window, ' ')
		}
		if at < cut/2 {
			at = cut
		}
		if piece := strings.TrimSpace(p[:at]); piece != "" {
			out = append(out, piece)
		}
		p = strings.TrimSpace(p[at:])
	}
	return out
}

// add appends a section of its own (a table, say), after the pending text.
func (b *sectionBuilder) add(s Section) {
	b.flush()
	b.doc.Sections = append(b.doc.Sections, s)
}

func (b *sectionBuilder) flush() {
	if len(b.paras) > 0 {
		b.doc.Sections = append(b.doc.Sections, Section{
			Heading: b.heading,
			Type:    b.typ,
			Text:    strings.Join(b.paras, "\n\n"),
		})
	}
	b.paras = b.paras[:0]
	b.runes = 0
}

// head returns the first n bytes of s, cut at a rune boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
