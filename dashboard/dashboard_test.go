package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/dashboard"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

const password = "correct horse battery"

// quiet is a configuration whose request log is discarded.
var quiet = httpapi.Config{Logger: slog.New(slog.DiscardHandler)}

// site is a server and a client that signed up through the dashboard, with
// its cookie in a jar.
type site struct {
	t    *testing.T
	m    *papermem.Memory
	svc  *hosted.Service // over m
	srv  *httptest.Server
	c    *http.Client
	user *hosted.User
}

func newSite(t *testing.T, tls bool) *site {
	t.Helper()
	return newSiteWith(t, tls, quiet)
}

func newSiteWith(t *testing.T, tls bool, cfg httpapi.Config) *site {
	t.Helper()
	return newSiteOpts(t, tls, cfg, nil)
}

func newSiteOpts(t *testing.T, tls bool, cfg httpapi.Config, opts *hosted.Options) *site {
	t.Helper()
	svc := testutil.OpenHosted(t, nil, opts)
	h := httpapi.New(svc, cfg)
	srv := httptest.NewServer(h)
	if tls {
		srv.Close()
		srv = httptest.NewTLSServer(h)
	}
	t.Cleanup(srv.Close)
	c := srv.Client()
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s := &site{t: t, m: svc.Memory(), svc: svc, srv: srv, c: c}
	res := s.post("/dashboard/signup", url.Values{"email": {"ada@example.com"}, "password": {password}, "name": {"Ada"}}, "")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signup: %d", res.StatusCode)
	}
	u, err := svc.Login(context.Background(), "ada@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	s.user = u
	return s
}

// post sends a form from this origin unless origin says otherwise ("-"
// for none).
func (s *site) post(path string, form url.Values, origin string) *http.Response {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	switch origin {
	case "":
		req.Header.Set("Origin", s.srv.URL)
	case "-":
	default:
		req.Header.Set("Origin", origin)
	}
	return s.do(req)
}

func (s *site) get(path string) (*http.Response, string) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	res := s.do(req)
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func (s *site) do(req *http.Request) *http.Response {
	s.t.Helper()
	res, err := s.c.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { res.Body.Close() })
	return res
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token from a page.
func (s *site) csrf() string {
	s.t.Helper()
	_, body := s.get("/dashboard/keys")
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		s.t.Fatalf("no CSRF token on the keys page: %.300s", body)
	}
	return m[1]
}

func (s *site) keyCount() int {
	s.t.Helper()
	keys, err := s.m.Workspace(s.user.WorkspaceID).APIKeys(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	return len(keys)
}

func TestCookieFlags(t *testing.T) {
	for _, tls := range []bool{false, true} {
		s := newSite(t, tls)
		u, _ := url.Parse(s.srv.URL + dashboard.Prefix)
		res := s.post("/dashboard/login", url.Values{"email": {"ada@example.com"}, "password": {password}}, "")
		var c *http.Cookie
		for _, k := range res.Cookies() {
			if k.Name == dashboard.CookieName {
				c = k
			}
		}
		if c == nil || c.Value == "" {
			t.Fatalf("tls=%v: login set no cookie (%d)", tls, res.StatusCode)
		}
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure != tls || c.Path != dashboard.Prefix {
			t.Errorf("tls=%v: cookie HttpOnly=%v SameSite=%v Secure=%v Path=%q", tls, c.HttpOnly, c.SameSite, c.Secure, c.Path)
		}
		if len(s.c.Jar.Cookies(u)) != 1 {
			t.Errorf("tls=%v: jar holds %d cookies", tls, len(s.c.Jar.Cookies(u)))
		}
	}
}

func TestLoginJSON(t *testing.T) {
	s := newSite(t, false)
	for _, tc := range []struct {
		name, body string
		want       int
	}{
		{"OK", `{"email":"ada@example.com","password":"` + password + `"}`, http.StatusOK},
		{"ErrWrongPassword", `{"email":"ada@example.com","password":"nope nope nope"}`, http.StatusUnauthorized},
		{"ErrMalformed", `{"email":`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/dashboard/login", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			res := s.do(req)
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.want, b)
			}
			if got := res.Header.Get("Set-Cookie") != ""; got != (tc.want == http.StatusOK) {
				t.Errorf("Set-Cookie present: %v", got)
			}
			if strings.Contains(string(b), "token") {
				t.Errorf("the answer carries the token: %s", b)
			}
		})
	}
}

