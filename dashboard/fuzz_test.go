package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/dashboard"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// FuzzDashboard sends fuzzed requests through the real handler
// (httpapi.New, which mounts the dashboard) over a real database. Whatever
// the route, path, query, body and credentials:
//
//   - no answer is a 5xx, and nothing is logged at level ERROR: a panic,
//     recovered, is logged, and so is a page whose template failed after
//     its status was sent;
//   - every answer, errors and redirects included, carries the security
//     headers: the Content-Security-Policy (no framing, this origin's
//     scripts only), X-Frame-Options, nosniff and the Referrer-Policy;
//   - an HTML page holds no script but the dashboard's own app.js;
//   - without a session, only the login and signup pages and the static
//     files answer 2xx, and only a login or signup that succeeds sets the
//     session cookie;
//   - a POST missing the session's CSRF token, or from another origin, is
//     refused (400 or 413 for a body that cannot be read, 401, 403, 405),
//     or sent to its path cleaned (ServeMux's 307), and changes nothing: every account and its last login, every
//     workspace with its plan and sizes, the workspace's API keys and the
//     session stay as they were;
//   - a live session is never sent to the login page nor refused, and it
//     ends only by a logout carrying its token, which does end it.
//
// An input picks a route of dashRoutes (index modulo its length), a mode
// (the mode constants: credential and CSRF token, raw or escaped path,
// where the token goes, the body's type, the origin), a string put into
// the route's path variable, a raw query and a body. The request is parsed
// from its wire form with http.ReadRequest, as the server would; one the
// server would refuse before any handler is skipped.
//
// The user is a founder, its rate limits are out of reach and the
// dashboard pays checkouts through the built-in provider, so that every
// page's handler runs; no page fetches from elsewhere. Inputs share one
// session of the user, except a POST to /dashboard/logout sent with a
// cookie, which gets a session of its own; the seeds revoke only the key
// of a second user, and the fuzzer cannot guess the random ids of the
// user's keys. One database serves every input of a fuzzing process.
func FuzzDashboard(f *testing.F) {
	fx := newDashFuzz(f)
	for _, s := range fx.seeds() {
		f.Add(s.route, s.mode, s.path, s.query, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, route uint, mode uint8, path, query string, body []byte) {
		rt := dashRoutes[route%uint(len(dashRoutes))]
		cred := mode & modeCred
		s := fx.main
		req, ok := fx.request(rt, mode, path, query, body, s)
		if !ok {
			return
		}
		logout := req.Method == http.MethodPost && req.URL.Path == dashboard.Prefix+"logout"
		if logout && cred != credNone {
			s = fx.signIn(t)
			req, _ = fx.request(rt, mode, path, query, body, s)
		}
		signIn := req.URL.Path == dashboard.Prefix+"login" || req.URL.Path == dashboard.Prefix+"signup"
		crossSite := mode&modeCrossSite != 0
		tokenSent := cred == credCSRF && (mode&modeHeader != 0 || mode&modeType == typeForm || mode&modeType == typeMultipart)
		refused := req.Method == http.MethodPost && (crossSite || !tokenSent && !signIn)
		var before string
		if refused {
			before = fx.state(t)
		}

		fx.log.Reset()
		rec := httptest.NewRecorder()
		fx.h.ServeHTTP(rec, req)
		where := fmt.Sprintf("%s %s (mode %d, body %.300q)", req.Method, req.URL.RequestURI(), mode, body)
		loc := rec.Header().Get("Location")
		if rec.Code >= 500 || strings.Contains(fx.log.String(), "level=ERROR") {
			t.Fatalf("%s: status %d: %.500s\nlog: %.2000s", where, rec.Code, rec.Body.Bytes(), fx.log.String())
		}
		if h := rec.Header(); !securityHeaders(h) {
			t.Fatalf("%s: status %d without the security headers: %v", where, rec.Code, h)
		}
		if ct := rec.Header().Get("Content-Type"); strings.HasPrefix(ct, "text/html") {
			if b := rec.Body.String(); strings.Count(b, "<script") != strings.Count(b, `<script src="/dashboard/static/app.js"`) {
				t.Fatalf("%s: status %d: a script in the page: %.2000s", where, rec.Code, b)
			}
		}
		if cred == credNone && rec.Code < 300 && !signIn && !strings.HasPrefix(req.URL.Path, dashboard.Prefix+"static/") {
			t.Fatalf("%s: status %d without a session", where, rec.Code)
		}
		for _, c := range rec.Result().Cookies() {
			if c.Name == dashboard.CookieName && c.Value != "" && !(signIn && (rec.Code == http.StatusOK || rec.Code == http.StatusSeeOther)) {
				t.Fatalf("%s: status %d sets the session cookie", where, rec.Code)
			}
		}
		if refused {
			if !slices.Contains([]int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
				http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge}, rec.Code) &&
				!(rec.Code == http.StatusTemporaryRedirect && cleanRedirect(req, loc)) {
				t.Fatalf("%s: status %d (Location %q) for a POST without the CSRF token or from another origin", where, rec.Code, loc)
			}
			if after := fx.state(t); after != before {
				t.Fatalf("%s: status %d, yet the state changed:\nbefore %s\nafter  %s", where, rec.Code, before, after)
			}
		}
		if cred == credNone {
			return
		}
		ended := logout && rec.Code == http.StatusSeeOther && loc == dashboard.Prefix+"login"
		if !signIn && (rec.Code == http.StatusUnauthorized || rec.Code == http.StatusSeeOther && loc == dashboard.Prefix+"login" && !ended) {
			t.Fatalf("%s: status %d to %q with a live session", where, rec.Code, loc)
		}
		if fx.stands(t, s) == ended {
			t.Fatalf("%s: status %d to %q, and the session ended: %v", where, rec.Code, loc, !ended)
		}
	})
}

