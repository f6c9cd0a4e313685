package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/testutil"
)

// FuzzRoutes sends fuzzed requests through the real handler (New) over a
// real database: whatever the route, path variable, query and body, no
// answer is a 5xx (a handler's panic, recovered, is a 500), and every 4xx
// body is the API's error body, {"error":{"code","message"}} with both set
// and the code the one of that status. On /mcp a 4xx may also be the MCP
// transport's JSON-RPC error response to a message it refuses, as the MCP
// specification defines it; its refusals of the request itself (plain text
// from the SDK) are the API's error body like the rest.
//
// An input picks a route of the table (index modulo its length), a mode, a
// string put into every path variable (split at newlines, the i-th line into
// the i-th variable, when a route has several), a raw query and a body. The
// mode's low two bits choose the credential — a session token, an API key
// naming the user in X-User-Id, an API key alone, or the developer headers —
// and its third bit puts the path string in raw (escaping only what cannot
// be on a request line) rather than path-escaped. The request is parsed from
// its wire form with http.ReadRequest, as the server would; one the server
// would refuse before any handler is skipped.
//
// The user is a founder, and its rate limits are out of reach, so that every
// route's handler runs. Nothing leaves the process: paper origins are
// fetched by a fake Fetcher and payments go to the built-in provider. POST
// /v1/admin/backup is left out: it reads no input and each call copies the
// whole database to disk. The routes that end sessions or change the
// password act on the calling user, so every input sent with a session token
// gets one freshly issued from the user's current row; the seeds disable
// only, and revoke only the key of, a second user, and the fuzzer cannot
// guess the random ids of the calling user or its key. One database serves
// every input of a fuzzing process, so it grows only by what inputs store.
func FuzzRoutes(f *testing.F) {
	fx := newRouteFuzz(f)
	for _, s := range fx.seeds() {
		f.Add(s.route, s.mode, s.path, s.query, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, route uint, mode uint8, path, query string, body []byte) {
		rt := fx.routes[route%uint(len(fx.routes))]
		req, ok := fx.request(t, rt, mode, path, query, body)
		if !ok {
			return
		}
		fx.log.Reset()
		rec := httptest.NewRecorder()
		fx.h.ServeHTTP(rec, req)
		where := fmt.Sprintf("%s %s (mode %d, body %.300q)", rt.method, req.URL.RequestURI(), mode, body)
		if rec.Code >= 500 {
			t.Fatalf("%s: status %d: %.500s\nlog: %.2000s", where, rec.Code, rec.Body.Bytes(), fx.log.String())
		}
		if rec.Code >= 400 && !(rt.path == "/mcp" && isJSONRPCError(rec.Body.Bytes())) {
			var e api.ErrorBody
			err := json.Unmarshal(rec.Body.Bytes(), &e)
			if err != nil || e.Error.Code == "" || e.Error.Message == "" || statuses[e.Error.Code] != rec.Code {
				t.Fatalf("%s: status %d with body %.500s", where, rec.Code, rec.Body.Bytes())
			}
		}
	})
}

// isJSONRPCError reports whether b is a JSON-RPC 2.0 error response.
func isJSONRPCError(b []byte) bool {
	var res struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(b, &res) == nil && res.JSONRPC == "2.0" && res.Error != nil && res.Error.Code != nil
}

// routeFuzz is the server and credentials that FuzzRoutes' inputs share.
type routeFuzz struct {
	*testutil.Accounts
	h      *Handler
	s      *server
	routes []route
	log    *testutil.Buffer
	key    string // an API key of the founder
}

// newRouteFuzz opens the database and the handler and creates the
// accounts.
func newRouteFuzz(tb testing.TB) *routeFuzz {
	ctx := context.Background()
	log := &testutil.Buffer{}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	payments := hosted.NewSignedOrders("fuzz-payments")
	svc := testutil.OpenHosted(tb, &papermem.Options{Fetcher: fakeOrigin{}, Logger: logger}, &hosted.Options{Payments: payments})
	fx := &routeFuzz{Accounts: testutil.NewAccounts(tb, svc), log: log}
	fx.h = New(svc, Config{DevAuth: true, FounderEmails: []string{fx.Email}, RateLimit: math.MaxInt32,
		AuthRateLimit: math.MaxInt32, Logger: logger})
	fx.s = fx.h.s
	for _, rt := range fx.s.routes() {
		if rt.path != "/v1/admin/backup" {
			fx.routes = append(fx.routes, rt)
		}
	}
	k, err := svc.Workspace(fx.Org).CreateAPIKey(ctx, "fuzz", hosted.CreatorUser(fx.User))
	if err != nil {
		tb.Fatal(err)
	}
	fx.key = k.Key
	if _, _, err := svc.Memory().Workspace(fx.Org).StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/remote", Title: "Fetched later",
		SourceURL: "https://origin.test/remote.md"}); err != nil {
		tb.Fatal(err)
	}
	return fx
}

