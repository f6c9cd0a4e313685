package qasper

import (
	"strings"
	"testing"
)

const (
	s1   = "The corpus holds ten thousand tweets from 2019." // 47 characters
	s2   = "Annotators labelled each of them twice."         // 39
	s3   = "It is small."                                    // 12: too short to share
	para = s1 + " " + s2 + " " + s3
)

func TestFound(t *testing.T) {
	for _, c := range []struct {
		name  string
		spans []string
		want  bool
	}{
		{"Inside", []string{s2}, true},
		{"Contains", []string{"Before it. " + para + " After it."}, true},
		{"WhiteSpace", []string{strings.ReplaceAll(para, " ", "\n  ")}, true},
		{"SharedSentence", []string{"Other text here. " + s1 + " More other text."}, true},
		{"SharedAcrossParagraphs", []string{"First paragraph ends without a stop\n\n" + s2}, true},
		{"ShortSentence", []string{"Other text here. " + s3 + " More other text."}, false},
		{"Case", []string{strings.ToUpper(s1)}, false},
		{"Partial", []string{"The corpus holds ten thousand tweets"}, true}, // inside the paragraph
		{"PartialSentence", []string{"Other text. The corpus holds ten thousand tweets from 2020."}, false},
		{"Empty", []string{"", "  "}, false},
		{"None", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := NewReturned(c.spans).Found(para); got != c.want {
				t.Errorf("Found = %v, want %v", got, c.want)
			}
		})
	}
}

func TestHolds(t *testing.T) {
	long := strings.Repeat("word ", 30) + "tail" // 154 characters
	r := NewReturned([]string{"Intro.", "THE CORPUS holds  ten\nthousand tweets from 2019. " + long[:121] + "different"})
	for _, c := range []struct {
		sentence string
		want     bool
	}{
		{s1, true},         // case and white space fold
		{long, true},       // only its first 120 characters count
		{long[:125], true}, // the same prefix
		{"Annotators labelled each of them twice.", false},
		{"intro. the corpus", true}, // spans join with a space
	} {
		if got := r.Holds(c.sentence); got != c.want {
			t.Errorf("Holds(%q) = %v, want %v", c.sentence, got, c.want)
		}
	}
}

func TestMatch(t *testing.T) {
	q := Question{Annotators: []Annotation{
		{Evidence: []string{para, "A second paragraph of evidence, needed too."}},
		{Evidence: []string{para}, Highlighted: []string{s1, s2}},
	}}
	for _, c := range []struct {
		name         string
		spans        []string
		para, strict bool
	}{
		{"Nothing", []string{"Unrelated text of some length here."}, false, false},
		{"ParaNotStrict", []string{s1}, true, false}, // annotator 2's paragraph, but not its s2
		{"Strict", []string{s1, s2}, true, true},     // annotator 2 in full
		{"OtherAnnotator", []string{para, "A second paragraph of evidence, needed too."}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, s := q.Match(NewReturned(c.spans))
			if p != c.para || s != c.strict {
				t.Errorf("Match = para %v strict %v, want %v %v", p, s, c.para, c.strict)
			}
		})
	}
	// An annotator without highlighted sentences is strict when para.
	one := Question{Annotators: []Annotation{{Evidence: []string{para}}}}
	if p, s := one.Match(NewReturned([]string{s3 + " " + s2})); !p || !s {
		t.Errorf("no highlights: para %v strict %v", p, s)
	}
}
