package recall

import "testing"

func TestAsksQuantity(t *testing.T) {
	for q, want := range map[string]bool{
		"How many papers does S2ORC contain?":   true,
		"how much does pretraining help?":       true,
		"  How many layers?":                    true,
		"What is the size of the corpus?":       false,
		"How does S2ORC handle many languages?": false,
		"Many papers: how are they parsed?":     false,
		"Howmany is not a word":                 false,
	} {
		if got := asksQuantity(q); got != want {
			t.Errorf("asksQuantity(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestNumeral(t *testing.T) {
	for text, want := range map[string]bool{
		"a corpus of 81.1M papers":               true,
		"three times more full text papers":      true,
		"hundreds of annotators":                 true,
		"S2ORC can be used for many NLP tasks":   false,
		"BERT-base and GPT2 are models":          false,
		"It contains tens of thousands of words": true,
	} {
		if got := numeral.MatchString(text); got != want {
			t.Errorf("numeral in %q: %v, want %v", text, got, want)
		}
	}
}
