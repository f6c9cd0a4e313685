package tokens

import (
	"unicode"
	"unicode/utf8"
)

// splitPattern is cl100k_base's pre-tokenizer. tiktoken-go/tokenizer
// matches it with code generated for regexp2 (\s is unicode.IsSpace, \p{L}
// and \p{N} are Go's Unicode tables), and pieceLen follows that code
// alternative by alternative, with its two departures from the pattern, so
// that counts stay what the encoder returns:
//   - U+007F is in no class, so no alternative matches it and the encoder
//     skips it: it adds no token;
//   - \s*[\r\n]+ backtracks to the first line break of a run of spaces, not
//     the last: "\n \nx" splits as "\n", " \n", "x".
//
// The tests compare pieceLen with the encoder's own matcher.
const splitPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Rune classes of the pattern.
const (
	other  = iota // none of the below: punctuation, symbols, marks, controls
	letter        // \p{L}
	number        // \p{N}
	space         // \s
	none          // U+007F, which the encoder skips
)

// del is the one rune of class none.
const del = 0x7f

// asciiClass holds the classes of the runes below utf8.RuneSelf.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = slowClass(r)
	}
	t[del] = none
	return t
}()

// slowClass returns the class of r, U+007F aside.
func slowClass(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		return letter
	case unicode.IsNumber(r):
		return number
	case unicode.IsSpace(r):
		return space
	}
	return other
}

// runeAt decodes the rune at s[i:] (i < len(s)) and returns it, its class
// and its length.
func runeAt(s string, i int) (rune, uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return r, slowClass(r), n
}

// pieceLen returns the length in bytes of the encoder's match at the start
// of s, which is non-empty valid UTF-8 and does not start with U+007F. The
// matches and the skipped U+007F runes tile s.
func pieceLen(s string) int {
	r, class, n := runeAt(s, 0)
	// '(?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r == '\'' {
		if k := contraction(s[1:]); k > 0 {
			return 1 + k
		}
	}
	switch class {
	case letter: // [^\r\n\p{L}\p{N}]?\p{L}+ with an empty first part
		return n + run(s, n, letter)
	case number: // \p{N}{1,3}
		i := n
		for k := 1; k < 3 && i < len(s); k++ {
			_, c, m := runeAt(s, i)
			if c != number {
				break
			}
			i += m
		}
		return i
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+ with one rune before the letters
	if r != '\r' && r != '\n' && n < len(s) {
		if _, c, _ := runeAt(s, n); c == letter {
			return n + run(s, n, letter)
		}
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	start := 0
	if r == ' ' {
		start = 1
	}
	if k := run(s, start, other); k > 0 {
		return start + k + lineBreaks(s[start+k:])
	}
	// Here r is a space: the rest of the pattern matches within the run of
	// spaces that starts s. \s*[\r\n]+ ends after the first line break
	// of the run and those right after it (the encoder's departure).
	end := run(s, 0, space)
	for i := range end {
		if s[i] == '\r' || s[i] == '\n' {
			return i + lineBreaks(s[i:end])
		}
	}
	// \s+(?!\S) takes the whole run at the end of s, else all of it but
	// its last rune; \s+ takes a run of one rune.
	if end == len(s) {
		return end
	}
	_, last := utf8.DecodeLastRuneInString(s[:end])
	if end-last > 0 {
		return end - last
	}
	return end
}

// lineBreaks returns the number of '\r' and '\n' bytes s starts with.
func lineBreaks(s string) int {
	i := 0
	for i < len(s) && (s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// run returns the length in bytes of the runes of class c from s[i:].
func run(s string, i int, c uint8) int {
	j := i
	for j < len(s) {
		_, cj, m := runeAt(s, j)
		if cj != c {
			break
		}
		j += m
	}
	return j - i
}

// contraction returns the length of the contraction suffix (after the
// apostrophe) that s starts with, matched without regard to case as the
// pattern's (?i:) does, or 0.
func contraction(s string) int {
	if s == "" {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s)
	switch r {
	case 's', 'S', 'ſ', 't', 'T', 'm', 'M', 'd', 'D':
		return n
	}
	if len(s) < 2 {
		return 0
	}
	switch lower(s[0]) {
	case 'r', 'v':
		if lower(s[1]) == 'e' {
			return 2
		}
	case 'l':
		if lower(s[1]) == 'l' {
			return 2
		}
	}
	return 0
}

// lower folds an ASCII upper-case letter to lower case.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
