// Package claims recognises sentences that assert a finding. In scientific
// text nearly every declarative sentence states something a reader may cite
// (a result, a comparison, a quantity, a known fact, a conclusion); what does
// not are the sentences that set a study up: its aim ("To determine
// whether…", "The aim of this study was…"), its methods ("We enrolled…",
// "We measured…") and structured-abstract labels (OBJECTIVE, DESIGN,
// METHODS…), besides questions, captions and boilerplate. IsClaim keeps the
// former and drops the latter.
package claims

import (
	"os"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// findingVerb matches verbs and phrases that report a result.
	findingVerb = regexp.MustCompile(`(?i)\b(show(s|ed|n)?|demonstrat(e|es|ed)|reveal(s|ed)?|found|find(s)?|indicat(e|es|ed)|suggest(s|ed)?|increas(e|es|ed)|decreas(e|es|ed)|reduc(e|es|ed)|improv(e|es|ed)|outperform(s|ed)?|achiev(e|es|ed)|associated with|correlat(e|es|ed)|predict(s|ed)?|caus(e|es|ed)|lead(s)? to|led to|result(s|ed)? in|inhibit(s|ed)?|promot(e|es|ed)|enhanc(e|es|ed)|impair(s|ed)?|prevent(s|ed)?|confirm(s|ed)?|support(s|ed)?|exceed(s|ed)?|lower(s|ed)?|higher|lower|greater|fewer|more than|less than|compared (to|with)|significant(ly)?|effective|ineffective|is required|are required|regulat(e|es|ed)|mediat(e|es|ed)|affect(s|ed)?|does not|do not|did not|no (significant )?(effect|difference|association))\b`)
	// noise matches sentences that describe the paper rather than findings.
	noise = regexp.MustCompile(`(?i)^(in this (paper|work|study),? we (describe|present|introduce)|table|figure|fig\.|copyright|©|doi:|https?://)`)
	// setup matches sentences that state a study's aim or open a
	// structured abstract's non-result part: they set a study up rather than
	// report what it found.
	setup = regexp.MustCompile(`^(` + heading + `(?:[\s,&]+(?i:and\s+)?` + heading + `)*\s+[A-Z0-9]|(?i:to (determine|assess|evaluate|investigate|examine|identify|estimate|compare|describe|explore|characteri[sz]e|test|analy[sz]e|quantify|measure|review|establish|define|study|understand|clarify|elucidate|address|report|develop)\b|(the|our) (main |primary )?(aims?|objectives?|purposes?|goals?)\b|(here,? )?(we|this (study|review|trial|analysis|work|paper)|the (present|current) (study|review|trial|analysis)) (aimed|aims|sought|seeks|set out|was designed|were designed|is designed|was conducted|investigated whether|examined whether|tested whether|asked whether)))`)
	// heading matches the words of a structured abstract's labels for the
	// parts that precede its results.
	heading = `(?i:objectives?|aims?|purpose|goals?|design|settings?|participants|patients|subjects|methods?|materials|methodology|interventions?|exposures?|main|primary|outcomes?|measures?|data sources|study selection|data extraction)`
	// method and passive match sentences that say what was done ("We
	// measured…", "Patients were randomized…"); those that also report what
	// came of it (a finding verb) are claims.
	method  = regexp.MustCompile(`(?i)^(here,? |in this (study|work),? |to (do so|this end|test this),? |first,? |then,? |next,? )?we (recruited|enrolled|randomi[sz]ed|conducted|performed|measured|analy[sz]ed|used|collected|searched|included|obtained|administered|surveyed|interviewed|followed|calculated|designed|applied|employed|generated|sequenced|genotyped|screened|reviewed|assessed|evaluated|examined|investigated|studied|tested|compared|estimated|selected|identified|developed|constructed|established|defined|describe|present|report)\b`)
	passive = regexp.MustCompile(`\b(was|were|Was|Were|WAS|WERE) (?i:(randomi[sz]ed|enrolled|recruited|measured|collected|assessed|analy[sz]ed|obtained|included|followed|assigned|allocated|performed|conducted|used|calculated|administered|interviewed|selected|screened|genotyped|sequenced|divided|classified|defined|evaluated|examined|studied|tested|recorded|surveyed|matched|stratified|categori[sz]ed|determined|quantified|monitored|identified|estimated|compared|treated|given|exposed|injected|fed|cultured|incubated|stained|transfected|immuni[sz]ed|infected|housed|sampled|scanned|imaged|tracked|adjusted))\b`)
)