// The bits of an input's mode.
const (
	modeCred   = 3 // the credential, one of:
	credCSRF   = 0 // the session's cookie and its CSRF token
	credForged = 1 // the cookie and the token of another session of the user
	credNoCSRF = 2 // the cookie alone
	credNone   = 3 // no cookie, or with modeStale a logged-out session's

	modeRawPath = 4 // the path string raw, escaping only what cannot be on a request line, rather than path-escaped
	modeHeader  = 8 // the token in the X-CSRF-Token header rather than the form field

	modeType      = 48 // the body's Content-Type, one of:
	typeForm      = 0  // application/x-www-form-urlencoded
	typeMultipart = 16 // multipart/form-data, boundary testutil.Boundary
	typeJSON      = 32 // application/json
	typeNone      = 48 // none

	modeCrossSite = 64  // Origin names another site rather than this one
	modeStale     = 128 // with credNone, the cookie of a logged-out session
)

// dashRoutes are the routes of routes.go, as registered, then the static
// files and the catch-all "/dashboard/", under GET and POST. A wildcard
// takes the input's path string; {$} is dropped.
var dashRoutes = []string{
	"GET /dashboard/login",
	"POST /dashboard/login",
	"GET /dashboard/signup",
	"POST /dashboard/signup",
	"POST /dashboard/logout",
	"GET /dashboard/{$}",
	"GET /dashboard/papers",
	"GET /dashboard/papers/{doi...}",
	"POST /dashboard/upload",
	"GET /dashboard/imports",
	"POST /dashboard/imports",
	"GET /dashboard/recall",
	"POST /dashboard/recall",
	"GET /dashboard/billing",
	"POST /dashboard/billing/checkout",
	"POST /dashboard/billing/pay",
	"GET /dashboard/graph",
	"GET /dashboard/users",
	"POST /dashboard/users",
	"GET /dashboard/keys",
	"POST /dashboard/keys",
	"GET /dashboard/keys/{id}/revoke",
	"POST /dashboard/keys/{id}/revoke",
	"GET /dashboard/founder",
	"POST /dashboard/founder/workspaces/{org}/plan",
	"GET /dashboard/static/{file...}",
	"GET /dashboard/{page...}",
	"POST /dashboard/{page...}",
}

