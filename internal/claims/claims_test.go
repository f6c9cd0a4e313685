package claims

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestIsClaim(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Treatment with 4-PBA decreased ER stress markers by 40% (p < 0.01).", true},
		{"Our model outperforms the strongest baseline on all five benchmarks.", true},
		{"These results suggest that sleep loss may impair memory consolidation.", true},
		{"Vitamin D supplementation did not affect fracture risk in older adults.", true},
		{"We collected samples from 12 hospitals between 2010 and 2014.", false},
		{"Introduction", false},
		{"In this paper we describe a new system that shows results.", false},
		{"What causes the effect?", false},
		{"Figure 3 shows the accuracy of each model.", false},
		{"Mitochondria are the primary energy-generating system in most eukaryotic cells.", true},
		{"DdrB forms a pentameric ring capable of binding single-stranded DNA.", true},
		{"OBJECTIVE To estimate the prevalence of mental disorders in 14 countries.", false},
		{"Design, Setting, and Participants Mail survey of all 97 adult transplantation programs.", false},
		{"Patients with diabetes had higher mortality than those without.", true},
		{"The aim of this study was to assess whether folic acid lowers homocysteine.", false},
		{"To determine whether statins reduce stroke risk in older adults.", false},
		{"We enrolled 151 patients with ischemic heart disease.", false},
		{"We measured serum folate and found that it rose by 40%.", true},
		{"Women were classified as extensive or poor metabolizers.", false},
		{"RESULTS The prevalence of any disorder varied widely across countries.", true},
	}
	for _, tt := range tests {
		if got := IsClaim(tt.in); got != tt.want {
			t.Errorf("IsClaim(%q) = %v, want %v (score %d)", tt.in, got, tt.want, Score(tt.in))
		}
	}
}

// phraseCases are inputs where word boundaries, case and spacing decide.
var phraseCases = []string{
	"Results SHOWED a gain", "the showcase", "reshow", "show_", "shows.", "(shown)", "led  to", "led to", "led\tto",
	"Compared With placebo", "compared-to", "no significant effect", "no significant  effect", "No Association",
	"is required", "isrequired", "we hypothesise", "We Hypothesize that", "appears to", "appear to", "seems  to",
	"éshow", "showé", "x_may", "may1", "1may", "MAY", "lowered", "lowers", "higher", "it does not", "doesnot",
	"the K\u212aelvin shows", "the long \u017fhow", "\u212a", "no significant", "no significant association.",
}

func TestPhrasesMatchExpressions(t *testing.T) {
	inputs := append([]string(nil), phraseCases...)
	if f, err := os.Open("../../../shared/eval/scifact/corpus.jsonl.gz"); err == nil {
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(gz)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && len(inputs) < 5000 {
			var d struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, strings.SplitAfter(d.Text, ". ")...)
		}
	}
	verbs := 0
	for _, s := range inputs {
		checkPhrases(t, s)
		if findingVerb.MatchString(s) {
			verbs++
		}
	}
	t.Logf("%d inputs agree, %d with a finding verb", len(inputs), verbs)
}

func checkPhrases(t *testing.T, s string) {
	t.Helper()
	if got, want := matches(s, findingWords, findingVerb), findingVerb.MatchString(s); got != want {
		t.Errorf("finding phrases in %q: %v, the expression says %v", s, got, want)
	}
	if got, want := matches(s, hedgeWords, hedge), hedge.MatchString(s); got != want {
		t.Errorf("hedge phrases in %q: %v, the expression says %v", s, got, want)
	}
}

func FuzzPhrases(f *testing.F) {
	for _, s := range phraseCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkPhrases(t, s) })
}