// IsClaim reports whether sentence asserts a finding: a statement that
// neither sets the study up (its aim, a structured abstract's label) nor
// only says what was done (a method without a finding verb).
func IsClaim(sentence string) bool {
	s, ok := candidate(sentence)
	if !ok || setup.MatchString(s) || fragment(s) {
		return false
	}
	if keepMethods {
		return true
	}
	if matches(s, findingWords, findingVerb) {
		return true
	}
	return !method.MatchString(s) && !(mayBePassive(s) && passive.MatchString(s))
}

var keepMethods = os.Getenv("PM_METHODS") == "1"

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

// mayBePassive reports whether s holds "was " or "were " as passive spells
// them, which passive needs: most sentences are spared running it.
func mayBePassive(s string) bool {
	for _, w := range []string{"was ", "were ", "Was ", "Were ", "WAS ", "WERE "} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

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

// findingWords holds every phrase findingVerb matches, lower case, words
// separated by one space. matches looks them up instead of running the
// expression, which is two orders of magnitude faster;
// TestPhrasesMatchExpressions and FuzzPhrases check that both agree.
var findingWords = phraseSet(`show shows showed shown demonstrate demonstrates demonstrated reveal reveals revealed
		found find finds indicate indicates indicated suggest suggests suggested increase increases increased
		decrease decreases decreased reduce reduces reduced improve improves improved outperform outperforms outperformed
		achieve achieves achieved associated_with correlate correlates correlated predict predicts predicted
		cause causes caused lead_to leads_to led_to result_in results_in resulted_in inhibit inhibits inhibited
		promote promotes promoted enhance enhances enhanced impair impairs impaired prevent prevents prevented
		confirm confirms confirmed support supports supported exceed exceeds exceeded lower lowers lowered higher
		greater fewer more_than less_than compared_to compared_with significant significantly effective ineffective
		is_required are_required regulate regulates regulated mediate mediates mediated affect affects affected
		does_not do_not did_not no_effect no_difference no_association no_significant_effect
		no_significant_difference no_significant_association`)

// phrases is a set of phrases: each phrase, and each of its first words
// that longer phrases go on from, with what it is.
type phrases struct {
	set map[string]uint8 // isPhrase | startsPhrase
}

const (
	isPhrase     = 1 << iota // the key is a phrase
	startsPhrase             // a longer phrase starts with the key and a space
)

// phraseSet reads space-separated phrases whose words are joined by '_'.
func phraseSet(list string) phrases {
	p := phrases{set: map[string]uint8{}}
	for _, f := range strings.Fields(list) {
		words := strings.Split(f, "_")
		for n := 1; n < len(words); n++ {
			p.set[strings.Join(words[:n], " ")] |= startsPhrase
		}
		p.set[strings.Join(words, " ")] |= isPhrase
	}
	return p
}

// matches reports whether s holds one of the phrases of p as whole words
// (ASCII letters, digits and '_', as \b counts them) separated by single
// spaces, compared case-insensitively: what re, the phrases as a (?i)
// alternation between \b, matches. Case folding also maps the Kelvin sign
// to k and the long s to s; s holding either is left to re.
func matches(s string, p phrases, re *regexp.Regexp) bool {
	if strings.ContainsRune(s, '\u212a') || strings.ContainsRune(s, '\u017f') {
		return re.MatchString(s)
	}
	var buf [96]byte
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		key := buf[:0]
		end := i // end of the phrase so far
		for w := 0; ; w++ {
			if w > 0 {
				if end+1 >= len(s) || s[end] != ' ' || !isWordByte(s[end+1]) {
					break
				}
				key = append(key, ' ')
				end++
			}
			start := end
			for end < len(s) && isWordByte(s[end]) {
				end++
			}
			if end-start > 32 {
				break
			}
			for _, c := range []byte(s[start:end]) {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				key = append(key, c)
			}
			f := p.set[string(key)]
			if f&isPhrase != 0 {
				return true
			}
			if f&startsPhrase == 0 {
				break
			}
		}
		for i < len(s) && isWordByte(s[i]) {
			i++
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
