package qasper

import (
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/chunk"
)

// MinShared is the fewest characters of a sentence that a returned span
// and an evidence paragraph share for the paragraph to count as returned.
const MinShared = 30

// StrictPrefix is how many leading characters of a highlighted sentence
// the returned text must hold for the strict measure.
const StrictPrefix = 120

// Returned is the text recall returned for a question, ready to match.
type Returned struct {
	spans     []string        // each span's text, white space collapsed
	sentences map[string]bool // their sentences of MinShared characters or more
	text      string          // the spans joined, lower-cased, white space collapsed
}

// NewReturned prepares the texts of the returned spans; empty ones are
// ignored.
func NewReturned(spans []string) *Returned {
	r := &Returned{sentences: map[string]bool{}}
	for _, s := range spans {
		if c := collapse(s); c != "" {
			r.spans = append(r.spans, c)
		}
		for _, st := range longSentences(s) {
			r.sentences[st] = true
		}
	}
	r.text = strings.ToLower(strings.Join(r.spans, " "))
	return r
}

// longSentences splits s into sentences (chunk.Sentences) and returns
// those of MinShared characters or more, white space collapsed.
func longSentences(s string) []string {
	var out []string
	for _, p := range chunk.Sentences(s) {
		if t := collapse(p.Text); utf8.RuneCountInString(t) >= MinShared {
			out = append(out, t)
		}
	}
	return out
}

// Found reports whether an evidence paragraph was returned: a span lies
// inside it or contains it (white space collapsed), or shares a sentence
// of MinShared characters or more with it.
func (r *Returned) Found(paragraph string) bool {
	p := collapse(paragraph)
	for _, s := range r.spans {
		if strings.Contains(p, s) || strings.Contains(s, p) {
			return true
		}
	}
	for _, st := range longSentences(paragraph) {
		if r.sentences[st] {
			return true
		}
	}
	return false
}

// Holds reports whether the returned text holds the first StrictPrefix
// characters of a highlighted sentence, both lower-cased and white space
// collapsed.
func (r *Returned) Holds(sentence string) bool {
	s := strings.ToLower(collapse(sentence))
	if n := 0; utf8.RuneCountInString(s) > StrictPrefix {
		for i := range s {
			if n == StrictPrefix {
				s = strings.TrimSpace(s[:i])
				break
			}
			n++
		}
	}
	return strings.Contains(r.text, s)
}

// Match scores a question against the returned text. Para holds when, for
// some annotator, every evidence paragraph was returned (Found); strict
// when, for some annotator, moreover the returned text holds every
// sentence the annotator highlighted (Holds).
func (q *Question) Match(r *Returned) (para, strict bool) {
	for _, a := range q.Annotators {
		if !all(a.Evidence, r.Found) {
			continue
		}
		para = true
		if all(a.Highlighted, r.Holds) {
			return true, true
		}
	}
	return para, false
}

func all(xs []string, f func(string) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}
