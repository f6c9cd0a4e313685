package dashboard_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// TestPaperPageCitations checks that a paper's page lists its references
// and citers, linking those in memory.
func TestPaperPageCitations(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	svc := testutil.OpenHosted(t, &papermem.Options{Origins: &papermem.OriginOptions{CrossrefURL: g.CrossrefURL(),
		UnpaywallURL: g.UnpaywallURL(), OpenAlexURL: g.OpenAlexURL(), Contact: "ops@example.org"}}, nil)
	srv := httptest.NewServer(httpapi.New(svc, quiet))
	t.Cleanup(srv.Close)
	c := srv.Client()
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s := &site{t: t, m: svc.Memory(), svc: svc, srv: srv, c: c}
	if res := s.post("/dashboard/signup", url.Values{"email": {"ada@example.com"}, "password": {password}, "name": {"Ada"}}, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signup: %d", res.StatusCode)
	}
	u, err := svc.Login(context.Background(), "ada@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	ws := s.m.Workspace(u.OrgID)
	for _, d := range []string{"10.1000/a", "10.1000/g3"} {
		testutil.MustStore(t, ws, papermem.PaperInput{DOI: d})
	}

	if _, err := ws.FetchCitations(context.Background(), "10.1000/a", false); err != nil {
		t.Fatal(err)
	}
	_, body := s.get("/dashboard/papers/10.1000/a")
	cit := body[strings.Index(body, `id="citations"`):]
	for _, want := range []string{`<a href="/dashboard/papers/10.1000/g3">The much-cited trial</a>`, "A cohort study (2012) <code>10.1000/g4</code>",
		"A report without a DOI (2001)", "Cited by", "Paper D, a review (2023)"} {
		if !strings.Contains(cit, want) {
			t.Errorf("citations section lacks %q:\n%.3000s", want, cit)
		}
	}
	if strings.Contains(cit, `href="/dashboard/papers/10.1000/g4"`) {
		t.Error("a work not in memory is linked")
	}
}