func TestCSP(t *testing.T) {
	s := newSite(t, false)
	for _, path := range []string{"/dashboard/login", "/dashboard/keys", "/dashboard/static/app.js", "/dashboard/nope"} {
		res, body := s.get(path)
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, " onclick=") || strings.Contains(body, "style=") {
			t.Errorf("%s: inline script or style in the page", path)
		}
	}
}

func TestCSRF(t *testing.T) {
	s := newSite(t, false)
	tok := s.csrf()
	for _, tc := range []struct {
		name   string
		form   url.Values
		origin string
		want   int
	}{
		{"ErrNoToken", url.Values{"name": {"x"}}, "", http.StatusForbidden},
		{"ErrWrongToken", url.Values{"name": {"x"}, "csrf": {tok + "x"}}, "", http.StatusForbidden},
		{"ErrOtherOrigin", url.Values{"name": {"x"}, "csrf": {tok}}, "http://evil.example", http.StatusForbidden},
		{"OKNoOrigin", url.Values{"name": {"x"}, "csrf": {tok}}, "-", http.StatusCreated},
		{"OK", url.Values{"name": {"x"}, "csrf": {tok}}, "", http.StatusCreated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.keyCount()
			res := s.post("/dashboard/keys", tc.form, tc.origin)
			if res.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.want)
			}
			if created := s.keyCount() - before; created != map[bool]int{true: 1}[tc.want == http.StatusCreated] {
				t.Errorf("%d keys created", created)
			}
		})
	}
	t.Run("ErrCrossSiteFetch", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/dashboard/keys", strings.NewReader("csrf="+tok))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		if res := s.do(req); res.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d", res.StatusCode)
		}
	})
	t.Run("ErrLoginFromOtherOrigin", func(t *testing.T) {
		res := s.post("/dashboard/login", url.Values{"email": {"ada@example.com"}, "password": {password}}, "http://evil.example")
		if res.StatusCode != http.StatusForbidden || res.Header.Get("Set-Cookie") != "" {
			t.Fatalf("status %d, Set-Cookie %q", res.StatusCode, res.Header.Get("Set-Cookie"))
		}
	})
}

// TestCookieOnlyForDashboard: the /v1 API ignores the cookie, even sent as
// the browser would.
func TestCookieOnlyForDashboard(t *testing.T) {
	s := newSite(t, false)
	u, _ := url.Parse(s.srv.URL + dashboard.Prefix)
	cookie := s.c.Jar.Cookies(u)[0]
	for _, path := range []string{"/v1/account", "/v1/auth/me", "/v1/account/api-keys"} {
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
		req.AddCookie(cookie)
		if res := s.do(req); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with the cookie: %d, want 401", path, res.StatusCode)
		}
	}
}

// TestSessionEnds: a logged-out session and a disabled user's are refused,
// as their bearer tokens are.
func TestSessionEnds(t *testing.T) {
	t.Run("Logout", func(t *testing.T) {
		s := newSite(t, false)
		u, _ := url.Parse(s.srv.URL + dashboard.Prefix)
		old := s.c.Jar.Cookies(u)[0]
		if res := s.post("/dashboard/logout", url.Values{"csrf": {s.csrf()}}, ""); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("logout: %d", res.StatusCode)
		}
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/dashboard/keys", nil)
		req.AddCookie(old)
		if res := s.do(req); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/login" {
			t.Fatalf("old cookie after logout: %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
	})
	t.Run("Disabled", func(t *testing.T) {
		s := newSite(t, false)
		if _, err := s.svc.DisableUser(context.Background(), s.user.WorkspaceID, s.user.UserID); err != nil {
			t.Fatal(err)
		}
		if res, _ := s.get("/dashboard/keys"); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("disabled user's cookie: %d", res.StatusCode)
		}
		if res := s.post("/dashboard/keys", url.Values{}, ""); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("disabled user's POST: %d", res.StatusCode)
		}
	})
}

