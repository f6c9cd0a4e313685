package dashboard

import (
	"math"
	"testing"

	"github.com/papermem/papermem"
)

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -20000: "-20,000"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNewBarChart(t *testing.T) {
	c := newBarChart("Test", []bar{{Label: "a", N: 5}, {Label: "b", N: 10}, {Label: "quota", N: 30, Of: 20}, {Label: "none", N: 0, Of: 0},
		{Label: "bytes", N: 5000, Of: -1}})
	want := []struct {
		fill        float64
		over, noBar bool
	}{{100 * 5 / 10.0, false, false}, {100 * 10 / 10.0, false, false}, {100, true, false}, {0, false, false}, {0, false, true}}
	if c.Name != "Test" || len(c.Rows) != len(want) {
		t.Fatalf("chart %+v", c)
	}
	for i, w := range want {
		if r := c.Rows[i]; math.Abs(r.Fill-w.fill) > 1e-9 || r.Over != w.over || r.NoBar != w.noBar {
			t.Errorf("row %d: %+v, want fill %v over %v no bar %v", i, r, w.fill, w.over, w.noBar)
		}
	}
}

func TestCounterValue(t *testing.T) {
	for _, tc := range []struct {
		name        string
		n           int64
		label, want string
	}{
		{papermem.CounterAPIRequests, 358586, "API requests", "358,586"},
		{papermem.CounterBytesIngested, 358586, "Data ingested", "350.2 KiB"},
		{papermem.CounterBytesIngested, 524288000, "Data ingested", "500.0 MiB"},
		{papermem.CounterBytesIngested, 12, "Data ingested", "12 bytes"},
		{"new_counter", 1000, "new_counter", "1,000"},
	} {
		if l, v := counterLabel(tc.name), counterValue(tc.name, tc.n); l != tc.label || v != tc.want {
			t.Errorf("%s %d: %q %q, want %q %q", tc.name, tc.n, l, v, tc.label, tc.want)
		}
	}
	for _, name := range papermem.Counters {
		if counterLabel(name) == name {
			t.Errorf("counter %s has no label", name)
		}
	}
}
