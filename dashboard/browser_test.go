package dashboard_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testenv"
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
	svc       *hosted.Service // over m
	artifacts string
	axe       string // the source of axe-core, injected into pages by audit
}

// axePath is axe-core, vendored for the test (see its README.md); axeSHA256
// is its hash as published.
const (
	axePath   = "../testdata/dashboard/axe-core/axe.min.js"
	axeSHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
)

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
// when it ends. Without a browser the test is skipped, saying so (go test
// -v shows it), unless CI is set: then it fails.
func newBrowser(t *testing.T, cfg httpapi.Config, opts *hosted.Options) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		testenv.Need(t, "Chromium for the dashboard's browser test (install Debian's chromium or set $CHROMIUM)",
			fmt.Errorf("no $CHROMIUM, and no chromium, chromium-browser or google-chrome on $PATH"))
	}
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(axe); hex.EncodeToString(sum[:]) != axeSHA256 {
		t.Fatalf("%s is not axe-core 4.14.1 as published: SHA-256 %x", axePath, sum)
	}
	svc := testutil.OpenHosted(t, nil, opts)
	srv := httptest.NewServer(httpapi.New(svc, cfg))
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
	return &browser{t: t, ctx: ctx, srv: srv, m: svc.Memory(), svc: svc, artifacts: dir, axe: string(axe)}
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
	b := newBrowser(t, cfg, &hosted.Options{Payments: hosted.NewSignedOrders("browser-test-payment-secret")})

	t.Run("SignUp", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/", "#login-form")
		b.shot("login", false)
		b.audit("login")
		b.open("/dashboard/signup", "#signup-form")
		b.run(chromedp.SetValue("#name", "Ada"), chromedp.SetValue("#email", "ada@example.com"),
			chromedp.SetValue("#password", "correct horse battery"), chromedp.SetValue("#workspace_name", "Ada's lab"))
		b.shot("signup", false)
		b.audit("signup")
		b.run(chromedp.Click("#signup"), chromedp.WaitVisible("form.logout"))
		b.shot("signup-done", false)
		b.audit("signup-done")
		if who := b.text(".who"); !strings.Contains(who, "ada@example.com") {
			t.Errorf("signed in as %q", who)
		}
		if ws := b.text("#workspace-name"); ws != "Ada's lab" {
			t.Errorf("the header names the workspace %q, want the name given at signup", ws)
		}
	})

	var key, keyID string
	t.Run("CreateKeyAndUseIt", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/keys", "#create-key")
		b.run(chromedp.SetValue("#key-name", "notebook"), chromedp.Click("#create-key"), chromedp.WaitVisible("#new-key"))
		b.shot("keys-created", false)
		b.run(chromedp.Click("#copy"), chromedp.WaitVisible(`//button[@id="copy" and text()="Copied"]`))
		b.audit("keys-created")
		if live := b.textContent("#copy-status"); live != "Copied to the clipboard." {
			t.Errorf("the live region says %q once the key is copied", live)
		}
		key = strings.TrimSpace(b.text("#new-key"))
		if !strings.HasPrefix(key, hosted.KeyPrefix) {
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
		b.audit("keys")
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
		b.audit("paper")
		if p := b.text("main"); !strings.Contains(p, "10.5555/perovskite.2026") || !strings.Contains(p, "alumina") {
			t.Errorf("paper page: %.500s", p)
		}
		b.open("/dashboard/papers", "#papers")
		b.shot("papers", false)
		b.audit("papers")
		if list := b.text("#papers"); !strings.Contains(list, "Lab notes on perovskite stability") {
			t.Errorf("papers list: %q", list)
		}
		b.run(chromedp.SetValue("#q", "damp heat encapsulation"), chromedp.Click("#search"), chromedp.WaitVisible("#show-all"))
		b.shot("papers-search", false)
		b.audit("papers-search")
		if list := b.text("#papers"); !strings.Contains(list, "10.5555/perovskite.2026") {
			t.Errorf("search found: %q", list)
		}
	})

	t.Run("UploadDocumentAndFindInDocuments", func(t *testing.T) {
		b.t = t
		file := filepath.Join(t.TempDir(), "furnace-log.txt")
		if err := os.WriteFile(file, []byte("The furnace held 450 degrees for six hours before the anneal."), 0o644); err != nil {
			t.Fatal(err)
		}
		b.open("/dashboard/papers", "#upload-form")
		b.run(chromedp.SetUploadFiles("#file", []string{file}), chromedp.Click("#upload"), chromedp.WaitVisible("#ingested"))
		b.shot("papers-document", false)
		b.audit("papers-document")
		docs := b.text("#documents")
		if !strings.Contains(docs, "furnace-log.txt") || !strings.Contains(docs, "txt") {
			t.Errorf("documents list: %q", docs)
		}
		if list := b.text("#papers"); strings.Contains(list, "furnace") {
			t.Errorf("the document is listed among the papers: %q", list)
		}
	})

	t.Run("Recall", func(t *testing.T) {
		b.t = t
		b.recall(t)
	})

	t.Run("LongURLsWrap", func(t *testing.T) {
		b.t = t
		long := "https://repository.example.org/records/" + strings.Repeat("perovskite-damp-heat-dataset-", 8) + "v2?download=full"
		ws := b.m.Workspace(b.orgOf(t, "ada@example.com"))
		if _, _, err := ws.StorePaper(context.Background(), papermem.PaperInput{DOI: "10.5555/long.url", Title: "Damp heat dataset",
			SourceURL: long, Text: "The raw damp heat measurements of the zirconia cells are archived at " + long + " for reuse."}); err != nil {
			t.Fatal(err)
		}
		b.open("/dashboard/papers/10.5555/long.url", "#paper")
		b.audit("paper-long-url")
		b.open("/dashboard/recall", "#recall-form")
		b.run(chromedp.SetValue("#question", "Where are the raw zirconia damp heat measurements archived?"),
			chromedp.SetValue("#label", "Any"), chromedp.Click("#run-recall"), chromedp.WaitVisible("#recall-result"))
		if res := b.text("#recall-result"); !strings.Contains(res, "repository.example.org") {
			t.Fatalf("recall shows no span with the URL: %.500s", res)
		}
		b.audit("recall-long-url")
	})

	t.Run("Overview", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/", "#overview")
		b.shot("overview", true)
		b.audit("overview")
		if n := b.text("#stat-nodes"); n == "0" {
			t.Errorf("overview counts %s nodes", n)
		}
		if d := b.text("#chart-domains"); !strings.Contains(d, "materials") {
			t.Errorf("top domains: %q", d)
		}
		if d := b.text("#chart-memory"); !regexp.MustCompile(`Documents\s+1\b`).MatchString(d) {
			t.Errorf("memory chart: %q", d)
		}
		u := b.text("#chart-usage")
		for _, want := range []string{"API requests", "Papers stored", "Data ingested", " of 500.0 MiB"} {
			if !strings.Contains(u, want) {
				t.Errorf("usage chart lacks %q: %q", want, u)
			}
		}
		if strings.Contains(u, "_") {
			t.Errorf("usage chart shows identifiers: %q", u)
		}
		// The usage card holds its figures, and the page keeps within
		// the window, on a desktop and on a phone.
		for _, w := range []int64{1280, 390} {
			b.width(w)
			if out := b.eval(cardOverflow("#chart-usage")); len(out) > 0 {
				t.Errorf("at %d px the usage card spills: %s", w, strings.Join(out, "; "))
			}
			if out := b.eval(pageOverflow); len(out) > 0 {
				t.Errorf("at %d px the overview spills: %s", w, strings.Join(out, "; "))
			}
			b.shot(fmt.Sprintf("overview-%d", w), false)
		}
		b.width(0)
	})

	t.Run("ChangePlanThroughCheckout", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/billing", "#choose-team")
		b.shot("billing", false)
		b.audit("billing")
		b.run(chromedp.Click("#choose-team"), chromedp.WaitVisible("#confirm-checkout"))
		b.shot("checkout", false)
		b.audit("checkout")
		b.run(chromedp.Click("#confirm-checkout"), chromedp.WaitVisible("#changed"))
		b.shot("billing-team", false)
		b.audit("billing-team")
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
		b.audit("graph")
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
		b.audit("users")
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
		b.audit("founder-refused")
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
		b.audit("forged-revoke")
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
		b.audit("keys-revoke-confirm")
		if st := b.bearerStatus(key); st != http.StatusOK {
			t.Fatalf("before confirmation the key answers %d", st)
		}
		b.run(chromedp.Click("#confirm-revoke"), chromedp.WaitVisible("#keys"))
		b.shot("keys-revoked", false)
		b.audit("keys-revoked")
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
		b.audit("login-failed")
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
		b.audit("founder")
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

		// The founder adds a user to their workspace from the users page.
		b.run(chromedp.Click(`nav a[href="/dashboard/users"]`), chromedp.WaitVisible("#add-user-form"))
		b.run(chromedp.SetValue("#new-user-name", "Hopper"), chromedp.SetValue("#new-user-email", "hopper@example.com"),
			chromedp.SetValue("#new-user-password", "another horse battery"), chromedp.Click("#add-user"), chromedp.WaitVisible("#added"))
		b.shot("users-added", false)
		b.audit("users-added")
		if u := b.text("#users"); !strings.Contains(u, "hopper@example.com") {
			t.Errorf("users after adding one: %q", u)
		}
		u, err := b.svc.Login(context.Background(), "hopper@example.com", "another horse battery")
		if err != nil || u.OrgID != b.orgOf(t, "grace@example.com") || u.Role != hosted.RoleMember {
			t.Errorf("the added user: %+v, %v", u, err)
		}
	})
}

