package httpapi_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
)

func TestSignupLoginMe(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	if a.org != "lab-one" || !strings.HasPrefix(a.userID, "usr_") {
		t.Fatalf("account %+v", a)
	}

	t.Run("SignupShape", func(t *testing.T) {
		r := e.do("POST", "/v1/auth/signup", map[string]any{"email": "bob@example.org", "password": "pw-bbbbbbbb"})
		want(t, r, http.StatusCreated, "")
		var tok struct {
			AccessToken string         `json:"access_token"`
			TokenType   string         `json:"token_type"`
			ExpiresIn   int            `json:"expires_in"`
			User        map[string]any `json:"user"`
		}
		r.json(t, &tok)
		if r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("token response may be cached: %v", r.header)
		}
		if tok.TokenType != "bearer" || tok.ExpiresIn != 86400 || tok.AccessToken == "" {
			t.Fatalf("token %+v", tok)
		}
		for _, k := range []string{"user_id", "org_id", "email", "name", "role", "created_at"} {
			if _, ok := tok.User[k]; !ok {
				t.Errorf("user lacks %s: %v", k, tok.User)
			}
		}
		if !papermem.ValidWorkspaceID(tok.User["org_id"].(string)) {
			t.Errorf("fresh org id %v", tok.User["org_id"])
		}
	})
	t.Run("ErrDuplicateEmail", func(t *testing.T) {
		r := e.do("POST", "/v1/auth/signup", map[string]any{"email": "ADA@example.org", "password": "pw-aaaaaaaa"})
		want(t, r, http.StatusBadRequest, "duplicate_email")
	})
	t.Run("ErrExistingWorkspace", func(t *testing.T) {
		r := e.do("POST", "/v1/auth/signup", map[string]any{"email": "eve@example.org", "password": "pw-eeeeeeee", "org_id": "lab-one"})
		want(t, r, http.StatusBadRequest, "invalid_workspace")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, body := range []any{
			map[string]any{"email": "no-at-sign", "password": "pw-xxxxxxxx"},
			map[string]any{"email": "x@example.org", "password": "short"},
			map[string]any{"email": "x@example.org"},
			map[string]any{"email": 42, "password": "pw-xxxxxxxx"},
			`{"email": "x@example.org", "password": `,
			`[]`,
			``,
		} {
			r := e.do("POST", "/v1/auth/signup", body)
			want(t, r, http.StatusBadRequest, "invalid_input")
		}
		r := e.do("POST", "/v1/auth/signup", map[string]any{"email": "x@example.org", "password": "pw-xxxxxxxx", "org_id": "No Spaces"})
		want(t, r, http.StatusBadRequest, "invalid_workspace")
	})
	t.Run("Login", func(t *testing.T) {
		r := e.do("POST", "/v1/auth/login", map[string]any{"email": "ada@example.org", "password": "pw-aaaaaaaa"})
		want(t, r, http.StatusOK, "")
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		r.json(t, &tok)
		want(t, e.do("GET", "/v1/auth/me", nil, bearer(tok.AccessToken)...), http.StatusOK, "")
	})
	t.Run("ErrLogin", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"email": "ada@example.org", "password": "wrong-password"},
			{"email": "nobody@example.org", "password": "pw-aaaaaaaa"},
			{"email": "ada@example.org", "password": ""},
		} {
			want(t, e.do("POST", "/v1/auth/login", body), http.StatusUnauthorized, "unauthorized")
		}
	})
	t.Run("Me", func(t *testing.T) {
		r := e.do("GET", "/v1/auth/me", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var me map[string]any
		r.json(t, &me)
		if me["user_id"] != a.userID || me["org_id"] != "lab-one" || me["email"] != "ada@example.org" || me["is_founder"] != false || me["role"] != "owner" {
			t.Fatalf("me %v", me)
		}
	})
	t.Run("ErrMeWithAPIKey", func(t *testing.T) {
		key := e.apiKey(a.auth()...)
		want(t, e.do("GET", "/v1/auth/me", nil, bearer(key)...), http.StatusUnauthorized, "unauthorized")
	})
}

