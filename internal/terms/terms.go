// Package terms splits text into lower-case words and knows which of them
// are function words that carry no topic.
package terms

import (
	"strings"
	"unicode"
)

// Words returns the lower-case runs of letters and digits in text.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Content returns the words of text that are not stop words.
func Content(text string) []string {
	ws := Words(text)
	out := ws[:0]
	for _, w := range ws {
		if !Stop[w] {
			out = append(out, w)
		}
	}
	return out
}

// Stop is a list of English function words.
var Stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
nor of off on once only or other our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was we were what when
where which while who whom why will with would you your yours yourself yourselves also may might must shall us
one via per et al s t d ll m re ve don didn doesn isn wasn aren weren hasn haven hadn won wouldn shouldn couldn
ok oh yeah hey hi yes no not`) {
		m[w] = true
	}
	return m
}()
