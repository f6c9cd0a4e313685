// Package chunk splits text into sentences and into passages that fit a
// token size, keeping byte offsets so every piece can be cited.
package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/tokens"
)

// Piece is a slice of a larger text: Text is text[Start:End] (byte offsets),
// trimmed of surrounding space.
type Piece struct {
	Text       string
	Start, End int
	Tokens     int
}

// abbreviations end with a period without ending a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "et al": true, "al": true, "fig": true, "figs": true,
	"eq": true, "eqs": true, "ref": true, "refs": true, "vs": true, "cf": true,
	"approx": true, "no": true, "dr": true, "mr": true, "mrs": true, "ms": true,
	"prof": true, "st": true, "sec": true, "tab": true, "vol": true, "ca": true,
	"resp": true, "incl": true, "etc": true, "p": true, "pp": true, "ed": true,
}

// Sentences splits text into sentences at '.', '!' or '?' followed by space
// and an upper-case letter, digit or opening bracket, and at blank lines.
func Sentences(text string) []Piece {
	var out []Piece
	start := 0
	emit := func(end int) {
		if p, ok := trimmed(text, start, end); ok {
			out = append(out, p)
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n' && strings.HasPrefix(strings.TrimLeft(text[i+1:], " \t\r"), "\n"):
			emit(i)
		case (r == '.' || r == '!' || r == '?') && endsSentence(text, start, i):
			emit(i + size)
		}
		i += size
	}
	emit(len(text))
	return out
}

func endsSentence(text string, start, i int) bool {
	rest := text[i+1:]
	if rest == "" {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(rest); !unicode.IsSpace(r) && r != '"' && r != ')' && r != '\'' {
		return false
	}
	next := strings.TrimLeft(rest, " \t\r\n\"')")
	if next == "" {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(next); !(unicode.IsUpper(r) || unicode.IsDigit(r) || r == '(' || r == '[') {
		return false
	}
	if text[i] != '.' {
		return true
	}
	// The word before the period: an abbreviation or a single initial does
	// not end the sentence.
	w := i
	for w > start && !unicode.IsSpace(rune(text[w-1])) {
		w--
	}
	word := strings.ToLower(strings.TrimLeft(text[w:i], "(\"'["))
	if abbreviations[word] || (utf8.RuneCountInString(word) == 1 && unicode.IsLetter([]rune(word)[0])) {
		return false
	}
	return true
}

func trimmed(text string, start, end int) (Piece, bool) {
	s := text[start:end]
	lead := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	s = strings.TrimSpace(s)
	if s == "" {
		return Piece{}, false
	}
	return Piece{Text: s, Start: start + lead, End: start + lead + len(s)}, true
}

// Passage is a piece made of whole sentences; Sentences are the pieces it
// was packed from, with offsets in the same text.
type Passage struct {
	Piece
	Sentences []Piece
}

// Passages packs the sentences of text into passages of at most maxTokens
// tokens (a longer sentence becomes a passage of its own), breaking
// preferably at paragraph ends. Every piece carries its exact token count.
func Passages(text string, maxTokens int) []Passage {
	var out []Passage
	var cur Passage
	n := 0 // sum of the sentences' tokens: a bound used for packing
	flush := func() {
		if len(cur.Sentences) > 0 {
			cur.Start, cur.End = cur.Sentences[0].Start, cur.Sentences[len(cur.Sentences)-1].End
			cur.Text = text[cur.Start:cur.End]
			if len(cur.Sentences) == 1 {
				cur.Tokens = cur.Sentences[0].Tokens
			} else {
				cur.Tokens = tokens.Count(cur.Text)
			}
			out = append(out, cur)
		}
		cur, n = Passage{}, 0
	}
	for _, s := range Sentences(text) {
		s.Tokens = tokens.Count(s.Text)
		if len(cur.Sentences) > 0 && n+s.Tokens > maxTokens {
			flush()
		}
		cur.Sentences = append(cur.Sentences, s)
		n += s.Tokens
		// A paragraph end is a good place to stop once the passage is half full.
		if n >= maxTokens/2 && strings.HasPrefix(strings.TrimLeft(text[s.End:], " \t\r"), "\n\n") {
			flush()
		}
	}
	flush()
	return out
}
