// Package claims recognises the sentences of a paper that a reader may
// cite: what a study found (a result, a comparison, a quantity, a
// conclusion), what it did (its data, methods and setting) and what is
// known. What is not a claim is a sentence that states a study's aim ("To
// determine whether…", "The aim of this study was…") or opens a structured
// abstract's part (OBJECTIVE, DESIGN, METHODS…), a question, a caption, and
// what is not prose: a title, a list of authors or affiliations, an e-mail
// address, a table's row, a copyright, venue, funding or correspondence
// line.
package claims

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// noise matches sentences that describe the paper rather than its subject.
	noise = regexp.MustCompile(`(?i)^(in this (paper|work|study),? we (describe|present|introduce)|table|figure|fig\.|copyright|©|doi:|https?://)`)
	// setup matches sentences that state a study's aim or open a
	// structured abstract's part before its results.
	setup = regexp.MustCompile(`^(` + heading + `(?:[\s,&]+(?i:and\s+)?` + heading + `)*\s+[A-Z0-9]|(?i:to (determine|assess|evaluate|investigate|examine|identify|estimate|compare|describe|explore|characteri[sz]e|test|analy[sz]e|quantify|measure|review|establish|define|study|understand|clarify|elucidate|address|report|develop)\b|(the|our) (main |primary )?(aims?|objectives?|purposes?|goals?)\b|(here,? )?(we|this (study|review|trial|analysis|work|paper)|the (present|current) (study|review|trial|analysis)) (aimed|aims|sought|seeks|set out|was designed|were designed|is designed|was conducted|investigated whether|examined whether|tested whether|asked whether)))`)
	// heading matches the words of a structured abstract's labels for the
	// parts that precede its results.
	heading = `(?i:objectives?|aims?|purpose|goals?|design|settings?|participants|patients|subjects|methods?|materials|methodology|interventions?|exposures?|main|primary|outcomes?|measures?|data sources|study selection|data extraction)`
)

// IsClaim reports whether sentence is a claim: a sentence of prose that
// neither states a study's aim nor opens a structured abstract's part.
func IsClaim(sentence string) bool {
	s, ok := candidate(sentence)
	return ok && !setup.MatchString(s) && !fragment(s)
}

// email matches an e-mail address, as front matter lists them.
var email = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.-]+|\{[\w\s,.-]+\}@`)

// boilerplate matches what a page's margin or a paper's front matter says
// of the paper rather than of its subject: copyright, licence, venue and
// correspondence lines.
var boilerplate = regexp.MustCompile(`(?i)(copyright|©|\(c\) \d{4}|all rights reserved|licensed under|creative commons|proceedings of|conference on|association for computational|corresponding author|e-?mail:|\barxiv:\d|preprint|funded by|grant (no\.?|number)|acknowledg)`)

// fragment reports whether s is not a sentence of prose: it holds an
// e-mail address or a boilerplate phrase, or it has fewer than minWords
// words that begin with a letter, or fewer than minProseShare of those
// begin with a lower-case one (a title, a list of names or affiliations,
// a table's row).
func fragment(s string) bool {
	if email.MatchString(s) || boilerplate.MatchString(s) {
		return true
	}
	words, lower := 0, 0
	for _, w := range strings.Fields(s) {
		r, _ := utf8.DecodeRuneInString(strings.TrimLeft(w, `"'([`))
		if unicode.IsLetter(r) {
			words++
			if unicode.IsLower(r) {
				lower++
			}
		}
	}
	return words < minWords || float64(lower) < minProseShare*float64(words)
}

// A sentence has at least minWords words that begin with a letter, and at
// least minProseShare of them begin with a lower-case one.
const (
	minWords      = 4
	minProseShare = 0.4
)

// candidate trims a sentence and reports whether it may be a claim at all:
// not too short or long, not a question, not a caption or boilerplate.
func candidate(sentence string) (string, bool) {
	s := strings.TrimSpace(sentence)
	n := utf8.RuneCountInString(s)
	if n < 25 || n > 600 || noise.MatchString(s) || strings.HasSuffix(s, "?") {
		return "", false
	}
	return s, true
}