func TestSignupErrors(t *testing.T) {
	s := newSite(t, false)
	res := s.post("/dashboard/signup", url.Values{"email": {"ada@example.com"}, "password": {password}, "name": {"Ada"}}, "")
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `id="error"`) {
		t.Fatalf("duplicate signup: %d %.200s", res.StatusCode, b)
	}
	if !strings.Contains(string(b), `value="ada@example.com"`) || strings.Contains(string(b), password) {
		t.Errorf("the form shown again should keep the email and drop the password")
	}
	res = s.post("/dashboard/signup", url.Values{"email": {"bob@example.com"}, "password": {"short"}}, "")
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("short password: %d", res.StatusCode)
	}
}

func TestRecallErrors(t *testing.T) {
	s := newSite(t, false)
	tok := s.csrf()
	for _, tc := range []struct {
		name string
		form url.Values
	}{
		{"ErrNoQuestion", url.Values{"question": {" "}}},
		{"ErrBudgetNotANumber", url.Values{"question": {"q"}, "budget": {"lots"}}},
		{"ErrBudgetTooLarge", url.Values{"question": {"q"}, "budget": {"99999999"}}},
		{"ErrLabel", url.Values{"question": {"q"}, "label": {"Nope"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf", tok)
			res := s.post("/dashboard/recall", tc.form, "")
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `id="error"`) {
				t.Fatalf("status %d: %.300s", res.StatusCode, b)
			}
		})
	}
}

// upload posts a multipart form with the file (none when name is "").
func (s *site) upload(name, content, csrf string) *http.Response {
	s.t.Helper()
	var body strings.Builder
	mw := multipart.NewWriter(&body)
	if csrf != "" {
		mw.WriteField("csrf", csrf)
	}
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		io.WriteString(fw, content)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/dashboard/upload", strings.NewReader(body.String()))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", s.srv.URL)
	return s.do(req)
}

func TestUpload(t *testing.T) {
	s := newSite(t, false)
	tok := s.csrf()
	t.Run("OKDocument", func(t *testing.T) {
		res := s.upload("notes.txt", "Alumina layers protect perovskite cells from damp heat.", tok)
		if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/papers?ingested=doc%3A") {
			t.Fatalf("status %d to %q", res.StatusCode, loc)
		}
	})
	for _, tc := range []struct {
		name, file, csrf string
		want             int
	}{
		{"ErrNoCSRF", "a.txt", "", http.StatusForbidden},
		{"ErrNoFile", "", tok, http.StatusBadRequest},
		{"ErrFormat", "a.exe", tok, http.StatusUnsupportedMediaType},
		{"ErrEmpty", "a.txt", tok, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content := "some text"
			if tc.name == "ErrEmpty" {
				content = ""
			}
			if res := s.upload(tc.file, content, tc.csrf); res.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.want)
			}
		})
	}
	t.Run("OKOddDOI", func(t *testing.T) {
		const doi = "10.1000/odd?x#<y>"
		var body strings.Builder
		mw := multipart.NewWriter(&body)
		mw.WriteField("csrf", tok)
		mw.WriteField("doi", doi)
		fw, _ := mw.CreateFormFile("file", "odd.md")
		io.WriteString(fw, "# Odd\n\nA paper whose DOI has characters a URL treats specially.")
		mw.Close()
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/dashboard/upload", strings.NewReader(body.String()))
		req.Header.Set("Content-Type", mw.FormDataContentType())
		res := s.do(req)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("upload: %d", res.StatusCode)
		}
		page, html := s.get(res.Header.Get("Location"))
		if page.StatusCode != http.StatusOK || !strings.Contains(html, "10.1000/odd?x#&lt;y&gt;") {
			t.Fatalf("paper page at %q: %d", res.Header.Get("Location"), page.StatusCode)
		}
		if _, list := s.get("/dashboard/papers"); !strings.Contains(list, `href="/dashboard/papers/10.1000/odd%3Fx%23%3Cy%3E"`) {
			t.Errorf("the papers list does not link the paper's page")
		}
	})
	t.Run("ErrPaperNotFound", func(t *testing.T) {
		if res, _ := s.get("/dashboard/papers/10.1000/none"); res.StatusCode != http.StatusNotFound {
			t.Fatalf("status %d", res.StatusCode)
		}
	})
}

