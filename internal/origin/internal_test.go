package origin

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", -1},
		{"1", time.Second},
		{" 2 ", 2 * time.Second},
		{"0", 0},
		{"-3", -1},
		{"soon", -1},
		{"1.5", -1},
		{"99999999999999999", (1 << 20) * time.Second},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"Sun, 01 Mar 2026 12:00:30 GMT", 30 * time.Second},
	} {
		if got := retryAfter(tc.v, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := New(Options{Backoff: 100 * time.Millisecond, MaxRetryWait: time.Second})
	for n, d := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		d *= time.Millisecond
		for range 50 {
			if got := c.backoffAfter(n); got < d/2 || got > d {
				t.Fatalf("backoffAfter(%d) = %s, want in [%s, %s]", n, got, d/2, d)
			}
		}
	}
	if got := c.backoffAfter(200); got < 500*time.Millisecond || got > time.Second {
		t.Errorf("backoffAfter(200) = %s, want the cap", got)
	}
}

func TestCleanDOI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10.1000/XYZ", "10.1000/xyz"},
		{" doi:10.1000/xyz ", "10.1000/xyz"},
		{"DOI:10.1000/xyz", "10.1000/xyz"},
		{"https://doi.org/10.1000/xyz", "10.1000/xyz"},
		{"http://dx.doi.org/10.1000/a/b", "10.1000/a/b"},
		{"10.1002/(SICI)1097-4636(199606)31:2<213::AID-JBM9>3.0.CO;2-Q", "10.1002/(sici)1097-4636(199606)31:2<213::aid-jbm9>3.0.co;2-q"},
		{"10.1000/", ""},
		{"10./xyz", ""},
		{"11.1000/xyz", ""},
		{"10.1000/x y", ""},
		{"10.1000/x\ny", ""},
		{"", ""},
		{"Attention is all you need", ""},
	} {
		if got := cleanDOI(tc.in); got != tc.want {
			t.Errorf("cleanDOI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeDOI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10.1000/xyz.1", "10.1000/xyz.1"},
		{"10.1002/(sici)1097-4636(199606)31:2<213::aid-jbm9>3.0.co;2-q", "10.1002/%28sici%291097-4636%28199606%2931:2%3C213::aid-jbm9%3E3.0.co%3B2-q"},
		{"10.1000/a?b#c%d", "10.1000/a%3Fb%23c%25d"},
		{"10.1000/a/b", "10.1000/a/b"},
	} {
		if got := escapeDOI(tc.in); got != tc.want {
			t.Errorf("escapeDOI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"Deep learning for cats", "deep LEARNING, for cats!", 1},
		{"Deep <i>learning</i> for cats &amp; dogs", "deep learning for cats dogs", 1},
		{"<mml:math xmlns:mml=\"http://www.w3.org/1998/Math/MathML\"><mml:mi>k</mml:mi></mml:math>-means clustering", "k means clustering", 1},
		{"Déjà vu in 2020", "déjà vu in 2020", 1},
		{"a b c d", "a b c e", 0.75},
		{"a b", "c d", 0},
		{"", "", 0},
	} {
		if got := dice(words(tc.a), words(tc.b)); got != tc.want {
			t.Errorf("dice(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCleanTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Deep <i>learning</i>  for\ncats &amp; dogs", "Deep learning for cats & dogs"},
		{"H<sub>2</sub>O and CO<sub>2</sub>", "H2O and CO2"},
		{"<jats:title>Effects of x</jats:title>", "Effects of x"},
		{"When a < b and c > d", "When a < b and c > d"},
		{"<scp>Covid</scp>-19", "Covid-19"},
		{"If a <b and c> d", "If a <b and c> d"},
		{"<span class='x' id=\"y\">Tagged</span><br/>", "Tagged<br/>"},
		{"x<sup/>", "x"},
	} {
		if got := cleanTitle(tc.in); got != tc.want {
			t.Errorf("cleanTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDateParts(t *testing.T) {
	for _, tc := range []struct {
		parts [][]any
		want  string
	}{
		{[][]any{{2021.0, 1.0, 2.0}}, "2021-01-02"},
		{[][]any{{2021.0, 7.0}}, "2021-07"},
		{[][]any{{2021.0}}, "2021"},
		{[][]any{{nil}}, ""},
		{[][]any{{"2020", "3"}}, "2020-03"},
		{[][]any{{2021.0, nil, 2.0}}, "2021"},
		{nil, ""},
		{[][]any{{}}, ""},
	} {
		if got := (dateParts{tc.parts}).date(); got != tc.want {
			t.Errorf("date(%v) = %q, want %q", tc.parts, got, tc.want)
		}
	}
}
