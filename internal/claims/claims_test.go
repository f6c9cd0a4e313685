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
		{"We collected samples from 12 hospitals between 2010 and 2014.", false},
		{"Introduction", false},
		{"In this paper we describe a new system that shows results.", false},
		{"What causes the effect?", false},
		{"Figure 3 shows the accuracy of each model.", false},
	}
	for _, tt := range tests {
		if got := IsClaim(tt.in); got != tt.want {
			t.Errorf("IsClaim(%q) = %v, want %v (score %d)", tt.in, got, tt.want, Score(tt.in))
		}
	}
}
