package tokens

import "testing"

func TestCount(t *testing.T) {
	// Expected counts agree with pkoukk/tiktoken-go, a port of OpenAI's
	// tiktoken, for cl100k_base.
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"The quick brown fox jumps over the lazy dog.", 10},
		{"Ünïcödé 123456", 10},
		{"tiktoken is great!", 6},
		{"can't won't I'LL", 7},
		{"日本語のテキスト", 8},
		{"emoji 🎉🎉 done", 8},
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
