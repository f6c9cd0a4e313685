package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/internal/zotero/zoterotest"
)

// TestImportExportFile imports a Zotero BibTeX export with its files/
// folder into a database file, then reads, lists, recalls and deletes.
func TestImportExportFile(t *testing.T) {
	db := testdb.Path(t)
	dir := filepath.Join(t.TempDir(), "My Library")
	os.MkdirAll(filepath.Join(dir, "files", "7"), 0o755)
	os.WriteFile(filepath.Join(dir, "files", "7", "Vitamin D and falls.pdf"),
		testutil.PDF("Vitamin D and falls", "Daily vitamin D supplementation did not reduce falls among adults over seventy."), 0o644)
	bib := `@article{smith_vitamin_2021,
	title = {Vitamin {D} and falls},
	doi = {10.1000/vitd.falls},
	author = {Smith, Jane},
	year = {2021},
	journal = {Journal of Ageing},
	keywords = {vitamin D, falls},
	file = {Full Text PDF:files/7/Vitamin D and falls.pdf:application/pdf},
}
@book{noether_1921, title = {Rings and ideals}, year = {1921}}
`
	lib := filepath.Join(dir, "My Library.bib")
	os.WriteFile(lib, []byte(bib), 0o644)

	out, _, err := cli(t, nil, "--db", db, "import", lib)
	if err != nil || !strings.Contains(out, "import 1 of bibtex My Library.bib: done") || counts(out) != "2 2 1 0 0 0" {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, _, err = cli(t, nil, "--db", db, "recall", "Does vitamin D prevent falls in older adults?", "--label", "Passage", "--json")
	if err != nil || !strings.Contains(out, `"doi": "10.1000/vitd.falls"`) {
		t.Errorf("recall: %v\n%s", err, out)
	}
	out, _, err = cli(t, nil, "--db", db, "paper", "10.1000/vitd.falls")
	if err != nil || !strings.Contains(out, "Journal of Ageing") || !strings.Contains(out, "falls, vitamin D") || !strings.Contains(out, "bibtex:My Library.bib") {
		t.Errorf("paper: %v\n%s", err, out)
	}
	out, _, err = cli(t, nil, "--db", db, "library", "--tag", "falls")
	if err != nil || !strings.Contains(out, "10.1000/vitd.falls") || !strings.Contains(out, "1 paper") {
		t.Errorf("library --tag falls: %v\n%s", err, out)
	}
	out, _, err = cli(t, nil, "--db", db, "import", lib)
	if err != nil || counts(out) != "2 0 0 0 2 0" {
		t.Errorf("second import changed something: %v\n%s", err, out)
	}
	if out, _, err = cli(t, nil, "--db", db, "delete", "10.1000/vitd.falls"); err != nil || !strings.Contains(out, "deleted 10.1000/vitd.falls") {
		t.Errorf("delete: %v\n%s", err, out)
	}
	if _, _, err = cli(t, nil, "--db", db, "paper", "10.1000/vitd.falls"); err == nil {
		t.Error("the deleted paper is still shown")
	}
	if _, _, err = cli(t, nil, "--db", db, "import", "zotero"); err == nil || !strings.Contains(err.Error(), "--library") {
		t.Errorf("import zotero without a library: %v", err)
	}
}

// TestImportZotero imports a Zotero library, web and desktop, into a
// database file, and the web one through a server.
func TestImportZoteroCLI(t *testing.T) {
	web := zoterotest.New("users/4242", "zkey-cli-0123456789")
	wsrv := web.Start()
	t.Cleanup(wsrv.Close)
	web.Put("ART1", map[string]any{"itemType": "journalArticle", "title": "Statins and LDL cholesterol", "DOI": "10.1000/statins"})
	web.PutFile("PDF1", testutil.PDF("Statins lowered LDL cholesterol by a third in the treated group."), map[string]any{"parentItem": "ART1"})
	desk := zoterotest.New("users/0", "")
	desk.Local, desk.FileDir = true, t.TempDir()
	dsrv := desk.Start()
	t.Cleanup(dsrv.Close)
	desk.Put("ART9", map[string]any{"itemType": "journalArticle", "title": "Permafrost methane", "DOI": "10.1000/permafrost"})
	desk.PutFile("PDF9", testutil.PDF("Permafrost thaw releases methane from Siberian lakes."), map[string]any{"parentItem": "ART9"})
	env := map[string]string{"PAPERMEM_ZOTERO_URL": wsrv.URL, "PAPERMEM_ZOTERO_LOCAL_URL": dsrv.URL, "ZOTERO_API_KEY": "zkey-cli-0123456789"}

	db := testdb.Path(t)
	out, _, err := cli(t, env, "--db", db, "import", "zotero", "--library", "users/4242")
	if err != nil || !strings.Contains(out, "import 1 of zotero users/4242: done") {
		t.Fatalf("import zotero: %v\n%s", err, out)
	}
	out, _, err = cli(t, env, "--db", db, "import", "zotero", "--local")
	if err != nil || !strings.Contains(out, "zotero-local users/0: done") {
		t.Fatalf("import zotero --local: %v\n%s", err, out)
	}
	for q, doi := range map[string]string{"How much did statins lower LDL cholesterol?": "10.1000/statins", "methane from Siberian lakes": "10.1000/permafrost"} {
		out, _, err = cli(t, env, "--db", db, "recall", q, "--label", "Passage", "--json")
		if err != nil || !strings.Contains(out, `"doi": "`+doi+`"`) {
			t.Errorf("recall %q: %v\n%s", q, err, out)
		}
	}
	if _, _, err := cli(t, map[string]string{"PAPERMEM_ZOTERO_URL": wsrv.URL}, "--db", db, "import", "zotero", "--library", "users/4242", "--zotero-key", "wrong"); err == nil ||
		!strings.Contains(err.Error(), "refused the API key") {
		t.Errorf("a wrong key: %v", err)
	}

	// Through a server.
	ctx := context.Background()
	svc := testutil.OpenHosted(t, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: wsrv.URL}}, nil)
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	tok, err := client.New(srv.URL, nil).Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse", WorkspaceID: "lab-ada"})
	if err != nil {
		t.Fatal(err)
	}
	renv := map[string]string{"PAPERMEM_URL": srv.URL, "PAPERMEM_KEY": tok.AccessToken, "ZOTERO_API_KEY": "zkey-cli-0123456789"}
	out, _, err = cli(t, renv, "import", "zotero", "--library", "users/4242")
	if err != nil || !strings.Contains(out, ": done") || counts(out) != "2 1 1 0 1 0" {
		t.Errorf("import zotero through a server: %v\n%s", err, out)
	}
	if _, _, err := cli(t, renv, "import", "zotero", "--local"); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("import zotero --local through a server: %v", err)
	}
}

// counts returns the counts of an import's summary: items, papers, files,
// deleted, skipped and errors, separated by spaces.
func counts(out string) string {
	_, rest, _ := strings.Cut(out, "ERRORS\n")
	line, _, _ := strings.Cut(rest, "\n")
	return strings.Join(strings.Fields(line), " ")
}
