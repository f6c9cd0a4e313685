package main

import (
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestCitationCommands runs references, citations, related and gaps on a
// database file whose origins are a stand-in serving a made-up graph.
func TestCitationCommands(t *testing.T) {
	g := testutil.FakeGraph(t, testutil.SmallGraph()...)
	env := map[string]string{"PAPERMEM_CROSSREF_URL": g.CrossrefURL(), "PAPERMEM_OPENALEX_URL": g.OpenAlexURL(),
		"PAPERMEM_UNPAYWALL_URL": g.UnpaywallURL(), "PAPERMEM_CONTACT_EMAIL": "ops@example.org"}
	db := testdb.Path(t)
	run := func(args ...string) (string, error) {
		t.Helper()
		out, _, err := cli(t, env, append([]string{"--db", db}, args...)...)
		return out, err
	}
	for _, d := range []string{"10.1000/a", "10.1000/b", "10.1000/g3"} {
		if _, err := run("store", "--doi", d); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"references", "10.1000/a"}, "10.1000/g3\t2010\tThe much-cited trial\tin memory\n10.1000/g4\t2012\tA cohort study\n"},
		{[]string{"references", "10.1000/a"}, "openalex:W9\t2001\tA report without a DOI\n"},
		{[]string{"citations", "10.1000/b", "--refresh"}, "10.1000/d\t2023\tPaper D, a review\n"},
		{[]string{"related", "10.1000/a"}, "10.1000/b\t3\tcoupling 2\tco-citation 1\tPaper B on vitamin D and falls\n"},
		{[]string{"gaps", "--limit", "1"}, "10.1000/g4\tcited by 2\t2012\tA cohort study\n"},
		{[]string{"references", "10.1000/a", "--json"}, `"in_memory": true`},
	} {
		if out, err := run(c.args...); err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%v: %v, want %q in\n%s", c.args, err, c.want, out)
		}
	}
	if _, err := run("references", "10.1000/none"); err == nil || !strings.Contains(err.Error(), "not in memory") {
		t.Errorf("references of a paper not in memory: %v", err)
	}
	if _, err := run("gaps", "--limit", "500"); err == nil {
		t.Error("gaps --limit 500: no error")
	}
}
