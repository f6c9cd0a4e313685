package ftsterm_test

import (
	"testing"

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
	} {
		var got []string
		ftsterm.Terms(c.text, func(term string) { got = append(got, term) })
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Terms(%q) (-FTS5 +got):\n%s", c.text, diff)
		}
	}
}