// recall asks the playground about the paper uploaded from notes.md.
func (b *browser) recall(t *testing.T) {
	b.open("/dashboard/recall", "#recall-form")
	b.run(chromedp.SetValue("#question", "How long did encapsulated perovskite cells keep their efficiency?"),
		chromedp.SetValue("#budget", "120"), chromedp.SetValue("#label", "Any"), chromedp.Click("#run-recall"), chromedp.WaitVisible("#recall-result"))
	b.shot("recall", true)
	b.audit("recall")
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

// textContent is the text of the first element matching sel, visible or
// not.
func (b *browser) textContent(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.TextContent(sel))
	if err != nil {
		b.t.Fatalf("text of %s: %v (at %s)", sel, err, b.location())
	}
	return s
}

// orgOf is the workspace of the account with the email.
func (b *browser) orgOf(t *testing.T, email string) string {
	t.Helper()
	u, err := b.svc.Login(context.Background(), email, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	return u.OrgID
}

// axeViolation is a rule axe-core finds broken, with the elements that
// break it.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeRun runs every rule of axe-core but the experimental ones over the
// page, as its authors recommend, and lists the violations.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(function (r) {
  return r.violations.map(function (v) {
    return {id: v.id, impact: v.impact || "", help: v.help,
      nodes: v.nodes.map(function (n) { return n.target.join(" ") + ": " + n.failureSummary; })};
  });
})`

// overflowJS is a function of an element and the left and right bounds
// its content must keep within: it lists the elements under it, data
// tables' boxes (.table-wrap) and the insides of pictures aside, that
// reach beyond the bounds or whose content is wider than they are.
const overflowJS = `(function (root, left, right) {
  var out = [];
  var name = function (el) {
    var c = typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + c;
  };
  root.querySelectorAll("*").forEach(function (el) {
    if (el.closest(".table-wrap") || el.parentElement.closest("svg")) return;
    var r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return;
    if (r.left < left - 1 || r.right > right + 1) {
      out.push(name(el) + " spans " + Math.round(r.left) + " to " + Math.round(r.right) + " px");
    }
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible" &&
        !/^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) {
      out.push(name(el) + " holds " + el.scrollWidth + " px of content in " + el.clientWidth);
    }
  });
  return out;
})`

// pageOverflow lists what spills sideways out of the page, and says
// whether the page scrolls sideways.
const pageOverflow = `(function () {
  var d = document.documentElement, out = ` + overflowJS + `(document.body, 0, d.clientWidth);
  if (d.scrollWidth > d.clientWidth) out.unshift("the page is " + d.scrollWidth + " px wide in " + d.clientWidth);
  return out;
})()`

// cardOverflow lists what spills out of the card matching a selector.
func cardOverflow(sel string) string {
	return `(function () {
  var c = document.querySelector(` + strconv.Quote(sel) + `), r = c.getBoundingClientRect();
  var out = ` + overflowJS + `(c, r.left, r.right);
  if (c.scrollWidth > c.clientWidth) out.unshift("the card holds " + c.scrollWidth + " px in " + c.clientWidth);
  return out;
})()`
}

// smallChartText lists the chart labels and values set smaller than 12 px.
const smallChartText = `Array.from(document.querySelectorAll(".chart-label, .chart-value")).filter(function (el) {
  return parseFloat(getComputedStyle(el).fontSize) < 12;
}).map(function (el) { return el.textContent.trim() + ": " + getComputedStyle(el).fontSize; })`

// eval evaluates a script returning a list of problems.
func (b *browser) eval(script string, opts ...chromedp.EvaluateOption) []string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](script, opts...))
	if err != nil {
		b.t.Fatalf("evaluate: %v (at %s)", err, b.location())
	}
	return out
}

// width lays the page out in a viewport width px wide, 0 for the
// window's own (1280 px).
func (b *browser) width(px int64) {
	b.t.Helper()
	if px == 0 { // chromedp.ResetViewport leaves an override of 0 by 0, which keeps the last width
		b.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
			return err
		}))
		return
	}
	b.run(chromedp.EmulateViewport(px, 800))
}

// audit checks the page as it stands: axe-core finds no violation of any
// rule, and at 320 px wide (WCAG's reflow width) nothing but a data table
// scrolls sideways and the charts' text stays readable. name says which
// page state it is.
func (b *browser) audit(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](b.axe)); err != nil {
		b.t.Fatalf("%s: inject axe-core: %v", name, err)
	}
	vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("%s: axe-core: %v (at %s)", name, err, b.location())
	}
	for _, v := range vs {
		b.t.Errorf("%s: axe-core %s (%s): %s\n\t%s", name, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
	b.width(320)
	defer b.width(0)
	if out := b.eval(pageOverflow); len(out) > 0 {
		b.shot(name+"-320", false)
		b.t.Errorf("%s at 320 px: %s", name, strings.Join(out, "; "))
	}
	if out := b.eval(smallChartText); len(out) > 0 {
		b.t.Errorf("%s at 320 px: chart text under 12 px: %s", name, strings.Join(out, "; "))
	}
}

// TestBrowserWithoutPayments walks the dashboard of a server with no
// payment provider: the paid plans show as unavailable, with the reason,
// before any click; and the usage counts the dashboard's own work on
// memory as API requests, as the page says.
func TestBrowserWithoutPayments(t *testing.T) {
	b := newBrowser(t, quiet, nil)
	b.open("/dashboard/signup", "#signup-form")
	b.run(chromedp.SetValue("#name", "Ada"), chromedp.SetValue("#email", "ada@example.com"), chromedp.SetValue("#password", "correct horse battery"),
		chromedp.SetValue("#workspace_name", "Ada's lab"), chromedp.Click("#signup"), chromedp.WaitVisible("form.logout"))
	ws := b.m.Workspace(b.orgOf(t, "ada@example.com"))
	if _, _, err := ws.StorePaper(context.Background(), papermem.PaperInput{DOI: "10.1000/naps", Title: "Naps",
		Text: "A 20-minute nap improved recall of word pairs by 12% in 40 students."}); err != nil {
		t.Fatal(err)
	}

	t.Run("PlansUnavailable", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/billing", "#plan")
		b.shot("billing-no-payments", false)
		b.audit("billing-no-payments")
		for _, slug := range []string{"team", "enterprise"} {
			why := b.text("#unavailable-" + slug)
			if why != "Unavailable: "+hosted.NoPaymentsReason {
				t.Errorf("%s: %q", slug, why)
			}
			if n := b.eval(`[...document.querySelectorAll("#choose-` + slug + `:disabled[aria-describedby='unavailable-` + slug + `']")].map(e => e.id)`); len(n) != 1 {
				t.Errorf("the button of %s is not disabled and described by the reason: %v", slug, n)
			}
		}
		if n := b.eval(`[...document.querySelectorAll("[id^=unavailable-]")].map(e => e.id)`); len(n) != 2 {
			t.Errorf("plans shown unavailable: %v, want the two paid ones", n)
		}
	})

	t.Run("UsageCountsTheDashboard", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/papers", "#search-form")
		b.open("/dashboard/recall", "#recall-form")
		b.run(chromedp.SetValue("#question", "Do naps help recall of word pairs?"), chromedp.SetValue("#label", "Any"),
			chromedp.Click("#run-recall"), chromedp.WaitVisible("#recall-result"))
		b.open("/dashboard/", "#overview")
		u := b.text("#chart-usage")
		if !regexp.MustCompile(`API requests\s+2 of 50,000`).MatchString(u) || regexp.MustCompile(`Recall tokens\s+0 of`).MatchString(u) {
			t.Errorf("usage after listing papers and one recall: %q", u)
		}
		if note := b.text("#api-requests-note"); !strings.Contains(note, "/v1 API") || !strings.Contains(note, "a recall") {
			t.Errorf("the usage card does not say what an API request is: %q", note)
		}
		b.audit("overview-usage")
	})
}
