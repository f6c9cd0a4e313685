package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/mcpserver"
)

// TestCitationTools calls the citation graph's tools in process, the
// origins stood in by a made-up graph.
func TestCitationTools(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	m := testutil.Open(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: g.CrossrefURL(),
		UnpaywallURL: g.UnpaywallURL(), OpenAlexURL: g.OpenAlexURL(), Contact: "ops@example.org"}})
	ws := m.Workspace("lab")
	for _, d := range []string{"10.1000/a", "10.1000/b", "10.1000/g3"} {
		testutil.MustStore(t, ws, papermem.PaperInput{DOI: d})
	}
	cs := connect(t, mcpserver.New(mcpserver.Local(ws, ""), &mcpserver.Options{Logger: quiet}))

	refs, txt := ok[papermem.CitationList](t, cs, "references", map[string]any{"doi": "10.1000/a"})
	if len(refs.Works) != 4 || !strings.Contains(txt, "doi:10.1000/g3 The much-cited trial (2010) [in memory]") {
		t.Errorf("references: %+v\n%s", refs, txt)
	}
	cites, txt := ok[papermem.CitationList](t, cs, "citations", map[string]any{"doi": "10.1000/b"})
	if len(cites.Works) != 1 || !strings.Contains(txt, "doi:10.1000/d Paper D, a review (2023)") {
		t.Errorf("citations: %+v\n%s", cites, txt)
	}
	rel, txt := ok[struct {
		Papers []papermem.CitationRelated `json:"papers"`
	}](t, cs, "related_papers", map[string]any{"doi": "10.1000/a"})
	if len(rel.Papers) != 1 || rel.Papers[0].DOI != "10.1000/b" || !strings.Contains(txt, "2 shared references, 1 shared citers") {
		t.Errorf("related_papers: %+v\n%s", rel, txt)
	}
	gaps, txt := ok[struct {
		Works []papermem.CitationGap `json:"works"`
	}](t, cs, "citation_gaps", map[string]any{"limit": 1})
	if len(gaps.Works) != 1 || gaps.Works[0].DOI != "10.1000/g4" || !strings.Contains(txt, "cited by 2 paper(s)") {
		t.Errorf("citation_gaps: %+v\n%s", gaps, txt)
	}
	fails(t, cs, "references", map[string]any{"doi": "10.1000/none"}, "not_found")
	fails(t, cs, "citation_gaps", map[string]any{"limit": 500}, "invalid_input")
}
