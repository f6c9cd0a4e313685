package dashboard

import (
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -20000: "-20,000"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNewBarChart(t *testing.T) {
	c := newBarChart([]bar{{Label: "a", N: 5}, {Label: "b", N: 10}, {Label: "quota", N: 30, Of: 20}, {Label: "none", N: 0, Of: 0}})
	want := []struct {
		fill float64
		over bool
	}{{chartTrackWidth * 5 / 30.0, false}, {chartTrackWidth * 10 / 30.0, false}, {chartTrackWidth, true}, {0, false}}
	for i, w := range want {
		if r := c.Rows[i]; math.Abs(r.Fill-w.fill) > 1e-9 || r.Over != w.over || r.Y != i*chartRowHeight {
			t.Errorf("row %d: %+v, want fill %v over %v", i, r, w.fill, w.over)
		}
	}
}