func TestCheckoutErrors(t *testing.T) {
	s := newSite(t, false)
	tok := s.csrf()
	for _, tc := range []struct {
		name, path string
		form       url.Values
		want       int
	}{
		{"ErrUnknownPlan", "/dashboard/billing/checkout", url.Values{"plan": {"platinum"}}, http.StatusBadRequest},
		{"ErrNoProvider", "/dashboard/billing/checkout", url.Values{"plan": {"team"}}, http.StatusBadGateway},
		{"ErrPayWithoutBuiltIn", "/dashboard/billing/pay", url.Values{"checkout_id": {"co_x"}}, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf", tok)
			if res := s.post(tc.path, tc.form, ""); res.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.want)
			}
		})
	}
}

func TestGraphErrors(t *testing.T) {
	s := newSite(t, false)
	if res, body := s.get("/dashboard/graph"); res.StatusCode != http.StatusOK || !strings.Contains(body, "No sessions yet") {
		t.Fatalf("empty graph: %d", res.StatusCode)
	}
	for path, want := range map[string]int{
		"/dashboard/graph?session=nope":              http.StatusNotFound,
		"/dashboard/graph?session=nope&hops=many":    http.StatusBadRequest,
		"/dashboard/graph?session=nope&hops=9999999": http.StatusBadRequest,
	} {
		if res, _ := s.get(path); res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

func TestFounderOnly(t *testing.T) {
	s := newSite(t, false)
	if res, _ := s.get("/dashboard/founder"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("founder console for a non-founder: %d", res.StatusCode)
	}
	res := s.post("/dashboard/founder/workspaces/"+s.user.WorkspaceID+"/plan", url.Values{"plan": {"enterprise"}, "csrf": {s.csrf()}}, "")
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("set plan by a non-founder: %d", res.StatusCode)
	}
	if a, err := s.m.Workspace(s.user.WorkspaceID).Account(context.Background()); err != nil || a.Plan.Slug != papermem.PlanStarter {
		t.Fatalf("plan %+v, %v", a, err)
	}
	// A grant takes effect on the signed-in session's next request.
	if err := s.svc.GrantFounder(context.Background(), "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.get("/dashboard/founder"); res.StatusCode != http.StatusOK {
		t.Fatalf("founder console after the grant: %d", res.StatusCode)
	}
}

// TestRateLimit: dashboard pages take from the user's bucket, which the
// user's session tokens share on /v1.
func TestRateLimit(t *testing.T) {
	cfg := quiet
	cfg.RateLimit = 3
	s := newSiteWith(t, false, cfg)
	for i := 0; i < 3; i++ {
		if res, _ := s.get("/dashboard/keys"); res.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, res.StatusCode)
		}
	}
	res, body := s.get("/dashboard/keys")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Too many requests") {
		t.Fatalf("over the limit: %d", res.StatusCode)
	}
}

