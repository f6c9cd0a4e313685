package papermem_test

import (
	"testing"

	"github.com/papermem/papermem"
)

func TestCitation(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    papermem.Provenance
		want string
	}{
		{"Paper", papermem.Provenance{Kind: "paper", DOI: "10.1000/vitd", Title: "Vitamin D and fractures", Section: "Results", Page: 3},
			"Vitamin D and fractures, doi:10.1000/vitd, Results, p. 3"},
		{"Document", papermem.Provenance{Kind: "document", Title: "Cups", Source: "cups.xlsx", Sheet: "Winners", Row: 4},
			"Cups, cups.xlsx, sheet Winners, row 4"},
		{"DocumentSectionRepeatsTitle", papermem.Provenance{Kind: "document", Title: "Notes", Source: "notes.md", Section: "Notes > Night shifts"},
			"Notes, notes.md, Night shifts"},
		{"TitleIsFileName", papermem.Provenance{Kind: "document", Title: "cups.xlsx", Source: "cups.xlsx", Section: "Winners", Sheet: "Winners"},
			"cups.xlsx, sheet Winners"},
		{"Analysis", papermem.Provenance{Kind: "analysis", DOI: "10.1000/vitd"}, "analysis of doi:10.1000/vitd"},
		{"Memory", papermem.Provenance{Kind: "memory", Key: "style"}, `memory "style"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Citation(); got != tc.want {
				t.Errorf("Citation() = %q, want %q", got, tc.want)
			}
		})
	}
}
