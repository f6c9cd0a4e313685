// Package ftsterm splits text into the terms SQLite's FTS5 indexes with
// tokenize = 'porter unicode61 remove_diacritics 2', the tokenizer of
// papermem's former full-text table, so that the in-process index and FTS5
// agree on what a word is (checked against FTS5 itself under the build tag
// sqlite_fts5).
package ftsterm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
	"golang.org/x/text/unicode/norm"
)

// Terms calls fn with each term of text, in order.
func Terms(text string, fn func(term string)) {
	Tokens(text, func(token string) { fn(Term(token)) })
}

// Tokens calls fn with each token of text, in order, before folding and
// stemming (see Term). A run of combining marks alone, which FTS5 folds to
// nothing and does not index, is not a token.
func Tokens(text string, fn func(token string)) {
	start, base := -1, false
	for i, r := range text {
		if isTokenChar(r) {
			if start < 0 {
				start = i
			}
			base = base || r < utf8.RuneSelf || !unicode.Is(unicode.Mn, r)
			continue
		}
		if start >= 0 && base {
			fn(text[start:i])
		}
		start, base = -1, false
	}
	if start >= 0 && base {
		fn(text[start:])
	}
}

// isTokenChar reports whether unicode61 counts r as part of a token: the
// categories L*, N* and Co, and the combining marks it folds away.
func isTokenChar(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.In(r, unicode.Co, unicode.Mn)
}

// Term folds one token as FTS5 does: lower case, diacritics removed, then
// Porter-stemmed when it is 3 to 64 bytes long.
func Term(token string) string {
	t := fold(token)
	if len(t) < 3 || len(t) > 64 {
		return t
	}
	return string(porterstemmer.StemWithoutLowerCasing([]rune(t)))
}

// fold lower-cases token and removes the diacritics of its Latin letters,
// as unicode61 with remove_diacritics 2 does.
func fold(token string) string {
	ascii := true
	for i := 0; i < len(token); i++ {
		if token[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(token)
	}
	var b strings.Builder
	for _, r := range token {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(unicode.ToUpper(r))
		if r >= utf8.RuneSelf && unicode.Is(unicode.Latin, r) {
			r, _ = utf8.DecodeRuneInString(norm.NFD.String(string(r)))
		}
		b.WriteRune(r)
	}
	return b.String()
}
