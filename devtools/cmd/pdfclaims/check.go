package main

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lowerOpeners are the lower-case words without capitals or digits that
// may open a sentence.
var lowerOpeners = map[string]bool{"e.g.": true, "i.e.": true, "cf.": true, "viz.": true}

// midStart reports whether s starts in the middle of a sentence (see the
// package comment).
func midStart(s string) bool {
	s = strings.TrimLeft(strings.TrimSpace(s), "\"'“‘([{")
	r, _ := utf8.DecodeRuneInString(s)
	if strings.ContainsRune(",;:.)]", r) {
		return s != ""
	}
	if !unicode.IsLower(r) {
		return false
	}
	first, _, _ := strings.Cut(s, " ")
	if lowerOpeners[first] {
		return false
	}
	for _, c := range first {
		if unicode.IsUpper(c) || unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// hyphenEnd reports whether s ends on a letter and a hyphen.
func hyphenEnd(s string) bool {
	s = strings.TrimSpace(s)
	last, n := utf8.DecodeLastRuneInString(s)
	if last != '-' && last != '\u2010' && last != '\u00ad' {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:len(s)-n])
	return unicode.IsLetter(before)
}

// unterminated reports whether s ends with no sentence-final punctuation:
// '.', '!', '?', ':' or ';', which closing quotes and brackets and a
// footnote's number or marker may follow.
func unterminated(s string) bool {
	s = strings.TrimRightFunc(strings.TrimSpace(s), func(r rune) bool {
		return unicode.IsDigit(r) || strings.ContainsRune("\"'”’)]}*†‡§¶", r)
	})
	last, _ := utf8.DecodeLastRuneInString(s)
	return !strings.ContainsRune(".!?:;", last)
}
