package main

import (
	"math"
	"testing"
)

func TestNDCG(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	tests := []struct {
		ranked []string
		want   float64
	}{
		{[]string{"a", "b", "c"}, 1},
		{[]string{"c", "a", "b"}, (1/math.Log2(3) + 1/math.Log2(4)) / (1 + 1/math.Log2(3))},
		{[]string{"c", "d"}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := nDCG(tt.ranked, rel, 10); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("nDCG(%v) = %v, want %v", tt.ranked, got, tt.want)
		}
	}
	// Only the first k count.
	if got := nDCG([]string{"c", "a"}, map[string]int{"a": 1}, 1); got != 0 {
		t.Errorf("nDCG@1 = %v, want 0", got)
	}
}

func TestRecallAt(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}
	if got := recallAt([]string{"a", "x", "c"}, rel, 100); got != 0.5 {
		t.Errorf("recall = %v, want 0.5", got)
	}
	if got := recallAt([]string{"x", "a"}, rel, 1); got != 0 {
		t.Errorf("recall@1 = %v, want 0", got)
	}
}
