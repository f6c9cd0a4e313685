package client_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// TestCitationRoutes checks the citation graph's methods against the
// library's answers over the same database, with the origins stood in.
func TestCitationRoutes(t *testing.T) {
	ctx := context.Background()
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	svc := testutil.OpenHosted(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: g.CrossrefURL(),
		UnpaywallURL: g.UnpaywallURL(), OpenAlexURL: g.OpenAlexURL(), Contact: "ops@example.org",
		NoCitations: true}}, nil) // links read on request only: no job changes the gaps between two reads
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{}))
	t.Cleanup(srv.Close)
	anon := client.New(srv.URL, nil)
	tok := must(anon.Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse", WorkspaceID: "lab-ada"}))(t)
	ada := anon.WithToken(tok.AccessToken)
	ws := svc.Memory().Workspace("lab-ada")
	for _, d := range []string{"10.1000/a", "10.1000/b", "10.1000/c"} {
		must(ada.StorePaper(ctx, api.PaperRequest{DOI: &d}))(t)
	}

	refs := must(ada.References(ctx, "10.1000/a", false))(t)
	if d := cmp.Diff(must(ws.References(ctx, "10.1000/a", papermem.CitationOptions{}))(t), refs); d != "" || len(refs.Works) != 4 {
		t.Errorf("references (-library +client):\n%s", d)
	}
	cites := must(ada.Citations(ctx, "10.1000/a", true))(t)
	if len(cites.Works) != 1 || cites.Works[0].DOI != "10.1000/d" {
		t.Errorf("citations = %+v", cites)
	}
	must(ada.References(ctx, "10.1000/b", false))(t)
	rel := must(ada.Related(ctx, "10.1000/a", 1))(t)
	if len(rel) != 1 || rel[0].DOI != "10.1000/b" || rel[0].Score != 3 {
		t.Errorf("related = %+v", rel)
	}
	gaps := must(ada.Gaps(ctx, 0))(t)
	if d := cmp.Diff(must(ws.Gaps(ctx, 0))(t), gaps); d != "" || len(gaps) == 0 || gaps[0].DOI != "10.1000/g3" {
		t.Errorf("gaps (-library +client):\n%s", d)
	}
	_, err := ada.References(ctx, "10.1000/none", false)
	wantCode(t, err, "not_found")
	_, err = ada.Gaps(ctx, 500)
	wantCode(t, err, "invalid_input")
}
