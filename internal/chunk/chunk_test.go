package chunk

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"simple", "One sentence here. Another one follows! A third?", []string{"One sentence here.", "Another one follows!", "A third?"}},
		{"abbreviation", "As shown by Smith et al. in 2010, it works. Yes.", []string{"As shown by Smith et al. in 2010, it works.", "Yes."}},
		{"eg", "Some cues, e.g. Numbers, help. Done.", []string{"Some cues, e.g. Numbers, help.", "Done."}},
		{"decimal", "The value was 3.5 mg. Next.", []string{"The value was 3.5 mg.", "Next."}},
		{"paragraph", "Heading\n\nBody text without period", []string{"Heading", "Body text without period"}},
		{"lowercase next", "Version 2. and more", []string{"Version 2. and more"}},
		{"empty", "  \n ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Sentences(tt.in) {
				if tt.in[p.Start:p.End] != p.Text {
					t.Errorf("offsets %d:%d do not select %q", p.Start, p.End, p.Text)
				}
				got = append(got, p.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Sentences(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestPassages(t *testing.T) {
	text := strings.Repeat("This sentence has exactly some words in it. ", 50) + "\n\nLast paragraph."
	ps := Passages(text, 64)
	if len(ps) < 2 {
		t.Fatalf("got %d passages, want several", len(ps))
	}
	prev := 0
	for _, p := range ps {
		if p.Tokens > 64 {
			t.Errorf("passage of %d tokens exceeds 64", p.Tokens)
		}
		if text[p.Start:p.End] != p.Text || p.Start < prev {
			t.Errorf("bad offsets %d:%d", p.Start, p.End)
		}
		prev = p.End
	}
	if last := ps[len(ps)-1]; !strings.HasSuffix(last.Text, "Last paragraph.") {
		t.Errorf("last passage = %q", last.Text)
	}
}

func FuzzSentences(f *testing.F) {
	f.Add("One. Two! Three? e.g. Four.\n\nFive")
	f.Add("Ünïcödé. Ωmega 3.5 et al. X")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range Sentences(s) {
			if p.Start < 0 || p.End > len(s) || s[p.Start:p.End] != p.Text || p.Text == "" {
				t.Fatalf("bad piece %+v", p)
			}
		}
	})
}
