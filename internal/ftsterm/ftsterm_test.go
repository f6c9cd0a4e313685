package ftsterm_test

import (
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/papermem/papermem/internal/ftsterm"
)

// TestTerms checks Terms on hard cases, against the terms FTS5 indexed for
// them, in order (read from an fts5vocab 'instance' table; the full check
// against FTS5, TestTermsMatchFTS5, needs the build tag sqlite_fts5).
func TestTerms(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Running runners ran; the cats' caresses were generalizations.",
			[]string{"run", "runner", "ran", "the", "cat", "caress", "were", "gener"}},
		{"Café naïve résumé Ångström façade coöperate",
			[]string{"cafe", "naiv", "resum", "angstrom", "facad", "cooper"}},
		{"COVID-19 IL-6 p<0.05 CD4+ T-cells α-synuclein",
			[]string{"covid", "19", "il", "6", "p", "0", "05", "cd4", "t", "cell", "α", "synuclein"}},
		{"a \u05b0 b x\u0301y \u0301\u0301", []string{"a", "b", "xy"}}, // marks alone fold to nothing
	} {
		var got []string
		ftsterm.Terms(c.text, func(term string) { got = append(got, term) })
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Terms(%q) (-FTS5 +got):\n%s", c.text, diff)
		}
	}
}

// FuzzTerms checks that any text splits without a panic (the Porter
// stemmer has panicked on short non-words in other ports) into one
// non-empty term per token, made only of letters, digits and private-use
// characters (seed 9fb2a2d2eeb67dfb, a lone combining mark, gave an empty
// term).
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"Running runners ran", "eing aing aed ion ies eeg oing", "Café ÅNGSTRÖM α-synuclein", "\xff\xfe ии 山", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tokens := 0
		ftsterm.Tokens(text, func(string) { tokens++ })
		terms := 0
		ftsterm.Terms(text, func(term string) {
			terms++
			if term == "" {
				t.Fatalf("Terms(%q) gave an empty term", text)
			}
			for _, r := range term {
				if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.In(r, unicode.Co) {
					t.Fatalf("Terms(%q) gave %q, with %q", text, term, r)
				}
			}
		})
		if terms != tokens {
			t.Fatalf("Terms(%q) gave %d terms for %d tokens", text, terms, tokens)
		}
	})
}
