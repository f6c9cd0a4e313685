package citation

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Key returns w's citation key: the first author's family name, the year
// and the first significant word of the title, folded to lower-case ASCII
// letters and digits ("doe2020vitamin" for Jane Doe's "Vitamin D and
// fractures" of 2020; stop words and numbers are not significant). The family name drops its particles ("van
// Beethoven" gives "beethoven"); a part that is unknown, or has no Latin
// letters or digits, is left out; a work with none of them is "anon". The
// same work always has the same key; two works may share one.
func Key(w Work) string {
	var b strings.Builder
	if ns := w.names(); len(ns) > 0 {
		b.WriteString(strings.Join(asciiWords(ns[0].keyName()), ""))
	}
	if w.Year > 0 {
		b.WriteString(strconv.Itoa(w.Year))
	}
	b.WriteString(titleWord(w.Title))
	if b.Len() == 0 {
		return "anon"
	}
	return b.String()
}

// keyName is the part of n a key takes: the literal name, or the family
// name without its leading lower-case particles (unless it is nothing but
// them).
func (n name) keyName() string {
	if n.literal != "" {
		return n.literal
	}
	words := strings.Fields(n.family)
	i := 0
	for i < len(words)-1 && isParticle(words[i]) {
		i++
	}
	return strings.Join(words[i:], " ")
}

// stopWords are the title words a key skips.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but nor of on in at to for from by with without via into onto
		about over under between among toward towards as is are was were be been being do does did can could should
		would will may might not no its it this that these those what which who whom whose why when where how`) {
		stopWords[w] = true
	}
}

// titleWord is the first word of title that is neither a stop word nor a
// number, folded; the first word when all are; "" when there is none.
func titleWord(title string) string {
	words := asciiWords(title)
	for _, w := range words {
		if !stopWords[w] && strings.ContainsFunc(w, unicode.IsLetter) {
			return w
		}
	}
	if len(words) > 0 {
		return words[0]
	}
	return ""
}

// folded are the letters that lose no mark in decomposition but have an
// ASCII spelling.
var folded = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o", 'ł': "l", 'Ł': "l",
	'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ı': "i", 'ħ': "h", 'Ħ': "h",
}

// asciiWords folds s to lower-case ASCII, diacritics removed ("Ørsted
// Ångström" → "orsted angstrom"), and splits it into its runs of letters
// and digits; every other character separates words, and marks that
// belong to no letter are dropped.
func asciiWords(s string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range norm.NFD.String(strings.ToValidUTF8(s, "")) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// a diacritic of the letter before it
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			cur.WriteRune(unicode.ToLower(r))
		case folded[r] != "":
			cur.WriteString(folded[r])
		default:
			flush()
		}
	}
	flush()
	return words
}
