package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// section is the HTML of the element with id, up to the end of its table
// or list, or "" when the page has none.
func section(body, id string) string {
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	for _, end := range []string{"</table>", "</ul>", "</section>", "</form>"} {
		if j := strings.Index(rest, end); j >= 0 {
			return rest[:j]
		}
	}
	return rest
}

func TestMemoryListsDocuments(t *testing.T) {
	s := newSite(t, false)
	if _, body := s.get("/dashboard/papers"); !strings.Contains(section(body, "documents"), "No documents yet.") {
		t.Fatalf("empty documents table: %.500s", section(body, "documents"))
	}
	res := s.upload("bench-notes.txt", "Alumina layers protect perovskite cells from damp heat.", s.csrf())
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	// A document ingested through the library is listed too.
	if _, err := s.m.Workspace(s.user.WorkspaceID).IngestFile(context.Background(), "lab-log.md",
		strings.NewReader("# Lab log\n\nThe oven ran at 85 C for a week."), papermem.IngestOptions{Domain: "materials"}); err != nil {
		t.Fatal(err)
	}
	_, body := s.get(loc)
	docs := section(body, "documents")
	for _, want := range []string{"bench-notes.txt", "Lab log", "lab-log.md", "materials", "md", `class="new"`} {
		if !strings.Contains(docs, want) {
			t.Errorf("documents table lacks %q: %s", want, docs)
		}
	}
	if strings.Index(docs, "Lab log") > strings.Index(docs, "bench-notes.txt") {
		t.Errorf("the newest document is not listed first: %s", docs)
	}
	if strings.Contains(section(body, "papers"), "bench-notes") {
		t.Errorf("a document is listed among the papers")
	}
}

func TestWorkspaceNameInHeader(t *testing.T) {
	s := newSite(t, false) // signed up without a workspace name
	if _, body := s.get("/dashboard/keys"); !strings.Contains(body, `id="workspace-name" title="Workspace `+s.user.WorkspaceID+`">`+s.user.WorkspaceID+`<`) {
		t.Errorf("a workspace without a name is not shown by its id: %s", section(body, "workspace-name"))
	}
	res := s.post("/dashboard/signup", url.Values{"email": {"bob@example.com"}, "password": {password}, "name": {"Bob"},
		"workspace_name": {"Bob's <lab>"}}, "")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signup: %d", res.StatusCode)
	}
	_, body := s.get("/dashboard/")
	if !strings.Contains(body, `>Bob&#39;s &lt;lab&gt;</span>`) {
		t.Errorf("the header does not show the workspace's name: %.2000s", body)
	}
	if u, err := s.svc.Login(context.Background(), "bob@example.com", password); err != nil || strings.Contains(body, ">"+u.WorkspaceID+"<") {
		t.Errorf("the header shows the workspace id %v", err)
	}
}

