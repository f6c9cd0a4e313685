package dashboard_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "rewrite the README's screenshots in docs/dashboard")

// browser is a headless Chromium driving the dashboard of a real server
// over a real database. Screenshots go to $PAPERMEM_ARTIFACTS, or to a
// temporary directory when it is unset.
type browser struct {
	t         *testing.T
	ctx       context.Context
	srv       *httptest.Server
	m         *papermem.Memory
	artifacts string
}

// chromiumPath finds the browser: $CHROMIUM, else chromium or
// google-chrome on PATH.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts the server and one browser for the test; both stop
// when it ends. Without a browser the test is skipped, unless CI is set.
func newBrowser(t *testing.T, cfg httpapi.Config, opts *papermem.Options) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium found and CI is set")
		}
		t.Skip("no chromium found (install Debian's chromium or set $CHROMIUM)")
	}
	m := testutil.Open(t, opts)
	srv := httptest.NewServer(httpapi.New(m, cfg))
	t.Cleanup(srv.Close)

	dir := os.Getenv("PAPERMEM_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Logf("screenshots in %s", dir)
	return &browser{t: t, ctx: ctx, srv: srv, m: m, artifacts: dir}
}

// run runs steps with a deadline, failing the test on error.
func (b *browser) run(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Steps(steps...)); err != nil {
		b.t.Fatalf("browser: %v (at %s)", err, b.location())
	}
}

// text returns the text of the first element matching sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		b.t.Fatalf("text of %s: %v (at %s)", sel, err, b.location())
	}
	return s
}

func (b *browser) location() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	l, _ := chromedp.Run(ctx, chromedp.Location())
	return l
}

// open navigates to a dashboard path and waits for sel.
func (b *browser) open(path, sel string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.srv.URL+path), chromedp.WaitVisible(sel))
}