// TestPayNeedsOptIn checks that the dashboard pays checkouts through the
// built-in provider only when the server opts in (DashboardPayments):
// otherwise any signed-in user could move to a paid plan without paying.
func TestPayNeedsOptIn(t *testing.T) {
	opts := &hosted.Options{Payments: hosted.NewSignedOrders("pay-test-secret")}
	for _, optIn := range []bool{false, true} {
		t.Run(map[bool]string{false: "Default", true: "OptedIn"}[optIn], func(t *testing.T) {
			cfg := quiet
			cfg.DashboardPayments = optIn
			s := newSiteOpts(t, false, cfg, opts)
			co, err := s.svc.Workspace(s.user.WorkspaceID).Checkout(context.Background(), papermem.PlanTeam)
			if err != nil {
				t.Fatal(err)
			}
			res := s.post("/dashboard/billing/pay", url.Values{"csrf": {s.csrf()}, "checkout_id": {co.CheckoutID}}, "")
			a, err := s.m.Workspace(s.user.WorkspaceID).Account(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want, plan := http.StatusBadRequest, papermem.PlanStarter
			if optIn {
				want, plan = http.StatusSeeOther, papermem.PlanTeam
			}
			if res.StatusCode != want || a.Plan.Slug != plan {
				t.Errorf("pay: status %d, plan %s; want %d, %s", res.StatusCode, a.Plan.Slug, want, plan)
			}
		})
	}
}

// TestRequestLogNamesWorkspace checks that the request log line of a
// signed-in dashboard page names the user's workspace, as an API
// request's does.
func TestRequestLogNamesWorkspace(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	s := newSiteWith(t, false, httpapi.Config{Logger: slog.New(slog.NewJSONHandler(lockedWriter{&buf, &mu}, nil))})
	if res, body := s.get("/dashboard/keys"); res.StatusCode != http.StatusOK {
		t.Fatalf("keys page: %d %.200s", res.StatusCode, body)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["path"] == "/dashboard/keys" {
			if rec["org_id"] != s.user.WorkspaceID {
				t.Errorf("org_id %v in %s, want %s", rec["org_id"], line, s.user.WorkspaceID)
			}
			return
		}
	}
	t.Fatalf("no log line for /dashboard/keys in %s", buf.String())
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestBehindTLSProxy: behind a proxy that ends TLS (the server sees plain
// HTTP, the browser an https origin and the proxy's X-Forwarded-Proto),
// login works and sets a Secure cookie, and posts from the https page pass
// the origin check; another host is still refused.
func TestBehindTLSProxy(t *testing.T) {
	s := newSite(t, false)
	host := strings.TrimPrefix(s.srv.URL, "http://")
	post := func(path, body, origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("X-Forwarded-Proto", "https")
		return s.do(req)
	}
	login := url.Values{"email": {"ada@example.com"}, "password": {password}}.Encode()
	res := post("/dashboard/login", login, "https://"+host)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", res.StatusCode)
	}
	var c *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == dashboard.CookieName {
			c = k
		}
	}
	if c == nil || !c.Secure {
		t.Fatalf("cookie %+v, want Secure", c)
	}
	// The jar keeps a Secure cookie for https only: send it by hand.
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/dashboard/keys", nil)
	req.AddCookie(c)
	page := s.do(req)
	body, _ := io.ReadAll(page.Body)
	m := csrfRE.FindSubmatch(body)
	if page.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("keys page: %d", page.StatusCode)
	}
	for _, tc := range []struct {
		origin string
		want   int
	}{{"https://evil.example", http.StatusForbidden}, {"https://" + host, http.StatusCreated}} {
		before := s.keyCount()
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/dashboard/keys", strings.NewReader(url.Values{"name": {"k"}, "csrf": {string(m[1])}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("X-Forwarded-Proto", "https")
		req.AddCookie(c)
		if res := s.do(req); res.StatusCode != tc.want {
			t.Errorf("origin %s: status %d, want %d", tc.origin, res.StatusCode, tc.want)
		}
		if created := s.keyCount() - before; created != map[bool]int{true: 1}[tc.want == http.StatusCreated] {
			t.Errorf("origin %s: %d keys created", tc.origin, created)
		}
	}
}
