package papermem

import "testing"

func TestNormalizeDOI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"10.1000/XYZ", "10.1000/xyz"},
		{"  doi:10.1000/abc ", "10.1000/abc"},
		{"DOI:10.1000/abc", "10.1000/abc"},
		{"https://doi.org/10.1038/NATURE123", "10.1038/nature123"},
		{"http://dx.doi.org/10.1/x", "10.1/x"},
		{"10.1000%2Fxyz", "10.1000/xyz"},
		{"local:ABC123", "local:abc123"},
		{"local:", ""},
		{"not a doi", ""},
		{"10.1000", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := NormalizeDOI(tt.in); got != tt.want {
			t.Errorf("NormalizeDOI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFindDOI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://journals.org/article/10.1371/journal.pone.0234687", "10.1371/journal.pone.0234687"},
		{"See doi:10.1000/ABC.", "10.1000/abc"},
		{"(https://doi.org/10.5555/x)", "10.5555/x"},
		{"no id here", ""},
	}
	for _, tt := range tests {
		if got := FindDOI(tt.in); got != tt.want {
			t.Errorf("FindDOI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLocalIDStable(t *testing.T) {
	if localID("A  Title") != localID("a title") {
		t.Error("local id depends on case or spacing")
	}
	if localID("a") == localID("b") {
		t.Error("different keys share a local id")
	}
}

func FuzzNormalizeDOI(f *testing.F) {
	f.Add("https://doi.org/10.1000/xyz")
	f.Add("local:abc")
	f.Fuzz(func(t *testing.T, s string) {
		d := NormalizeDOI(s)
		if d != "" && NormalizeDOI(d) != d {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, d, NormalizeDOI(d))
		}
	})
}