// shot writes the page's screenshot as name.png in the artifact directory,
// and in docs/dashboard with -update-screenshots when readme is set.
func (b *browser) shot(name string, readme bool) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.artifacts, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	if readme && *updateScreenshots {
		if err := os.WriteFile(filepath.Join("..", "docs", "dashboard", name+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

// bearerStatus is the status of GET /v1/account with the API key.
func (b *browser) bearerStatus(key string) int {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+"/v1/account", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestBrowser walks the dashboard in headless Chromium, one browser for
// every step, each step's page screenshotted.
func TestBrowser(t *testing.T) {
	cfg := quiet
	cfg.FounderEmails = []string{"grace@example.com"}
	cfg.DashboardPayments = true
	b := newBrowser(t, cfg, &papermem.Options{Payments: papermem.NewSignedOrders("browser-test-payment-secret")})

	t.Run("SignUp", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/", "#login-form")
		b.shot("login", false)
		b.open("/dashboard/signup", "#signup-form")
		b.run(chromedp.SetValue("#name", "Ada"), chromedp.SetValue("#email", "ada@example.com"),
			chromedp.SetValue("#password", "correct horse battery"), chromedp.SetValue("#workspace_name", "Ada's lab"))
		b.shot("signup", false)
		b.run(chromedp.Click("#signup"), chromedp.WaitVisible("form.logout"))
		b.shot("signup-done", false)
		if who := b.text(".who"); !strings.Contains(who, "ada@example.com") {
			t.Errorf("signed in as %q", who)
		}
	})

	var key, keyID string
	t.Run("CreateKeyAndUseIt", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/keys", "#create-key")
		b.run(chromedp.SetValue("#key-name", "notebook"), chromedp.Click("#create-key"), chromedp.WaitVisible("#new-key"))
		b.shot("keys-created", false)
		b.run(chromedp.Click("#copy"), chromedp.WaitVisible(`//button[@id="copy" and text()="Copied"]`))
		key = strings.TrimSpace(b.text("#new-key"))
		if !strings.HasPrefix(key, papermem.KeyPrefix) {
			t.Fatalf("new key %q", key)
		}
		if st := b.bearerStatus(key); st != http.StatusOK {
			t.Fatalf("GET /v1/account with the new key: %d", st)
		}
		keys, err := b.m.Workspace(b.orgOf(t, "ada@example.com")).APIKeys(context.Background())
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys %v, %v", keys, err)
		}
		keyID = keys[0].KeyID
		// Reloaded, the page lists the key without its value.
		b.open("/dashboard/keys", "#keys")
		if page := b.text("#keys"); strings.Contains(page, key) || !strings.Contains(page, keys[0].Prefix) {
			t.Errorf("key list %q", page)
		}
	})

	t.Run("UploadAndFindInPapers", func(t *testing.T) {
		b.t = t
		file, err := filepath.Abs(filepath.Join("..", "testdata", "dashboard", "notes.md"))
		if err != nil {
			t.Fatal(err)
		}
		b.open("/dashboard/papers", "#upload-form")
		b.run(chromedp.SetUploadFiles("#file", []string{file}), chromedp.SetValue("#doi", "10.5555/perovskite.2026"),
			chromedp.SetValue("#domain", "materials"), chromedp.Click("#upload"), chromedp.WaitVisible("#paper"))
		b.shot("paper", false)
		if p := b.text("main"); !strings.Contains(p, "10.5555/perovskite.2026") || !strings.Contains(p, "alumina") {
			t.Errorf("paper page: %.500s", p)
		}
		b.open("/dashboard/papers", "#papers")
		b.shot("papers", false)
		if list := b.text("#papers"); !strings.Contains(list, "Lab notes on perovskite stability") {
			t.Errorf("papers list: %q", list)
		}
		b.run(chromedp.SetValue("#q", "damp heat encapsulation"), chromedp.Click("#search"), chromedp.WaitVisible("#show-all"))
		b.shot("papers-search", false)
		if list := b.text("#papers"); !strings.Contains(list, "10.5555/perovskite.2026") {
			t.Errorf("search found: %q", list)
		}
	})

	t.Run("Recall", func(t *testing.T) {
		b.t = t
		b.recall(t)
	})

	t.Run("Overview", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/", "#overview")
		b.shot("overview", true)
		if n := b.text("#stat-nodes"); n == "0" {
			t.Errorf("overview counts %s nodes", n)
		}
		if d := b.text("#chart-domains"); !strings.Contains(d, "materials") {
			t.Errorf("top domains: %q", d)
		}
		if u := b.text("#chart-usage"); !strings.Contains(u, "api_requests") || !strings.Contains(u, "papers_stored") {
			t.Errorf("usage chart: %q", u)
		}
	})

	t.Run("ChangePlanThroughCheckout", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/billing", "#choose-team")
		b.shot("billing", false)
		b.run(chromedp.Click("#choose-team"), chromedp.WaitVisible("#confirm-checkout"))
		b.shot("checkout", false)
		b.run(chromedp.Click("#confirm-checkout"), chromedp.WaitVisible("#changed"))
		b.shot("billing-team", false)
		if p := b.text("#plan-name"); p != "Team Tier" {
			t.Errorf("plan after checkout: %q", p)
		}
		if inv := b.text("#invoices"); !strings.Contains(inv, "team") || !strings.Contains(inv, "paid") {
			t.Errorf("invoices: %q", inv)
		}
		// The free plan is active at once, without checkout.
		b.run(chromedp.Click("#choose-starter"), chromedp.WaitVisible("#choose-team"))
		if p := b.text("#plan-name"); p != "Starter Tier" {
			t.Errorf("plan after choosing the free plan: %q", p)
		}
	})

	t.Run("Graph", func(t *testing.T) {
		b.t = t
		w := b.m.Workspace(b.orgOf(t, "ada@example.com"))
		for _, l := range []papermem.SessionLink{
			{SessionID: "sess-morning", Papers: []string{"10.5555/perovskite.2026", "10.1000/alumina"}},
			{SessionID: "sess-evening", Papers: []string{"10.5555/perovskite.2026"}},
		} {
			if _, err := w.LinkSession(context.Background(), l); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Materialize(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		b.open("/dashboard/graph?session=sess-morning&hops=2", "#graph")
		b.shot("graph", false)
		g := b.text("#graph")
		for _, want := range []string{"sess-morning", "sess-evening", "Lab notes on perovskite", "10.1000/alumina"} {
			if !strings.Contains(g, want) {
				t.Errorf("graph lacks %q: %q", want, g)
			}
		}
	})

	t.Run("Users", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/users", "#users")
		b.shot("users", false)
		if u := b.text("#users"); !strings.Contains(u, "ada@example.com") || !strings.Contains(u, "owner") {
			t.Errorf("users: %q", u)
		}
	})

	t.Run("NonFounderRefused", func(t *testing.T) {
		b.t = t
		if nav := b.text("nav"); strings.Contains(nav, "Founder") {
			t.Errorf("a non-founder's menu shows the console: %q", nav)
		}
		b.open("/dashboard/founder", "#error")
		b.shot("founder-refused", false)
		if msg := b.text("#error"); !strings.Contains(msg, "founder access") {
			t.Errorf("founder page for a non-founder: %q", msg)
		}
	})

	t.Run("ForgedRevokeRefused", func(t *testing.T) {
		b.t = t
		if keyID == "" {
			t.Skip("no key")
		}
		// Another origin (same host, other port: the cookie is sent) posts
		// the revoke form as soon as it loads.
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/dashboard/keys/%s/revoke">
<input name="csrf" value="guess"></form><script>document.getElementById("f").submit()</script>`, b.srv.URL, keyID)
		}))
		defer evil.Close()
		b.run(chromedp.Navigate(evil.URL), chromedp.WaitVisible("#error"))
		b.shot("forged-revoke", false)
		if msg := b.text("#error"); !strings.Contains(msg, "Cross-site") {
			t.Errorf("forged revoke answered %q", msg)
		}
		if st := b.bearerStatus(key); st != http.StatusOK {
			t.Fatalf("after the forged revoke the key answers %d, want 200", st)
		}
	})

	t.Run("RevokeKey", func(t *testing.T) {
		b.t = t
		if keyID == "" {
			t.Skip("no key")
		}
		b.open("/dashboard/keys", "#keys")
		b.run(chromedp.Click(`tr[data-key-id="`+keyID+`"] a.danger`), chromedp.WaitVisible("#confirm-revoke"))
		b.shot("keys-revoke-confirm", false)
		if st := b.bearerStatus(key); st != http.StatusOK {
			t.Fatalf("before confirmation the key answers %d", st)
		}
		b.run(chromedp.Click("#confirm-revoke"), chromedp.WaitVisible("#keys"))
		b.shot("keys-revoked", false)
		if st := b.bearerStatus(key); st != http.StatusUnauthorized {
			t.Fatalf("revoked key answers %d, want 401", st)
		}
	})

	t.Run("LogOutLogInThenFounderConsole", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/", "form.logout")
		b.run(chromedp.Click("form.logout button"), chromedp.WaitVisible("#login-form"))
		b.open("/dashboard/keys", "#login-form") // the old session is gone
		b.run(chromedp.SetValue("#email", "ada@example.com"), chromedp.SetValue("#password", "wrong password"),
			chromedp.Click("#login"), chromedp.WaitVisible("#error"))
		b.shot("login-failed", false)
		b.run(chromedp.SetValue("#email", "ada@example.com"), chromedp.SetValue("#password", "correct horse battery"),
			chromedp.Click("#login"), chromedp.WaitVisible("#overview"))
		if who := b.text(".who"); !strings.Contains(who, "ada@example.com") {
			t.Errorf("logged in as %q", who)
		}
		b.run(chromedp.Click("form.logout button"), chromedp.WaitVisible("#login-form"))
		b.open("/dashboard/signup", "#signup-form")
		b.run(chromedp.SetValue("#name", "Grace"), chromedp.SetValue("#email", "grace@example.com"),
			chromedp.SetValue("#password", "correct horse battery"), chromedp.Click("#signup"), chromedp.WaitVisible("form.logout"))
		b.run(chromedp.Click(`nav a[href="/dashboard/founder"]`), chromedp.WaitVisible("#founder-overview"))
		b.shot("founder", false)
		org := b.orgOf(t, "ada@example.com")
		sel := `form[action="/dashboard/founder/workspaces/` + org + `/plan"]`
		b.run(chromedp.SetValue(sel+" select", "enterprise"), chromedp.Click(sel+" button"), chromedp.WaitVisible("#changed"))
		if ws := b.text("#workspaces"); !strings.Contains(ws, org) {
			t.Errorf("workspaces: %q", ws)
		}
		a, err := b.m.Workspace(org).Account(context.Background())
		if err != nil || a.Plan.Slug != papermem.PlanEnterprise {
			t.Fatalf("Ada's plan after the founder set it: %+v, %v", a, err)
		}
		if h := b.text("#health"); !strings.Contains(h, "rate_limiter") {
			t.Errorf("health: %q", h)
		}
	})
}

// recall asks the playground about the paper uploaded from notes.md.
func (b *browser) recall(t *testing.T) {
	b.open("/dashboard/recall", "#recall-form")
	b.run(chromedp.SetValue("#question", "How long did encapsulated perovskite cells keep their efficiency?"),
		chromedp.SetValue("#budget", "120"), chromedp.SetValue("#label", "Any"), chromedp.Click("#run-recall"), chromedp.WaitVisible("#recall-result"))
	b.shot("recall", true)
	res := b.text("#recall-result")
	if !strings.Contains(res, "alumina") || !strings.Contains(res, "10.5555/perovskite.2026") || !strings.Contains(res, "chars ") {
		t.Errorf("recall shows no cited span from notes.md: %.500s", res)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if n, err := chromedp.Run(ctx, chromedp.Nodes("svg.tokenbar rect.bar")); err != nil || len(n) == 0 {
		t.Errorf("no token bar segments: %v", err)
	}
}

// orgOf is the workspace of the account with the email.
func (b *browser) orgOf(t *testing.T, email string) string {
	t.Helper()
	u, err := b.m.Login(context.Background(), email, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	return u.OrgID
}
