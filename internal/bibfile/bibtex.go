package bibfile

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// bibParser reads BibTeX: @type{key, field = {value} # "value" # macro, …}.
type bibParser struct {
	s       string
	i, line int
	macros  map[string]string
}

func (p *bibParser) fail(reason string) error {
	return &Error{Format: BibTeX, Line: p.line, Reason: reason}
}

func (p *bibParser) next() byte {
	c := p.s[p.i]
	p.i++
	if c == '\n' {
		p.line++
	}
	return c
}

func (p *bibParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.next()
	}
}

// maxFieldBytes bounds one field's value.
const maxFieldBytes = 1 << 20

func parseBibTeX(s string) ([]Entry, error) {
	p := &bibParser{s: s, line: 1, macros: map[string]string{
		"jan": "January", "feb": "February", "mar": "March", "apr": "April", "may": "May", "jun": "June",
		"jul": "July", "aug": "August", "sep": "September", "oct": "October", "nov": "November", "dec": "December"}}
	var out []Entry
	for {
		at := strings.IndexByte(p.s[p.i:], '@')
		if at < 0 {
			return out, nil
		}
		for range at {
			p.next()
		}
		p.next() // @
		typ := strings.ToLower(p.ident())
		p.skipSpace()
		if p.i >= len(p.s) || (p.s[p.i] != '{' && p.s[p.i] != '(') {
			continue // text between entries that holds an @
		}
		open := p.next()
		closer := byte('}')
		if open == '(' {
			closer = ')'
		}
		switch typ {
		case "comment", "preamble":
			if _, err := p.braced(open, closer); err != nil {
				return nil, err
			}
			continue
		case "string":
			fields, err := p.fields(closer)
			if err != nil {
				return nil, err
			}
			for k, v := range fields {
				p.macros[k] = v
			}
			continue
		}
		p.skipSpace()
		start := p.i
		for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != closer {
			p.next()
		}
		key := strings.TrimSpace(p.s[start:p.i])
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.next()
		}
		fields, err := p.fields(closer)
		if err != nil {
			return nil, err
		}
		out = append(out, bibEntry(typ, key, fields))
	}
}

// ident reads a name: letters, digits and -_:.+/.
func (p *bibParser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := rune(p.s[p.i])
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune("-_:.+/'", c) {
			break
		}
		p.next()
	}
	return p.s[start:p.i]
}

// fields reads name = value pairs up to closer, which it consumes.
func (p *bibParser) fields(closer byte) (map[string]string, error) {
	out := map[string]string{}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.fail("the entry is not closed")
		}
		if p.s[p.i] == closer {
			p.next()
			return out, nil
		}
		if p.s[p.i] == ',' {
			p.next()
			continue
		}
		name := strings.ToLower(p.ident())
		if name == "" {
			return nil, p.fail("a field name was expected")
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '=' {
			return nil, p.fail("= was expected after " + name)
		}
		p.next()
		v, err := p.value(closer)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
}

// value reads a field's value: parts joined by #.
func (p *bibParser) value(closer byte) (string, error) {
	var b strings.Builder
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return "", p.fail("a value was expected")
		}
		switch c := p.s[p.i]; {
		case c == '{':
			p.next()
			v, err := p.braced('{', '}')
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case c == '"':
			p.next()
			v, err := p.quoted()
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		default:
			name := p.ident()
			if name == "" {
				return "", p.fail("a value was expected")
			}
			if m, ok := p.macros[strings.ToLower(name)]; ok {
				b.WriteString(m)
			} else {
				b.WriteString(name)
			}
		}
		if b.Len() > maxFieldBytes {
			return "", p.fail("a field is too long")
		}
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '#' {
			p.next()
			continue
		}
		return b.String(), nil
	}
}

// braced reads up to the closer matching an opener already read, and
// returns what lies between, inner braces kept.
func (p *bibParser) braced(open, closer byte) (string, error) {
	start, depth := p.i, 1
	for p.i < len(p.s) {
		c := p.next()
		switch {
		case c == '\\' && p.i < len(p.s):
			p.next()
		case c == open:
			depth++
		case c == closer:
			if depth--; depth == 0 {
				return p.s[start : p.i-1], nil
			}
		}
	}
	return "", p.fail("a brace is not closed")
}

// quoted reads a "…" value (braces may hold quotes) after its opening quote.
func (p *bibParser) quoted() (string, error) {
	start, depth := p.i, 0
	for p.i < len(p.s) {
		c := p.next()
		switch {
		case c == '\\' && p.i < len(p.s):
			p.next()
		case c == '{':
			depth++
		case c == '}':
			depth--
		case c == '"' && depth <= 0:
			return p.s[start : p.i-1], nil
		}
	}
	return "", p.fail("a quote is not closed")
}