// request builds the input's request on the wire and parses it as the
// server does; false when the server would refuse it before routing.
func (fx *routeFuzz) request(t *testing.T, rt route, mode uint8, path, query string, body []byte) (*http.Request, bool) {
	vals := strings.SplitN(path, "\n", len(pathVar.FindAllString(rt.path, -1)))
	i := 0
	target := pathVar.ReplaceAllStringFunc(rt.path, func(string) string {
		v := vals[min(i, len(vals)-1)]
		i++
		if mode&4 != 0 {
			return testutil.LineSafe(v, "?")
		}
		return url.PathEscape(v)
	})
	if query != "" {
		target += "?" + testutil.LineSafe(query, "")
	}
	var header []string
	switch {
	case rt.path == "/v1/ingest":
		header = append(header, "Content-Type: multipart/form-data; boundary="+testutil.Boundary)
	case rt.path == "/mcp":
		header = append(header, "Content-Type: application/json", "Accept: application/json, text/event-stream")
	default:
		header = append(header, "Content-Type: application/json")
	}
	switch mode & 3 {
	case 0:
		header = append(header, "Authorization: Bearer "+fx.token(t))
	case 1:
		header = append(header, "Authorization: Bearer "+fx.key, "X-User-Id: "+fx.User)
	case 2:
		header = append(header, "Authorization: Bearer "+fx.key)
	case 3:
		header = append(header, "X-Dev-Org-Id: "+fx.Org, "X-Dev-User-Id: dev-user")
	}
	return testutil.WireRequest(rt.method, target, header, body)
}

