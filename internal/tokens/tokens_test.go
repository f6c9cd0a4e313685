package tokens

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"The quick brown fox jumps over the lazy dog.", 10},
	}
	for _, tt := range tests {
		if got := Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	s := "Treatment with 4-PBA decreased endoplasmic reticulum stress markers by 40% (p < 0.01) in mice."
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Count(s)
	}
}