// bibEntry makes an Entry of a BibTeX entry's fields.
func bibEntry(typ, key string, f map[string]string) Entry {
	e := Entry{Key: key, Type: typ, DOI: latex(f["doi"]), Title: latex(f["title"]), Abstract: latex(f["abstract"]),
		URL: latex(f["url"]), Year: yearOf(f["year"])}
	if e.Year == 0 {
		e.Year = yearOf(f["date"])
	}
	for _, v := range []string{"journal", "journaltitle", "booktitle", "publisher", "school", "institution"} {
		if f[v] != "" {
			e.Venue = latex(f[v])
			break
		}
	}
	for _, a := range splitAnd(f["author"]) {
		e.Authors = append(e.Authors, personName(a))
	}
	e.Tags = splitList(latex(f["keywords"]), ",")
	e.Files = bibFiles(f["file"])
	return e
}

// splitAnd splits an author list on " and " outside braces.
func splitAnd(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		}
		if depth == 0 && i+5 <= len(s) && strings.EqualFold(s[i:i+5], " and ") {
			out = append(out, s[start:i])
			start = i + 5
			i += 4
		}
	}
	out = append(out, s[start:])
	var names []string
	for _, n := range out {
		if n = strings.TrimSpace(n); n != "" && n != "others" {
			names = append(names, n)
		}
	}
	return names
}

// personName turns "Family, Given" into "Given Family", LaTeX decoded.
func personName(s string) string {
	parts := strings.Split(s, ",")
	if len(parts) >= 2 {
		s = strings.TrimSpace(parts[len(parts)-1]) + " " + strings.TrimSpace(strings.Join(parts[:len(parts)-1], ","))
	}
	return strings.Join(strings.Fields(latex(s)), " ")
}

// bibFiles reads a file field: Zotero's "Title:path:mime;…" (colons and
// semicolons in the parts escaped with a backslash) or Better BibTeX's
// "path;path".
func bibFiles(s string) []string {
	var out []string
	for _, item := range splitEscaped(s, ';') {
		parts := splitEscaped(item, ':')
		path := item
		switch {
		case len(parts) >= 3:
			path = strings.Join(parts[1:len(parts)-1], ":")
		case len(parts) == 2 && len(parts[0]) == 1: // a Windows drive, C:\…
			path = parts[0] + ":" + parts[1]
		case len(parts) == 2:
			path = parts[1]
		}
		if path = unescape(strings.TrimSpace(path)); path != "" {
			out = append(out, path)
		}
	}
	return out
}

// splitEscaped splits s on sep not preceded by a backslash, keeping the
// escapes.
func splitEscaped(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// unescape drops the backslashes of \: \; and \\.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`:;\`, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// accents maps LaTeX accent commands to combining marks.
var accents = map[byte]rune{'\'': '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303',
	'=': '\u0304', '.': '\u0307', 'u': '\u0306', 'v': '\u030C', 'H': '\u030B', 'c': '\u0327', 'k': '\u0328'}

// symbols maps LaTeX commands without arguments to text.
var symbols = map[string]string{"ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ",
	"aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "textendash": "–", "textemdash": "—"}

// latex turns a BibTeX value into plain text: braces dropped, escaped
// characters and accents decoded, other commands dropped, their
// arguments kept.
func latex(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' || c == '}':
		case c == '\\' && i+1 < len(s):
			n := s[i+1]
			if mark, ok := accents[n]; ok && (n < 'a' || n > 'z' || i+2 < len(s) && !isLetter(s[i+2])) {
				// \'e, \'{e}, \c{c}: the letter, then the combining mark.
				j := i + 2
				for j < len(s) && (s[j] == '{' || s[j] == ' ') {
					j++
				}
				if j < len(s) && s[j] == '\\' && j+1 < len(s) && (s[j+1] == 'i' || s[j+1] == 'j') {
					j++ // \'{\i}
				}
				if j < len(s) {
					b.WriteByte(s[j])
					b.WriteRune(mark)
					i = j
					for i+1 < len(s) && s[i+1] == '}' {
						i++
					}
					continue
				}
			}
			if !isLetter(n) {
				b.WriteByte(n) // \& \% \$ \_ \{ \}
				i++
				continue
			}
			j := i + 1
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			if sym, ok := symbols[s[i+1:j]]; ok {
				b.WriteString(sym)
			}
			i = j - 1
			if i+1 < len(s) && s[i+1] == ' ' {
				i++ // the space that ends a command word
			}
		case c == '~':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(norm.NFC.String(b.String()))
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