var (
	wildcard     = regexp.MustCompile(`\{[^}]*\}`)
	registeredRE = regexp.MustCompile(`"((?:GET|POST) /dashboard/[^"]*)"`)
)

// dashFuzz is the server, the accounts and the sessions that
// FuzzDashboard's inputs share.
type dashFuzz struct {
	*testutil.Accounts
	svc *hosted.Service
	h   http.Handler
	log *testutil.Buffer

	main   session
	forged string // the CSRF token of another session of the founder
	stale  string // the cookie of a logged-out session of the founder
}

// session is a signed-in session: its cookie and its CSRF token.
type session struct{ cookie, csrf string }

// newDashFuzz opens the database and the handler, creates the accounts and
// a little memory, and signs in.
func newDashFuzz(tb testing.TB) *dashFuzz {
	src, err := os.ReadFile("routes.go")
	if err != nil {
		tb.Fatal(err)
	}
	for _, m := range registeredRE.FindAllStringSubmatch(string(src), -1) {
		if !slices.Contains(dashRoutes, m[1]) {
			tb.Fatalf("route %q of routes.go is not in dashRoutes", m[1])
		}
	}

	ctx := context.Background()
	log := &testutil.Buffer{}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := testutil.OpenHosted(tb, &papermem.Options{Logger: logger}, &hosted.Options{Payments: hosted.NewSignedOrders("fuzz-payments")})
	fx := &dashFuzz{Accounts: testutil.NewAccounts(tb, svc), svc: svc, log: log}
	fx.h = httpapi.New(svc, httpapi.Config{FounderEmails: []string{fx.Email}, RateLimit: math.MaxInt32,
		AuthRateLimit: math.MaxInt32, DashboardPayments: true, Logger: logger})
	ws := svc.Memory().Workspace(fx.Org)
	if _, err := ws.StoreAnalysis(ctx, papermem.Analysis{DOI: "10.1000/x", Markdown: "# Analysis\nThe claim holds: recall rose.",
		CoreClaim: "Hybrid beats either", ClaimsExtracted: 1}); err != nil {
		tb.Fatal(err)
	}
	if _, err := ws.LinkSession(ctx, papermem.SessionLink{SessionID: "s1", Papers: []string{"10.1000/x", "10.1000/stub"}}); err != nil {
		tb.Fatal(err)
	}

	fx.main = fx.signIn(tb)
	fx.forged = fx.signIn(tb).csrf
	old := fx.signIn(tb)
	req := httptest.NewRequest(http.MethodPost, "http://papermem.test/dashboard/logout", strings.NewReader("csrf="+old.csrf))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: dashboard.CookieName, Value: old.cookie})
	if rec := fx.serve(req); rec.Code != http.StatusSeeOther || fx.stands(tb, old) {
		tb.Fatalf("logout: %d", rec.Code)
	}
	fx.stale = old.cookie
	return fx
}

func (fx *dashFuzz) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	fx.h.ServeHTTP(rec, req)
	return rec
}

