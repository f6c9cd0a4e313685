package claims

import "testing"

func TestIsClaim(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Treatment with 4-PBA decreased ER stress markers by 40% (p < 0.01).", true},
		{"Our model outperforms the strongest baseline on all five benchmarks.", true},
		{"These results suggest that sleep loss may impair memory consolidation.", true},
		{"Vitamin D supplementation did not affect fracture risk in older adults.", true},
		{"We collected samples from 12 hospitals between 2010 and 2014.", true},
		{"Introduction", false},
		{"In this paper we describe a new system that shows results.", true},
		{"What causes the effect?", false},
		{"Figure 3 shows the accuracy of each model.", true},
		{"doi:10.1000/xyz is where the data are described.", false},
		{"Mitochondria are the primary energy-generating system in most eukaryotic cells.", true},
		{"DdrB forms a pentameric ring capable of binding single-stranded DNA.", true},
		{"OBJECTIVE To estimate the prevalence of mental disorders in 14 countries.", false},
		{"Design, Setting, and Participants Mail survey of all 97 adult transplantation programs.", false},
		{"Patients with diabetes had higher mortality than those without.", true},
		{"The aim of this study was to assess whether folic acid lowers homocysteine.", true},
		{"To determine whether statins reduce stroke risk in older adults.", true},
		{"The goal of the persuader was to persuade the persuadee to donate to a charity.", true},
		{"We enrolled 151 patients with ischemic heart disease.", true},
		{"We measured serum folate and found that it rose by 40%.", true},
		{"Women were classified as extensive or poor metabolizers.", true},
		{"We use the AntiScam dataset, which consists of 220 human-human dialogs.", true},
		{"Kyle Lo† Lucy Lu Wang† Mark Neumann† Rodney Kinney† Daniel S. Weld†‡", false},
		{"‡Paul G. Allen School of Computer Science & Engineering, University of Washington", false},
		{"{kylel, lucyw}@allenai.org", false},
		{"Correspondence should be addressed to J. Smith (jsmith@example.org).", false},
		{"Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics, pages 4969–4983", false},
		{"July 5 - 10, 2020. c 2020 Association for Computational Linguistics", false},
		{"This work was funded by the National Science Foundation under grant no. 1234.", false},
		{"S2ORC (full) S2ORC (full) PubMed ACL Anthology MAG CiteSeerX", false},
		{"8.1M 1.5M 2.6M 25k 1.0M 1.0M", false},
		{"Patients with IA were older than those without (45.6 ± 8.17 vs. 30.89 ± 7.89, P = 0.0003).", true},
		{"RESULTS The prevalence of any disorder varied widely across countries.", true},
	}
	for _, tt := range tests {
		if got := IsClaim(tt.in); got != tt.want {
			t.Errorf("IsClaim(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzIsClaim checks that IsClaim never panics and that a claim is a
// candidate: trimmed, between 25 and 600 characters, not a question.
func FuzzIsClaim(f *testing.F) {
	for _, s := range []string{"We found that X reduces Y by 40%.", "{a, b}@c.org", "", "é@é.é", "Design Setting Patients"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if IsClaim(s) {
			if _, ok := candidate(s); !ok {
				t.Errorf("IsClaim(%q) but it is no candidate", s)
			}
		}
	})
}

// FuzzBoilerplate checks that the literal pre-check never hides a match
// of the boilerplate pattern.
func FuzzBoilerplate(f *testing.F) {
	for _, s := range []string{"Copyright 2020 the authors.", "(C) 2019 Elsevier", "E-Mail: a@b.c", "see arXiv:1234.5678",
		"Grant No. 42", "GRANT NUMBER 7", "ACKNOWLEDGEMENTS", "© IEEE", "Proceedings Of ACL", "We thank the reviewers.", "xarxiv:1",
		"PROCEEDINGſ OF", "\u212Anowledged", "ACKNOWLEDG"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isBoilerplate(s), boilerplate.MatchString(s); got != want {
			t.Errorf("isBoilerplate(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