func TestBadTokens(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	secret := []byte("0123456789abcdef0123456789abcdef")
	e := newEnv(t, httpapi.Config{JWTSecret: secret, Now: clock}, nil)
	a := e.signup("ada@example.org", "lab-one")

	claims := func(exp time.Time) jwt.MapClaims {
		return jwt.MapClaims{"user_id": a.userID, "org_id": a.org, "name": "Tester", "email": a.email,
			"iat": now.Add(-time.Minute).Unix(), "exp": exp.Unix(), "jti": "x"}
	}
	sign := func(m jwt.SigningMethod, key any, c jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(m, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := sign(jwt.SigningMethodHS256, secret, claims(now.Add(time.Hour)))
	want(t, e.do("GET", "/v1/auth/me", nil, bearer(good)...), http.StatusOK, "")

	noneTok := sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(now.Add(time.Hour)))
	noExp := claims(now.Add(time.Hour))
	delete(noExp, "exp")
	noID := claims(now.Add(time.Hour))
	delete(noID, "jti")
	for name, hdr := range map[string][]string{
		"Missing":      nil,
		"NotBearer":    {"Authorization", "Basic " + good},
		"EmptyBearer":  {"Authorization", "Bearer "},
		"Garbage":      bearer("not.a.token"),
		"Expired":      bearer(sign(jwt.SigningMethodHS256, secret, claims(now.Add(-time.Second)))),
		"AlgNone":      bearer(noneTok),
		"WrongSecret":  bearer(sign(jwt.SigningMethodHS256, []byte("another secret, 32 bytes long!!!"), claims(now.Add(time.Hour)))),
		"HS512":        bearer(sign(jwt.SigningMethodHS512, secret, claims(now.Add(time.Hour)))),
		"NoExpiry":     bearer(sign(jwt.SigningMethodHS256, secret, noExp)),
		"NoID":         bearer(sign(jwt.SigningMethodHS256, secret, noID)),
		"Tampered":     bearer(good[:len(good)-2] + "xx"),
		"UnknownKey":   bearer(hosted.KeyPrefix + strings.Repeat("A", 43)),
		"KeyTooShort":  bearer(hosted.KeyPrefix),
		"LowerBearer":  {"Authorization", "bearer garbage"},
		"DevHeaderOff": {"X-Dev-Org-Id", "lab-one"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/v1/auth/me", "/v1/users"} {
				want(t, e.do("GET", path, nil, hdr...), http.StatusUnauthorized, "unauthorized")
			}
			want(t, e.do("POST", "/v1/recall", map[string]any{"question": "q"}, hdr...), http.StatusUnauthorized, "unauthorized")
		})
	}

	t.Run("WorkspaceTTL", func(t *testing.T) {
		if err := e.svc.Workspace("lab-one").SetTokenTTL(t.Context(), time.Hour); err != nil {
			t.Fatal(err)
		}
		r := e.do("POST", "/v1/auth/login", map[string]any{"email": a.email, "password": "pw-aaaaaaaa"})
		want(t, r, http.StatusOK, "")
		var tok struct {
			AccessToken string `json:"access_token"`
			ExpiresIn   int    `json:"expires_in"`
		}
		r.json(t, &tok)
		if tok.ExpiresIn != 3600 {
			t.Fatalf("expires_in %d, want 3600", tok.ExpiresIn)
		}
		later := now.Add(time.Hour + time.Second)
		e2 := newEnv(t, httpapi.Config{JWTSecret: secret, Now: func() time.Time { return later }}, nil)
		want(t, e2.do("GET", "/v1/users", nil, bearer(tok.AccessToken)...), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("ExpiresAfterTTL", func(t *testing.T) {
		later := now.Add(24*time.Hour + time.Second)
		e2 := newEnv(t, httpapi.Config{JWTSecret: secret, Now: func() time.Time { return later }}, nil)
		// The same secret: a token of the first server, now expired.
		want(t, e2.do("GET", "/v1/users", nil, a.auth()...), http.StatusUnauthorized, "unauthorized")
	})
}

func TestGeneratedSecretSurvivesRestart(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	// A second handler over the same database reads the kept secret.
	srv2 := httptest.NewServer(httpapi.New(e.svc, httpapi.Config{Logger: slog.New(slog.DiscardHandler)}))
	defer srv2.Close()
	req, _ := http.NewRequest("GET", srv2.URL+"/v1/auth/me", nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := srv2.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("token of the first handler: status %d", res.StatusCode)
	}
}

func TestAPIKeyRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")

	r := e.do("POST", "/v1/account/api-keys", "", a.auth()...) // empty body: default name
	want(t, r, http.StatusCreated, "")
	var k hosted.NewAPIKey
	r.json(t, &k)
	e.keys = append(e.keys, k.Key)
	if k.Name != "default" || !strings.HasPrefix(k.Key, "pm_") || len(k.Key) < 46 || k.KeyID == "" || k.LastUsedAt != nil {
		t.Fatalf("key %+v", k)
	}
	want(t, e.do("POST", "/v1/recall", map[string]any{"question": "anything"}, bearer(k.Key)...), http.StatusOK, "")

	r = e.do("GET", "/v1/account/api-keys", nil, bearer(k.Key)...)
	want(t, r, http.StatusOK, "")
	var list struct {
		APIKeys []map[string]any `json:"api_keys"`
	}
	r.json(t, &list)
	if len(list.APIKeys) != 1 || list.APIKeys[0]["key_id"] != k.KeyID || list.APIKeys[0]["last_used_at"] == nil {
		t.Fatalf("list %+v", list)
	}
	if _, ok := list.APIKeys[0]["key"]; ok {
		t.Fatal("list shows a key value")
	}
	r = e.do("GET", "/v1/account/api-keys", nil, b.auth()...)
	r.json(t, &list)
	if len(list.APIKeys) != 0 {
		t.Fatalf("another workspace sees keys: %s", r.body)
	}

	t.Run("ErrBadName", func(t *testing.T) {
		want(t, e.do("POST", "/v1/account/api-keys", map[string]any{"name": 7}, a.auth()...), http.StatusBadRequest, "invalid_input")
		want(t, e.do("POST", "/v1/account/api-keys", map[string]any{"name": strings.Repeat("n", 101)}, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("ErrRevokeOtherWorkspace", func(t *testing.T) {
		want(t, e.do("DELETE", "/v1/account/api-keys/"+k.KeyID, nil, b.auth()...), http.StatusNotFound, "not_found")
		want(t, e.do("POST", "/v1/recall", map[string]any{"question": "anything"}, bearer(k.Key)...), http.StatusOK, "")
	})
	t.Run("RevokeIsImmediate", func(t *testing.T) {
		r := e.do("DELETE", "/v1/account/api-keys/"+k.KeyID, nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		if string(r.body) != `{"revoked":"`+k.KeyID+`"}`+"\n" {
			t.Fatalf("revoke body %s", r.body)
		}
		want(t, e.do("POST", "/v1/recall", map[string]any{"question": "anything"}, bearer(k.Key)...), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("DELETE", "/v1/account/api-keys/"+k.KeyID, nil, a.auth()...), http.StatusNotFound, "not_found")
	})
}

func TestAdminMe(t *testing.T) {
	e := newEnv(t, httpapi.Config{FounderEmails: []string{"Boss@Example.org"}}, nil)
	a := e.signup("ada@example.org", "lab-one")
	boss := e.signup("boss@example.org", "lab-two")
	for name, tc := range map[string]struct {
		hdr  []string
		want string
	}{
		"NoCredential": {nil, `{"is_founder":false}`},
		"Garbage":      {bearer("garbage"), `{"is_founder":false}`},
		"BadKey":       {bearer("pm_garbage"), `{"is_founder":false}`},
		"Ordinary":     {a.auth(), `{"is_founder":false}`},
		"Configured":   {boss.auth(), `{"is_founder":true}`},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.do("GET", "/v1/admin/me", nil, tc.hdr...)
			want(t, r, http.StatusOK, "")
			if strings.TrimSpace(string(r.body)) != tc.want {
				t.Fatalf("body %s, want %s", r.body, tc.want)
			}
		})
	}
	t.Run("Granted", func(t *testing.T) {
		if err := e.svc.GrantFounder(t.Context(), "ada@example.org"); err != nil {
			t.Fatal(err)
		}
		r := e.do("GET", "/v1/admin/me", nil, a.auth()...)
		if strings.TrimSpace(string(r.body)) != `{"is_founder":true}` {
			t.Fatalf("body %s", r.body)
		}
		r = e.do("GET", "/v1/auth/me", nil, a.auth()...)
		if !strings.Contains(string(r.body), `"is_founder":true`) {
			t.Fatalf("me %s", r.body)
		}
	})
}

func TestRateLimits(t *testing.T) {
	e := newEnv(t, httpapi.Config{RateLimit: 3, AuthRateLimit: 2}, nil)
	a := e.signup("ada@example.org", "lab-one") // 1 of 2 auth attempts
	t.Run("PerCredential", func(t *testing.T) {
		for i := range 3 {
			r := e.do("GET", "/v1/users", nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
				t.Fatalf("request %d: headers %v", i, r.header)
			}
		}
		r := e.do("GET", "/v1/users", nil, a.auth()...)
		want(t, r, http.StatusTooManyRequests, "rate_limited")
		if r.header.Get("Retry-After") == "" || r.header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("429 headers %v", r.header)
		}
		// Another credential has its own bucket.
		b := e.do("POST", "/v1/auth/login", map[string]any{"email": "ada@example.org", "password": "pw-aaaaaaaa"})
		want(t, b, http.StatusOK, "")
	})
	t.Run("PerAddressOnAuth", func(t *testing.T) {
		r := e.do("POST", "/v1/auth/login", map[string]any{"email": "ada@example.org", "password": "pw-aaaaaaaa"})
		want(t, r, http.StatusTooManyRequests, "rate_limited")
		if r.header.Get("Retry-After") == "" {
			t.Fatalf("no Retry-After: %v", r.header)
		}
	})
}

func TestPlanRateLimit(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	r := e.do("GET", "/v1/users", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	starter, err := papermem.LookupPlan("starter")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.header.Get("X-RateLimit-Limit"), strconv.Itoa(starter.RequestsPerMinute); got != want {
		t.Fatalf("Starter limit %s, want %s", got, want)
	}
}

// TestTrustedProxies: behind a trusted proxy the per-address limit of login
// counts each client by its X-Forwarded-For address (the right-most one
// that is not a trusted proxy), and developer headers from a remote client
// relayed by a proxy on loopback are refused; without trusted proxies the
// header is ignored.
func TestTrustedProxies(t *testing.T) {
	login := func(e *env, xff string) int {
		return e.do("POST", "/v1/auth/login", map[string]any{"email": "nobody@example.org", "password": "wrong-password"},
			"X-Forwarded-For", xff).status
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}
	t.Run("Trusted", func(t *testing.T) {
		e := newEnv(t, httpapi.Config{AuthRateLimit: 2, TrustedProxies: trusted, DevAuth: true}, nil)
		for i, xff := range []string{"203.0.113.5", "198.51.100.7, 203.0.113.5, 10.0.0.2"} {
			if got := login(e, xff); got != http.StatusUnauthorized {
				t.Fatalf("attempt %d: %d", i, got)
			}
		}
		if got := login(e, "203.0.113.5"); got != http.StatusTooManyRequests {
			t.Fatalf("third attempt of 203.0.113.5: %d, want 429", got)
		}
		if got := login(e, "203.0.113.9"); got != http.StatusUnauthorized {
			t.Fatalf("another client: %d, want its own bucket", got)
		}
		e.mu.Lock()
		logged := strings.Contains(e.log.String(), "client=203.0.113.9")
		e.mu.Unlock()
		if !logged {
			t.Errorf("the request log does not name the client: %s", e.log.String())
		}
		dev := []string{"X-Dev-Org-Id", "lab-one", "X-Dev-User-Id", "u1"}
		q := map[string]any{"question": "anything"}
		want(t, e.do("POST", "/v1/user/recall", q, append(dev, "X-Forwarded-For", "203.0.113.5")...), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("POST", "/v1/user/recall", q, dev...), http.StatusOK, "")
	})
	t.Run("Untrusted", func(t *testing.T) {
		e := newEnv(t, httpapi.Config{AuthRateLimit: 2}, nil)
		for i, xff := range []string{"203.0.113.5", "203.0.113.6"} {
			if got := login(e, xff); got != http.StatusUnauthorized {
				t.Fatalf("attempt %d: %d", i, got)
			}
		}
		if got := login(e, "203.0.113.7"); got != http.StatusTooManyRequests {
			t.Fatalf("X-Forwarded-For from an untrusted peer made a new bucket: %d", got)
		}
	})
}
