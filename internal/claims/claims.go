// Package claims recognises the sentences of a paper that a reader may
// cite: what a study set out to do, what it did (its data, methods and
// setting), what it found (a result, a comparison, a quantity, a
// conclusion) and what is known. What is not a claim is a structured
// abstract's label opening a sentence (OBJECTIVE, DESIGN, METHODS…), a
// question, and what is not prose: a title, a list of authors or
// affiliations, an e-mail address, a table's row, a copyright, venue,
// funding or correspondence line.
package claims

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// noise matches sentences that open with a reference (a DOI or a web
	// address) rather than prose.
	noise = regexp.MustCompile(`(?i)^(doi:|https?://)`)
	// structured matches a sentence that a structured abstract's labels
	// open ("OBJECTIVE To estimate…", "Design, Setting, and Participants
	// Mail survey…"): the label is not part of a statement.
	structured = regexp.MustCompile(`^` + heading + `(?:[\s,&]+(?i:and\s+)?` + heading + `)*\s+[A-Z0-9]`)
	// heading matches the words of a structured abstract's labels for the
	// parts that precede its results.
	heading = `(?i:objectives?|aims?|purpose|goals?|design|settings?|participants|patients|subjects|methods?|materials|methodology|interventions?|exposures?|main|primary|outcomes?|measures?|data sources|study selection|data extraction)`
)

// IsClaim reports whether sentence is a claim: a sentence of prose that
// no structured abstract's label opens.
func IsClaim(sentence string) bool {
	s, ok := candidate(sentence)
	return ok && !structured.MatchString(s) && !fragment(s)
}

// email matches an e-mail address, as front matter lists them.
var email = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.-]+|\{[\w\s,.-]+\}@`)

// boilerplate matches what a page's margin or a paper's front matter says
// of the paper rather than of its subject: copyright, licence, venue and
// correspondence lines.
var boilerplate = regexp.MustCompile(`(?i)(copyright|©|\(c\) \d{4}|all rights reserved|licensed under|creative commons|proceedings of|conference on|association for computational|corresponding author|e-?mail:|\barxiv:\d|preprint|funded by|grant (no\.?|number)|acknowledg)`)

// boilerplateCores holds a literal that each of boilerplate's alternatives
// contains, lower-cased: a sentence that holds none of them cannot match,
// so the regexp, which tries every position, runs only on those that do.
var boilerplateCores = []string{"copyright", "©", "(c) ", "all rights reserved", "licensed under", "creative commons",
	"proceedings of", "conference on", "association for computational", "corresponding author", "mail:", "arxiv:",
	"preprint", "funded by", "grant ", "acknowledg"}

// isBoilerplate reports whether boilerplate matches s. Its pre-check folds
// case as the pattern's (?i) does: ToLower, and the long s (ſ), which
// folds to s but is lower case already.
func isBoilerplate(s string) bool {
	lower := strings.ToLower(strings.ReplaceAll(s, "ſ", "s"))
	for _, c := range boilerplateCores {
		if strings.Contains(lower, c) {
			return boilerplate.MatchString(s)
		}
	}
	return false
}

// fragment reports whether s is not a sentence of prose: it holds an
// e-mail address or a boilerplate phrase, or it has fewer than minWords
// words that begin with a letter, or fewer than minProseShare of those
// begin with a lower-case one (a title, a list of names or affiliations,
// a table's row).
func fragment(s string) bool {
	if strings.Contains(s, "@") && email.MatchString(s) || isBoilerplate(s) {
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
// not too short or long, not a question, not a bare reference.
func candidate(sentence string) (string, bool) {
	s := strings.TrimSpace(sentence)
	n := utf8.RuneCountInString(s)
	if n < 25 || n > 600 || noise.MatchString(s) || strings.HasSuffix(s, "?") {
		return "", false
	}
	return s, true
}
