// Package claims recognises sentences that assert a finding: result verbs,
// comparisons, quantities with units, p-values and hedged conclusions.
package claims

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

var (
	// findingVerb matches verbs and phrases that report a result.
	findingVerb = regexp.MustCompile(`(?i)\b(show(s|ed|n)?|demonstrat(e|es|ed)|reveal(s|ed)?|found|find(s)?|indicat(e|es|ed)|suggest(s|ed)?|increas(e|es|ed)|decreas(e|es|ed)|reduc(e|es|ed)|improv(e|es|ed)|outperform(s|ed)?|achiev(e|es|ed)|associated with|correlat(e|es|ed)|predict(s|ed)?|caus(e|es|ed)|lead(s)? to|led to|result(s|ed)? in|inhibit(s|ed)?|promot(e|es|ed)|enhanc(e|es|ed)|impair(s|ed)?|prevent(s|ed)?|confirm(s|ed)?|support(s|ed)?|exceed(s|ed)?|lower(s|ed)?|higher|lower|greater|fewer|more than|less than|compared (to|with)|significant(ly)?|effective|ineffective|is required|are required|regulat(e|es|ed)|mediat(e|es|ed)|affect(s|ed)?|does not|do not|did not|no (significant )?(effect|difference|association))\b`)
	// quantity matches numbers with units, percentages, ratios and p-values.
	quantity = regexp.MustCompile(`(?i)(\bp\s*[<=>≤]\s*0?\.\d+|\d+(\.\d+)?\s*(%|percent|fold|×|x\b|mg|kg|ms|s\b|hz|db|mm|cm|km|°c|k\b|m\b)|\b(odds|hazard|risk) ratio|\bci\b|confidence interval|\bauc\b|\bf1\b|accuracy|bleu)`)
	// hedge matches cautious conclusions that still assert something.
	hedge = regexp.MustCompile(`(?i)\b(may|might|likely|unlikely|appears? to|seems? to|we (propose|conclude|argue|hypothesi[sz]e))\b`)
	// noise matches sentences that describe the paper rather than findings.
	noise = regexp.MustCompile(`(?i)^(in this (paper|work|study),? we (describe|present|introduce)|table|figure|fig\.|copyright|©|doi:|https?://)`)
)

// Score rates how strongly a sentence asserts a finding, from 0 (not a
// claim) upward. IsClaim is Score >= 2.
func Score(sentence string) int {
	s := strings.TrimSpace(sentence)
	n := utf8.RuneCountInString(s)
	if n < 25 || n > 600 || noise.MatchString(s) || strings.HasSuffix(s, "?") {
		return 0
	}
	score := 0
	if findingVerb.MatchString(s) {
		score += 2
	}
	if quantity.MatchString(s) {
		score++
	}
	if hedge.MatchString(s) {
		score++
	}
	return score
}

// IsClaim reports whether sentence asserts a finding.
func IsClaim(sentence string) bool { return Score(sentence) >= 2 }