func TestAddUser(t *testing.T) {
	t.Run("ErrNotFounder", func(t *testing.T) {
		s := newSite(t, false)
		if _, body := s.get("/dashboard/users"); strings.Contains(body, "add-user-form") {
			t.Errorf("a non-founder is offered the form")
		}
		res := s.post("/dashboard/users", url.Values{"csrf": {s.csrf()}, "email": {"eve@example.com"}, "password": {password}}, "")
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d", res.StatusCode)
		}
		if _, err := s.svc.Login(context.Background(), "eve@example.com", password); err == nil {
			t.Fatal("the user was created")
		}
	})

	cfg := quiet
	cfg.FounderEmails = []string{"ada@example.com"}
	s := newSiteWith(t, false, cfg)
	if _, body := s.get("/dashboard/users"); !strings.Contains(body, `id="add-user-form"`) {
		t.Fatalf("a founder is not offered the form")
	}
	add := func(form url.Values, origin string) *http.Response {
		return s.post("/dashboard/users", form, origin)
	}
	form := url.Values{"name": {"Bob"}, "email": {"Bob@Example.com"}, "password": {"bob's password"}, "role": {"member"}}
	for _, tc := range []struct {
		name   string
		csrf   string
		origin string
	}{{"ErrNoToken", "", ""}, {"ErrOtherOrigin", s.csrf(), "http://evil.example"}} {
		t.Run(tc.name, func(t *testing.T) {
			f := url.Values{"csrf": {tc.csrf}}
			for k, v := range form {
				f[k] = v
			}
			if res := add(f, tc.origin); res.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d", res.StatusCode)
			}
		})
	}
	t.Run("OK", func(t *testing.T) {
		form.Set("csrf", s.csrf())
		res := add(form, "")
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/users?added=bob%40example.com" {
			t.Fatalf("status %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
		u, err := s.svc.Login(context.Background(), "bob@example.com", "bob's password")
		if err != nil || u.WorkspaceID != s.user.WorkspaceID || u.Role != hosted.RoleMember || u.Name != "Bob" {
			t.Fatalf("the new user %+v, %v", u, err)
		}
		_, body := s.get(res.Header.Get("Location"))
		if !strings.Contains(body, `id="added"`) || !strings.Contains(section(body, "users"), "bob@example.com") {
			t.Errorf("users page after adding: %.2000s", body)
		}
	})
	t.Run("ErrDuplicateEmail", func(t *testing.T) {
		form.Set("csrf", s.csrf())
		res := add(form, "")
		b, _ := io.ReadAll(res.Body)
		body := string(b)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="error"`) || !strings.Contains(body, "already exists") {
			t.Fatalf("status %d: %.300s", res.StatusCode, section(body, "error"))
		}
		if !strings.Contains(body, `value="Bob@Example.com"`) || strings.Contains(body, "bob&#39;s password") {
			t.Errorf("the form shown again should keep the email and drop the password")
		}
	})
	t.Run("ErrShortPassword", func(t *testing.T) {
		res := add(url.Values{"csrf": {s.csrf()}, "email": {"carol@example.com"}, "password": {"short"}}, "")
		if res.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", res.StatusCode)
		}
	})
	t.Run("AddedNotEchoed", func(t *testing.T) {
		if _, body := s.get("/dashboard/users?added=mallory%40example.com"); strings.Contains(body, "mallory") {
			t.Errorf("the page announces an account that does not exist")
		}
	})
}

func TestFavicon(t *testing.T) {
	s := newSite(t, false)
	for _, p := range []string{"/dashboard/login", "/dashboard/keys", "/dashboard/nope"} {
		if _, body := s.get(p); !strings.Contains(body, `<link rel="icon" href="/dashboard/static/favicon.svg"`) {
			t.Errorf("%s links no icon", p)
		}
	}
	res, body := s.get("/dashboard/static/favicon.svg")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(body, "<svg") {
		t.Fatalf("favicon: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// TestCheckoutWithoutProvider: choosing a paid plan on a server with no
// payment provider says why on the billing page.
func TestCheckoutWithoutProvider(t *testing.T) {
	s := newSite(t, false)
	res := s.post("/dashboard/billing/checkout", url.Values{"csrf": {s.csrf()}, "plan": {"team"}}, "")
	b, _ := io.ReadAll(res.Body)
	body := string(b)
	if res.StatusCode != http.StatusBadGateway || !strings.Contains(section(body, "error"), "No payment provider is configured") {
		t.Fatalf("status %d: %.300s", res.StatusCode, section(body, "error"))
	}
	if strings.Contains(body, "Internal error") || !strings.Contains(body, `id="plan-name"`) {
		t.Errorf("not the billing page with the reason: %.2000s", body)
	}
}

// TestOverviewCharts: the charts are text a screen reader reads, with
// human labels and byte sizes in KiB or MiB.
func TestOverviewCharts(t *testing.T) {
	s := newSite(t, false)
	if res := s.upload("notes.txt", strings.Repeat("Alumina layers protect perovskite cells from damp heat. ", 40), s.csrf()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	_, body := s.get("/dashboard/")
	if strings.Contains(body, `role="img"`) {
		t.Errorf("an image chart hides its figures")
	}
	usage := section(body, "chart-usage")
	for _, want := range []string{`<ul class="chart" aria-label="Usage this period against Starter Tier">`, "API requests",
		"Data ingested", regexp.QuoteMeta("KiB of 500.0 MiB")} {
		if !regexp.MustCompile(want).MatchString(usage) {
			t.Errorf("usage chart lacks %q: %s", want, usage)
		}
	}
	for _, raw := range papermem.Counters {
		if strings.Contains(body, raw) {
			t.Errorf("the overview shows the identifier %s", raw)
		}
	}
	for _, id := range []string{"chart-memory", "chart-cache"} {
		if !strings.Contains(section(body, id), `<ul class="chart" aria-label=`) {
			t.Errorf("%s has no named chart: %s", id, section(body, id))
		}
	}
	if mem := section(body, "chart-memory"); !regexp.MustCompile(`Documents</span>\s*<span class="chart-value">1<`).MatchString(mem) {
		t.Errorf("memory chart: %s", mem)
	}
}

// TestAccessibleMarkup checks what axe-core cannot see from one page
// state: the skip link and current page on every page, the names of the
// revoke links, and the live regions.
func TestAccessibleMarkup(t *testing.T) {
	s := newSite(t, false)
	res := s.post("/dashboard/keys", url.Values{"csrf": {s.csrf()}, "name": {"notebook"}}, "")
	b, _ := io.ReadAll(res.Body)
	created := string(b)
	if !strings.Contains(created, `id="copy-status" class="visually-hidden" role="status" aria-live="polite"`) {
		t.Errorf("the copied key is announced nowhere")
	}
	for nav, path := range map[string]string{"/dashboard/": "/dashboard/", "/dashboard/papers": "/dashboard/papers",
		"/dashboard/keys": "/dashboard/keys", "/dashboard/users": "/dashboard/users"} {
		_, body := s.get(path)
		if !strings.Contains(body, `<a class="skip" href="#main">`) || !strings.Contains(body, `<main id="main"`) {
			t.Errorf("%s: no skip link", path)
		}
		if n := strings.Count(body, `aria-current="page"`); n != 1 || !strings.Contains(body, `<a href="`+nav+`" aria-current="page">`) {
			t.Errorf("%s: %d links marked current", path, n)
		}
	}
	_, keys := s.get("/dashboard/keys")
	if !regexp.MustCompile(`aria-label="Revoke key notebook \([^"]+…\)">Revoke</a>`).MatchString(keys) ||
		!strings.Contains(keys, "<th>Actions</th>") {
		t.Errorf("keys table: %s", section(keys, "keys"))
	}
	if _, papers := s.get("/dashboard/papers"); !strings.Contains(papers, `id="upload-status" role="status" aria-live="polite"`) {
		t.Errorf("upload status is no live region")
	}
}