// signIn logs the user in through the login form and reads the new
// session's CSRF token from a page.
func (fx *dashFuzz) signIn(tb testing.TB) session {
	tb.Helper()
	form := url.Values{"email": {fx.Email}, "password": {fx.Password}}
	req := httptest.NewRequest(http.MethodPost, "http://papermem.test/dashboard/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := fx.serve(req)
	var s session
	for _, c := range rec.Result().Cookies() {
		if c.Name == dashboard.CookieName {
			s.cookie = c.Value
		}
	}
	if rec.Code != http.StatusSeeOther || s.cookie == "" {
		tb.Fatalf("login: %d %.300s", rec.Code, rec.Body.Bytes())
	}
	rec = fx.get(s, "/dashboard/recall")
	m := csrfRE.FindStringSubmatch(rec.Body.String())
	if m == nil {
		tb.Fatalf("no CSRF token on the recall page (%d)", rec.Code)
	}
	s.csrf = m[1]
	return s
}

func (fx *dashFuzz) get(s session, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://papermem.test"+path, nil)
	req.AddCookie(&http.Cookie{Name: dashboard.CookieName, Value: s.cookie})
	return fx.serve(req)
}

// stands reports whether the session is still signed in.
func (fx *dashFuzz) stands(tb testing.TB, s session) bool {
	tb.Helper()
	switch rec := fx.get(s, "/dashboard/recall"); rec.Code {
	case http.StatusOK:
		return true
	case http.StatusSeeOther:
		return false
	default:
		tb.Fatalf("recall page: %d %.300s", rec.Code, rec.Body.Bytes())
		return false
	}
}

// state is what a refused POST must leave as it was: every account and
// its last login, every workspace with its plan and sizes, and the
// workspace's API keys.
func (fx *dashFuzz) state(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	users, err := fx.svc.AllUsers(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	wss, err := fx.svc.AllWorkspaces(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	keys, err := fx.svc.Memory().Workspace(fx.Org).APIKeys(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal([]any{users, wss, keys})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// cleanRedirect reports whether loc is where ServeMux sends a request whose
// path is not clean: the path cleaned, with the same query.
func cleanRedirect(req *http.Request, loc string) bool {
	p := path.Clean(req.URL.Path)
	if strings.HasSuffix(req.URL.Path, "/") && p != "/" {
		p += "/"
	}
	return p != req.URL.Path && loc == (&url.URL{Path: p, RawQuery: req.URL.RawQuery}).String()
}

// securityHeaders reports whether h holds the headers the dashboard sets
// on every answer.
func securityHeaders(h http.Header) bool {
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, d) {
			return false
		}
	}
	return !strings.Contains(csp, "unsafe-") && h.Get("X-Frame-Options") == "DENY" &&
		h.Get("X-Content-Type-Options") == "nosniff" && h.Get("Referrer-Policy") == "same-origin"
}

// request builds the input's request on the wire, signed in as s unless
// the mode says otherwise, and parses it as the server does; false when
// the server would refuse it before routing.
func (fx *dashFuzz) request(rt string, mode uint8, path, query string, body []byte, s session) (*http.Request, bool) {
	method, pattern, _ := strings.Cut(rt, " ")
	v := url.PathEscape(path)
	if mode&modeRawPath != 0 {
		v = testutil.LineSafe(path, "?")
	}
	target := wildcard.ReplaceAllLiteralString(strings.TrimSuffix(pattern, "{$}"), v)
	if query != "" {
		target += "?" + testutil.LineSafe(query, "")
	}
	var token, cookie string
	switch mode & modeCred {
	case credCSRF:
		token, cookie = s.csrf, s.cookie
	case credForged:
		token, cookie = fx.forged, s.cookie
	case credNoCSRF:
		cookie = s.cookie
	case credNone:
		if mode&modeStale != 0 {
			cookie = fx.stale
		}
	}
	if token != "" && mode&modeHeader == 0 {
		switch mode & modeType {
		case typeForm:
			body = append([]byte("csrf="+url.QueryEscape(token)+"&"), body...)
		case typeMultipart:
			part := fmt.Sprintf("--%s\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n%s\r\n", testutil.Boundary, token)
			body = append([]byte(part), body...)
		}
	}
	var header []string
	switch mode & modeType {
	case typeForm:
		header = append(header, "Content-Type: application/x-www-form-urlencoded")
	case typeMultipart:
		header = append(header, "Content-Type: multipart/form-data; boundary="+testutil.Boundary)
	case typeJSON:
		header = append(header, "Content-Type: application/json")
	}
	if mode&modeCrossSite != 0 {
		header = append(header, "Origin: http://evil.test")
	} else {
		header = append(header, "Origin: http://papermem.test")
	}
	if cookie != "" {
		header = append(header, "Cookie: "+dashboard.CookieName+"="+cookie)
	}
	if token != "" && mode&modeHeader != 0 {
		header = append(header, dashboard.CSRFHeader+": "+token)
	}
	return testutil.WireRequest(method, target, header, body)
}

// dashSeed is one input of FuzzDashboard's seed corpus.
type dashSeed struct {
	route             uint
	mode              uint8
	path, query, body string
}

// seeds are realistic requests for every route, under every credential
// for some, and hostile path strings, queries and bodies.
func (fx *dashFuzz) seeds() []dashSeed {
	var out []dashSeed
	add := func(route, path, query, body string, modes ...uint8) {
		i := slices.Index(dashRoutes, route)
		if i < 0 {
			panic("no route " + route)
		}
		if len(modes) == 0 {
			modes = []uint8{credCSRF}
		}
		for _, m := range modes {
			out = append(out, dashSeed{uint(i), m, path, query, body})
		}
	}
	creds := []uint8{credCSRF, credForged, credNoCSRF, credNone, credNone | modeStale}
	refusals := []uint8{credForged, credNoCSRF, credNone, credNone | modeStale, credCSRF | modeCrossSite, credCSRF | modeHeader | modeCrossSite}
	long := strings.Repeat("x", 20000)
	form := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v.Encode()
	}

	for _, r := range []string{"GET /dashboard/login", "GET /dashboard/signup", "GET /dashboard/{$}", "GET /dashboard/papers",
		"GET /dashboard/recall", "GET /dashboard/billing", "GET /dashboard/graph", "GET /dashboard/users",
		"GET /dashboard/keys", "GET /dashboard/founder"} {
		add(r, "", "", "", creds...)
	}

	login := form("email", fx.Email, "password", fx.Password)
	add("POST /dashboard/login", "", "", login, credNone, credNone|modeCrossSite, credCSRF)
	add("POST /dashboard/login", "", "", `{"email":"victim@fuzz.test","password":"victim-password"}`, credNone|typeJSON)
	add("POST /dashboard/login", "", "", form("email", fx.Email, "password", "wrong-password"), credNone)
	add("POST /dashboard/login", "", "", `{"email":`, credNone|typeJSON)
	add("POST /dashboard/login", "", "", form("email", "a\x00@fuzz.test", "password", "\xff\xfe"), credNone)
	add("POST /dashboard/login", "", "", "email=%00&password=%zz", credNone)
	add("POST /dashboard/signup", "", "", form("email", "new@fuzz.test", "password", "new-password", "name", "New", "workspace_name", "New lab"), credNone)
	add("POST /dashboard/signup", "", "", form("email", "cross@fuzz.test", "password", "cross-password"), credNone|modeCrossSite)
	add("POST /dashboard/signup", "", "", `{"email":"json@fuzz.test","password":"json-password","name":"J"}`, credNone|typeJSON)
	add("POST /dashboard/signup", "", "", form("email", fx.Email, "password", "short"), credNone)
	add("POST /dashboard/signup", "", "", form("email", "nul@fuzz.test", "password", "nul-password", "name", "a\x00b", "workspace_name", "\x00"), credNone)
	add("POST /dashboard/signup", "", "", form("email", "utf@fuzz.test", "password", "utf-password", "name", "\xff\xfe", "workspace_name", long), credNone)
	add("POST /dashboard/signup", "", "", form("email", long+"@fuzz.test", "password", long), credNone)
	add("POST /dashboard/logout", "", "", "", append(refusals, credCSRF, credCSRF|modeHeader)...)

	add("GET /dashboard/papers", "", "q=recall", "")
	add("GET /dashboard/papers", "", "q=%00%ff&ingested=%3Cscript%3E", "")
	add("GET /dashboard/papers", "", "q="+long, "")
	for _, doi := range []string{"10.1000/x", "10.1000/none", "10.1000/odd?x#<y>", "%00", "\x00", "\xff", "..", "/", "", "%2F%2F", long} {
		add("GET /dashboard/papers/{doi...}", doi, "", "", credCSRF, modeRawPath)
	}
	add("GET /dashboard/papers/{doi...}", "10.1000/x", "", "", credNone, credNone|modeStale)

	md := testutil.Multipart("notes.md", "# Notes\nHybrid recall works.\n## Results\nIt rose.", "domain", "ml", "title", "Notes")
	add("POST /dashboard/upload", "", "", md, typeMultipart, typeMultipart|modeHeader)
	for _, m := range refusals {
		add("POST /dashboard/upload", "", "", md, typeMultipart|m)
	}
	add("POST /dashboard/upload", "", "", testutil.Multipart("paper.md", "# Paper\nA paper with a DOI.", "doi", "10.1000/up", "title", "Up"), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("table.csv", "a,b\n1,2\n", "doi", "10.1000/csv"), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("data.json", `{"records":[{"a":1}]}`), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("paper.pdf", "%PDF-1.7 truncated"), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("x.exe", "MZ"), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("empty.txt", ""), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("a\x00.md", "# T\x00\nx\x00y", "domain", "\x00", "title", "\x00", "doi", "10.1000/\x00"), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("\xff.md", "# \xff\xfe\nbad UTF-8", "title", "\xff"), typeMultipart)
	add("POST /dashboard/upload", "", "", testutil.Multipart("long.md", "# Long\n"+long, "doi", long), typeMultipart)
	add("POST /dashboard/upload", "", "", md+md, typeMultipart)
	add("POST /dashboard/upload", "", "", "--"+testutil.Boundary+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.md\"\r\n\r\nunterminated", typeMultipart)
	add("POST /dashboard/upload", "", "", "--"+testutil.Boundary+"\r\n\r\n\r\n--"+testutil.Boundary+"--\r\n", typeMultipart)
	add("POST /dashboard/upload", "", "", "not multipart", typeMultipart, typeForm, typeJSON)

	question := form("question", "What improves recall?", "keywords", "bm25, vectors", "label", "Any", "domain", "ml",
		"budget", "200", "section_type", "results", "scope_signal", "evidence")
	add("POST /dashboard/recall", "", "", question, credCSRF, credCSRF|modeHeader, typeMultipart)
	for _, m := range refusals {
		add("POST /dashboard/recall", "", "", question, m)
	}
	for _, q := range []string{
		form("question", " "),
		form("question", "q", "budget", "-1"),
		form("question", "q", "budget", "lots"),
		form("question", "q", "budget", "99999999999999999999"),
		form("question", "q", "budget", "1"),
		form("question", "q", "label", "Nope", "section_type", "nope", "scope_signal", "nope"),
		form("question", "a\x00b", "keywords", "\x00", "domain", "\x00"),
		form("question", "\xff\xfe", "keywords", "\xff,\xfe"),
		form("question", long, "keywords", strings.Repeat(",", 5000)),
		"question=%zz",
		"question=%00&budget=%00",
	} {
		add("POST /dashboard/recall", "", "", q)
	}
	add("POST /dashboard/recall", "", "", strings.Repeat("x", 70000))

	add("GET /dashboard/billing", "", "changed=%3Cscript%3Ealert(1)%3C/script%3E", "")
	add("POST /dashboard/billing/checkout", "", "", form("plan", "team"), credCSRF, credCSRF|modeHeader)
	for _, m := range refusals {
		add("POST /dashboard/billing/checkout", "", "", form("plan", "starter"), m)
	}
	for _, p := range []string{"starter", "platinum", "", "team\x00", long} {
		add("POST /dashboard/billing/checkout", "", "", form("plan", p))
	}
	for _, m := range refusals {
		add("POST /dashboard/billing/pay", "", "", form("checkout_id", fx.Checkout), m)
	}
	add("POST /dashboard/billing/pay", "", "", form("checkout_id", fx.Checkout))
	for _, id := range []string{"co_none", "", "\x00", "\xff", long} {
		add("POST /dashboard/billing/pay", "", "", form("checkout_id", id))
	}

	for _, q := range []string{"session=s1&hops=2", "session=s1&hops=-1", "session=s1&hops=99999999999999999999",
		"session=nope", "session=%00", "session=%ff&hops=many", "session=" + long} {
		add("GET /dashboard/graph", "", q, "")
	}

	add("GET /dashboard/users", "", "added="+url.QueryEscape(fx.Email), "")
	add("GET /dashboard/users", "", "added=%3Cscript%3E", "")
	newUser := form("name", "New", "email", "added@fuzz.test", "password", "added-password", "role", "member")
	add("POST /dashboard/users", "", "", newUser, credCSRF, credCSRF|modeHeader, typeMultipart)
	for _, m := range refusals {
		add("POST /dashboard/users", "", "", form("email", "refused@fuzz.test", "password", "refused-password"), m)
	}
	for _, f := range []string{
		form("email", fx.Email, "password", "duplicate-password"),
		form("email", "owner@fuzz.test", "password", "owner-password", "role", "owner"),
		form("email", "role@fuzz.test", "password", "role-password", "role", "founder"),
		form("email", "short@fuzz.test", "password", "short"),
		form("email", "a\x00@fuzz.test", "password", "\xff\xfe\xff\xfe\xff\xfe", "name", "\x00"),
		form("email", long+"@fuzz.test", "password", long, "name", long),
		"email=%zz",
	} {
		add("POST /dashboard/users", "", "", f)
	}

	add("POST /dashboard/keys", "", "", form("name", "ci"), credCSRF, credCSRF|modeHeader, typeMultipart)
	for _, m := range refusals {
		add("POST /dashboard/keys", "", "", form("name", "ci"), m)
	}
	for _, n := range []string{"", "a\x00b", "\xff", long} {
		add("POST /dashboard/keys", "", "", form("name", n))
	}
	for _, id := range []string{fx.VictimKeyID, "key_none", "%00", "\xff", long} {
		add("GET /dashboard/keys/{id}/revoke", id, "", "", credCSRF, modeRawPath)
	}
	for _, m := range refusals {
		add("POST /dashboard/keys/{id}/revoke", fx.VictimKeyID, "", "", m)
	}
	add("POST /dashboard/keys/{id}/revoke", fx.VictimKeyID, "", "")
	add("POST /dashboard/keys/{id}/revoke", "key_none", "", "", credCSRF, modeRawPath)
	add("POST /dashboard/keys/{id}/revoke", "\x00", "", "", credCSRF, modeRawPath)

	add("GET /dashboard/founder", "", "changed=%3Cb%3E", "")
	for _, m := range refusals {
		add("POST /dashboard/founder/workspaces/{org}/plan", fx.Org, "", form("plan", "starter"), m)
	}
	add("POST /dashboard/founder/workspaces/{org}/plan", fx.Org, "", form("plan", "enterprise"), credCSRF, credCSRF|modeHeader)
	for _, org := range []string{"none", "-bad", "%00", "\x00", "\xff", long} {
		add("POST /dashboard/founder/workspaces/{org}/plan", org, "", form("plan", "team"), credCSRF, modeRawPath)
	}
	add("POST /dashboard/founder/workspaces/{org}/plan", fx.Org, "", form("plan", "\x00"))
	add("POST /dashboard/founder/workspaces/{org}/plan", fx.Org, "", form("plan", long))
	add("POST /dashboard/founder/workspaces/{org}/plan", "", "0", "", modeCrossSite)

	// An invalid UTF-8 name once made the file server answer 500.
	for _, p := range []string{"app.js", "app.css", "", "nope", "../routes.go", "%2e%2e/routes.go", "\x00", "\xef", "app.js\xff"} {
		add("GET /dashboard/static/{file...}", p, "", "", credNone, credNone|modeRawPath)
	}
	for _, p := range []string{"nope", "logout", "login", "static", "papers/", "a/../keys", "%00", "\xff", long} {
		add("GET /dashboard/{page...}", p, "", "", credCSRF, credNone, modeRawPath)
		add("POST /dashboard/{page...}", p, "", "", credCSRF, credNoCSRF, credNone, modeRawPath, credNoCSRF|modeRawPath, modeCrossSite|modeRawPath)
	}
	// Bodies no form parser takes, on every route that reads one.
	for _, r := range []string{"POST /dashboard/login", "POST /dashboard/signup", "POST /dashboard/recall", "POST /dashboard/keys", "POST /dashboard/users"} {
		add(r, "", "", "\xff\xfe=\x00&%", credCSRF, credCSRF|modeHeader)
		add(r, "", "", `{"email":[1e999]}`, credCSRF|typeJSON|modeHeader, credNone|typeJSON)
		add(r, "", "", long+long+long+long, credCSRF|modeHeader, typeNone|modeHeader)
	}
	return out
}