// token issues a session token of the calling user as it stands now, so
// that logging out or changing the password in one input does not change
// the credential of the next.
func (fx *routeFuzz) token(t *testing.T) string {
	ctx := context.Background()
	u, err := fx.s.svc.User(ctx, fx.User)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := fx.s.issueToken(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

// routeSeed is one input of FuzzRoutes' seed corpus.
type routeSeed struct {
	route             uint
	mode              uint8
	path, query, body string
}

// seeds are realistic requests for every route, in every mode for some,
// and hostile path strings, queries and bodies.
func (fx *routeFuzz) seeds() []routeSeed {
	index := map[string]uint{}
	for i, rt := range fx.routes {
		index[rt.method+" "+rt.path] = uint(i)
	}
	var out []routeSeed
	add := func(route, path, query, body string, modes ...uint8) {
		i, ok := index[route]
		if !ok {
			panic("no route " + route)
		}
		if len(modes) == 0 {
			modes = []uint8{0}
		}
		for _, m := range modes {
			out = append(out, routeSeed{i, m, path, query, body})
		}
	}
	all := []uint8{0, 1, 2, 3}
	paper := `{"doi":"10.1000/y","title":"Dense retrieval","text":"# Abstract\nDense vectors help.\n## Methods\nWe train.","authors":["Ada"],"year":2021,"oa":true,"source_url":"https://origin.test/y.pdf","domain":"ml"}`
	nested := strings.Repeat(`{"a":[`, 5000) + strings.Repeat(`]}`, 5000)
	long := strings.Repeat("x", 20000)

	for _, r := range []string{"GET /", "GET /v1/health", "GET /v1/status", "GET /v1/openapi.json", "GET /v1/ingest/formats",
		"GET /v1/users", "GET /v1/workspaces", "GET /v1/account/api-keys", "GET /v1/account", "GET /v1/usage",
		"GET /v1/billing", "GET /v1/analytics", "GET /v1/admin/me", "GET /v1/admin/overview", "GET /v1/admin/workspaces",
		"GET /v1/admin/users", "GET /v1/admin/health", "GET /v1/auth/me"} {
		add(r, "", "", "", all...)
	}
	add("POST /v1/auth/signup", "", "", `{"email":"new@fuzz.test","password":"new-password","name":"New","org_id":"fuzz-new","workspace_name":"New lab"}`)
	add("POST /v1/auth/signup", "", "", `{"email":"","password":"","org_id":"A"}`)
	add("POST /v1/auth/login", "", "", `{"email":"victim@fuzz.test","password":"victim-password"}`)
	add("POST /v1/auth/login", "", "", `{"email":"owner@fuzz.test","password":"wrong"}`)
	add("POST /v1/auth/logout", "", "", "", all...)
	add("POST /v1/auth/logout-all", "", "", "", 0)
	add("POST /v1/auth/password", "", "", `{"current_password":"`+fx.Password+`","new_password":"`+fx.Password+`-2"}`)
	add("POST /v1/auth/password", "", "", `{"current_password":"x","new_password":"short"}`)

	add("POST /v1/recall", "", "", `{"question":"What improves recall?","keywords":["bm25"],"domain":"ml","label":"Any","budget_tokens":200,"section_types":["results"],"scope_signals":["evidence"]}`, all...)
	add("POST /v1/recall", "", "", `{"question":"x","budget_tokens":-1}`)
	add("POST /v1/recall", "", "", `{"question":"x","budget_tokens":1e999}`)
	add("POST /v1/recall", "", "", `{"question":"x","budget_tokens":99999999999999999999}`)
	add("POST /v1/recall", "", "", `{"question":"x","label":"Nope","section_types":["nope"]}`)
	add("POST /v1/recall", "", "", `{"question":"x","label":"Any","dois":["10.1000/x","doi:10.1000/X","10.9999/absent"]}`, all...)
	add("POST /v1/recall", "", "", `{"question":"x","dois":["not a doi",null,5]}`)
	add("POST /v1/recall", "", "", `{"question":"x","dois":"10.1000/x"}`)
	add("POST /v1/recall", "", "", "{\"question\":\"\xff\xfe\x00\"}")
	add("POST /v1/recall", "", "", nested)
	add("GET /v1/papers/recall", "", "q=recall&limit=5", "", all...)
	add("GET /v1/papers/recall", "", "q=x&limit=-1", "")
	add("GET /v1/papers/recall", "", "q=NaN&limit=99999999999999999999", "")
	add("GET /v1/papers/recall", "", "q=%00%ff&limit=1e3", "")
	add("GET /v1/papers/recall", "", "q=%zz;&&=", "")
	add("GET /v1/papers/{doi:.+}/exists", "10.1000/x", "", "", all...)
	add("GET /v1/papers/{doi:.+}/exists", "10.1000/x", "", "", 4)
	add("GET /v1/papers/{doi:.+}/exists", "doi:10.1000/X", "", "")
	add("GET /v1/papers/{doi:.+}/exists", "https://doi.org/10.1000/x", "", "", 4)
	add("GET /v1/papers/{doi:.+}/exists", "%zz", "", "", 4)
	add("GET /v1/papers/{doi:.+}/exists", "\xff\x00", "", "")
	add("GET /v1/papers/{doi:.+}/exists", long, "", "")
	add("GET /v1/papers/{doi:.+}/cite", "10.1000/remote", "format=ris", "", all...)
	add("GET /v1/papers/{doi:.+}/cite", "10.1000/remote", "format=csl-json", "", 4)
	add("GET /v1/papers/{doi:.+}/cite", "10.1000/remote", "format=%00%ff&format=ris", "")
	add("GET /v1/papers/{doi:.+}/cite", "local:zz", "", "")
	// #42: the citation graph.
	add("GET /v1/papers/{doi:.+}/references", "10.1000/remote", "", "", all...)
	add("GET /v1/papers/{doi:.+}/references", "10.1000/remote", "refresh=maybe", "")
	add("GET /v1/papers/{doi:.+}/citations", "10.1000/remote", "refresh=true", "", 4)
	add("GET /v1/papers/{doi:.+}/citations", "%zz", "", "")
	add("GET /v1/papers/{doi:.+}/related", "10.1000/remote", "limit=5", "", all...)
	add("GET /v1/papers/{doi:.+}/related", "10.1000/remote", "limit=-1&limit=1e9", "")
	add("GET /v1/graph/gaps", "", "limit=3", "", all...)
	add("GET /v1/graph/gaps", "", "limit=%00", "")
	add("POST /v1/papers", "", "", paper, all...)
	add("POST /v1/papers", "", "", `{"title":"No DOI","year":-1}`)
	add("POST /v1/papers", "", "", `{"doi":"10.1000/big","title":"t","year":1e308}`)
	add("POST /v1/papers", "", "", `{"doi":"not a doi","source_url":"javascript:alert(1)"}`)
	add("POST /v1/papers", "", "", `{}`)
	add("POST /v1/papers/batch", "", "", `{"papers":[`+paper+`,{"doi":"bad"},{}]}`, 0, 1)
	add("POST /v1/papers/batch", "", "", `{"papers":[]}`)
	add("POST /v1/papers/{doi:.+}/fetch", "10.1000/x", "", "", all...)
	add("POST /v1/papers/{doi:.+}/fetch", "10.1000/remote", "", "")
	add("POST /v1/papers/{doi:.+}/fetch", "10.1000/none", "", "")
	add("DELETE /v1/papers/{doi:.+}", "10.1000/y", "", "", 0, 1)
	add("DELETE /v1/papers/{doi:.+}", "10.1000/never", "", "", 4)

	add("POST /v1/ingest", "", "", testutil.Multipart("notes.md", "# Notes\nHybrid recall works.", "domain", "ml", "title", "Notes"), all...)
	add("POST /v1/ingest", "", "", testutil.Multipart("table.csv", "a,b\n1,2\n", "doi", "10.1000/csv"))
	add("POST /v1/ingest", "", "", testutil.Multipart("data.json", `{"doi":"10.1000/j","records":[{"a":1}]}`))
	add("POST /v1/ingest", "", "", testutil.Multipart("paper.pdf", "%PDF-1.7 truncated"))
	add("POST /v1/ingest", "", "", testutil.Multipart("x.exe", "MZ"))
	add("POST /v1/ingest", "", "", "not multipart")

	add("POST /v1/analysis", "", "", `{"doi":"10.1000/x","markdown":"# Analysis\nThe claim holds: recall rose.","core_claim":"c","acceptance":"a","scorecard":"s","sharpest_flaw":"f","claims_extracted":2}`, all...)
	add("POST /v1/analysis", "", "", `{"doi":"10.1000/x","markdown":"m","claims_extracted":-5}`)
	add("GET /v1/analysis/{doi:.+}", "10.1000/x", "", "", all...)
	add("GET /v1/analysis/{doi:.+}", "10.1000/none", "", "", 4)

	add("POST /v1/user/remember", "", "", `{"text":"I prefer BM25 with vectors","key":"pref","tags":["search"],"domain":"ml","occurred_at":"2025-03-01","metadata":{"session":"s1","seq":3}}`, all...)
	add("POST /v1/user/remember", "", "", `{"text":"x","occurred_at":"not a date","metadata":{"session":[],"seq":-1e308}}`)
	add("POST /v1/user/remember", "", "", `{"text":""}`)
	add("POST /v1/user/recall", "", "", `{"question":"what do I prefer","keywords":["bm25"],"budget_tokens":50}`, all...)
	add("POST /v1/user/recall", "", "", `{"question":"x","budget_tokens":0}`)
	add("DELETE /v1/user/memory/{key:.+}", "pref", "", "", all...)
	add("DELETE /v1/user/memory/{key:.+}", "../x", "", "", 4)

	add("POST /v1/sessions/link", "", "", `{"session_id":"s1","papers":["10.1000/x","10.1000/stub"],"claims":[]}`, all...)
	add("POST /v1/sessions/link", "", "", `{"session_id":"s2","papers":["10.1000/x"],"claims":[-1,9223372036854775807]}`)
	add("POST /v1/sessions/link", "", "", `{"session_id":"","papers":null}`)
	add("GET /v1/graph", "", "seed_session=s1&hops=2", "", all...)
	add("GET /v1/graph", "", "seed_session=s1&hops=4", "")
	add("GET /v1/graph", "", "hops=-1", "")
	add("GET /v1/graph/neighborhood/{node_id:.+}", "paper:10.1000/x", "hops=3", "", all...)
	add("GET /v1/graph/neighborhood/{node_id:.+}", "session:s1", "", "")
	add("GET /v1/graph/neighborhood/{node_id:.+}", "claim:99999999999999999999", "", "")
	add("GET /v1/graph/neighborhood/{node_id:.+}", "claim:-1", "hops=NaN", "")
	add("POST /v1/graph/materialize", "", "", `{"threshold":0.5}`, all...)
	add("POST /v1/graph/materialize", "", "", "")
	add("POST /v1/graph/materialize", "", "", `{"threshold":-1}`)
	add("POST /v1/graph/materialize", "", "", `{"threshold":1e308}`)

	add("POST /v1/export/session", "", "", `{"session_id":"s1","created_at":"2025-03-01T10:00:00Z","steps":[{"agent":"a","tool":"recall","args":{"q":1e400},"result_ref":"r"}],"recalled_papers":["10.1000/x"],"recalled_claims":[1],"metadata":{"domain":"ml"}}`, all...)
	add("POST /v1/export/session", "", "", `{"user_id":"someone-else","created_at":"0000-00-00"}`)
	add("GET /v1/export", "", "limit=5", "", all...)
	add("GET /v1/export", "", "since=2025-01-01&until=2025-12-31&session_id=s1", "")
	add("GET /v1/export", "", "limit=0&cursor=%ff%fe", "")
	add("GET /v1/export", "", "since=2025-13-45&until=-1", "")
	add("GET /v1/export", "", "cursor=eyJ0IjoiMjAyNSJ9&limit=99999999999999999999", "")
	add("GET /v1/export/download", "", "since=2025-03-01&until=2025-03-01", "", all...)
	add("GET /v1/export/download", "", "since=9999-12-31T23:59:59Z", "")

	add("POST /v1/workspaces", "", "", `{"org_id":"fuzz-made","name":"Made"}`, 0, 2)
	add("POST /v1/workspaces", "", "", `{"org_id":"-bad"}`)
	add("POST /v1/account/api-keys", "", "", `{"name":"ci"}`, 0, 2)
	add("POST /v1/account/api-keys", "", "", "")
	add("POST /v1/account/api-keys", "", "", `{"name":"`+long+`"}`)
	add("DELETE /v1/account/api-keys/{key_id}", fx.VictimKeyID, "", "", 0)
	add("DELETE /v1/account/api-keys/{key_id}", "key_none", "", "", 1)
	add("PATCH /v1/account", "", "", `{"profile":{"name":"Lab","website":"https://lab.test","country":"FR"},"notifications":{"usage_alert_percent":80},"billing_contact":{"email":"bill@lab.test"},"payment_method":{"type":"card","brand":"visa","last4":"4242","exp_month":12,"exp_year":2030},"plan":"starter"}`, 0, 2)
	add("PATCH /v1/account", "", "", `{"plan":{"tier":"Team Tier"},"notifications":{"usage_alert_percent":1e999}}`)
	add("PATCH /v1/account", "", "", `{"payment_method":{"type":"card","exp_month":-1,"exp_year":99999999999}}`)
	add("POST /v1/billing/checkout", "", "", `{"plan":"team"}`, 0, 2)
	add("POST /v1/billing/checkout", "", "", `{"plan":"starter"}`)
	add("POST /v1/billing/checkout", "", "", `{"plan":"platinum"}`)
	add("POST /v1/billing/checkout/confirm", "", "", fmt.Sprintf(`{"checkout_id":%q,"payment_id":"pay_1","signature":%q}`,
		fx.Checkout, hosted.SignPayment("fuzz-payments", fx.Checkout, "pay_1")))
	add("POST /v1/billing/checkout/confirm", "", "", `{"checkout_id":"chk_none","payment_id":"p","signature":"zz"}`)

	add("GET /v1/admin/workspaces/{org_id}/activity", fx.Org, "", "", 0, 1, 2)
	add("GET /v1/admin/workspaces/{org_id}/activity", "none", "", "")
	add("POST /v1/admin/workspaces/{org_id}/plan", fx.Org, "", `{"tier":"enterprise"}`)
	add("POST /v1/admin/workspaces/{org_id}/plan", "none", "", `{"tier":""}`)
	add("POST /v1/admin/workspaces/{org_id}/users", fx.Org, "", `{"email":"member@fuzz.test","password":"member-password","name":"M"}`)
	add("POST /v1/admin/workspaces/{org_id}/users", "none", "", `{"email":"x"}`)
	add("POST /v1/admin/workspaces/{org_id}/users/{user_id}/disable", fx.Org+"\n"+fx.Victim, "", "", 0, 1)
	add("POST /v1/admin/workspaces/{org_id}/users/{user_id}/enable", fx.Org+"\n"+fx.Victim, "", "", 0, 1)
	add("POST /v1/admin/workspaces/{org_id}/users/{user_id}/disable", "none", "", "")

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`
	add("POST /mcp", "", "", initialize, all...)
	add("POST /mcp", "", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	add("POST /mcp", "", "", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall","arguments":{"question":"recall","budget_tokens":-1}}}`)
	add("POST /mcp", "", "", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"paper_exists","arguments":{"doi":7}}}`)
	add("POST /mcp", "", "", `[{"jsonrpc":"2.0"}]`)

	// Hostile bodies and paths on routes that decode them.
	for _, r := range []string{"POST /v1/papers", "PATCH /v1/account", "POST /v1/export/session", "POST /mcp"} {
		add(r, "", "", nested)
		add(r, "", "", "\xff\xfe{")
		add(r, "", "", `{"a":1}{"b":2}`)
	}
	// NUL characters in the strings of every kind of record.
	for _, rb := range [][2]string{
		{"POST /v1/auth/signup", `{"email":"nul@fuzz.test","password":"nul-password","name":"a\u0000b","workspace_name":"\u0000"}`},
		{"POST /v1/papers", `{"doi":"10.1000/nul","title":"a\u0000b","text":"x\u0000y","authors":["\u0000"],"domain":"\u0000","source_url":"https://origin.test/\u0000"}`},
		{"POST /v1/analysis", `{"doi":"10.1000/x","markdown":"a\u0000b","core_claim":"\u0000"}`},
		{"POST /v1/user/remember", `{"text":"a\u0000b","key":"k\u0000","tags":["\u0000"],"domain":"\u0000","metadata":{"session":"\u0000","\u0000":"\u0000"}}`},
		{"POST /v1/user/recall", `{"question":"a\u0000b","keywords":["\u0000"]}`},
		{"POST /v1/recall", `{"question":"a\u0000b","keywords":["\u0000"],"domain":"\u0000"}`},
		{"POST /v1/sessions/link", `{"session_id":"s1","papers":["10.1000/\u0000"]}`},
		{"POST /v1/export/session", `{"session_id":"s3","steps":[{"agent":"\u0000","tool":"\u0000","args":"\u0000","result_ref":"\u0000"}],"metadata":{"domain":"\u0000"}}`},
		{"POST /v1/workspaces", `{"org_id":"fuzz-nul","name":"a\u0000b"}`},
		{"POST /v1/account/api-keys", `{"name":"a\u0000b"}`},
		{"PATCH /v1/account", `{"profile":{"name":"a\u0000b"},"billing_contact":{"name":"\u0000"}}`},
		{"POST /v1/billing/checkout", `{"plan":"team\u0000"}`},
		{"POST /v1/auth/login", `{"email":"a\u0000@fuzz.test","password":"\u0000"}`},
		{"POST /v1/admin/workspaces/{org_id}/users", `{"email":"nul2@fuzz.test","password":"nul-password","name":"a\u0000b"}`},
	} {
		add(rb[0], fx.Org, "", rb[1])
	}
	// Listings that read those records back (on PostgreSQL the JSON escape
	// \u0000 in a stored export's metadata once failed GET /v1/users).
	for _, r := range []string{"GET /v1/users", "GET /v1/export", "GET /v1/export/download", "GET /v1/analytics"} {
		add(r, "", "", "", all...)
	}
	add("GET /v1/export", "", "session_id=%00&cursor=%00", "")
	add("GET /v1/papers/recall", "", "q=a%00b", "")
	add("GET /v1/graph", "", "seed_session=%00", "")
	add("GET /v1/graph", "", "seed_session=%ff", "")
	add("POST /v1/ingest", "", "", testutil.Multipart("a\x00.md", "# T\x00\nx\x00y", "domain", "\x00", "title", "\x00"))
	for _, p := range []string{"%00", "\x00", "..", "/", "", "%2F%2F", long, "\xff"} {
		add("DELETE /v1/papers/{doi:.+}", p, "", "", 0, 4)
		add("GET /v1/graph/neighborhood/{node_id:.+}", p, "", "", 0, 4)
		add("DELETE /v1/user/memory/{key:.+}", p, "", "", 0, 4)
	}
	return out
}

// fakeOrigin is the paper origin: every URL serves a short Markdown text,
// so that fetches never leave the process.
type fakeOrigin struct{}

func (fakeOrigin) Fetch(ctx context.Context, u string) ([]byte, string, error) {
	return []byte("# Fetched\nThe text fetched from " + u + ".\n## Results\nIt was fetched."), "text/markdown", nil
}
