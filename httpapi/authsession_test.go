package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
)

// login returns a fresh session token of the account with the email.
func (e *env) login(email, password string) string {
	e.t.Helper()
	r := e.do("POST", "/v1/auth/login", map[string]any{"email": email, "password": password})
	want(e.t, r, http.StatusOK, "")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.json(e.t, &tok)
	return tok.AccessToken
}

// password returns the password e.signup gave the email.
func password(email string) string { return "pw-" + strings.Repeat(email[:1], 8) }

// signToken signs session-token claims with secret, as the server does,
// for a token valid an hour.
func signToken(t *testing.T, secret []byte, userID, org string) string {
	t.Helper()
	now := time.Now()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"user_id": userID, "org_id": org,
		"name": "Forged", "email": "forged@example.org", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"jti": "forged-" + userID}).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// routeSample is a request of a route group, with a body it accepts.
type routeSample struct {
	group, method, path string
	body                any
}

// liveSample has a route or two of every group; each answers 2xx to a live
// session token.
var liveSample = []routeSample{
	{"memory", "POST", "/v1/recall", map[string]any{"question": "sleep and memory"}},
	{"papers", "POST", "/v1/papers", map[string]any{"doi": "10.1000/dead", "title": "Dead", "text": "Abstract\nSleep helps."}},
	{"papers", "GET", "/v1/papers/10.1000/dead/exists", nil},
	{"user memory", "POST", "/v1/user/remember", map[string]any{"text": "prefers short answers", "key": "style"}},
	{"user memory", "POST", "/v1/user/recall", map[string]any{"question": "answers"}},
	{"account", "GET", "/v1/account", nil},
	{"account", "GET", "/v1/users", nil},
	{"account", "GET", "/v1/auth/me", nil},
	{"billing", "GET", "/v1/billing", nil},
	{"billing", "GET", "/v1/usage", nil},
	{"graph", "POST", "/v1/sessions/link", map[string]any{"session_id": "s1", "papers": []string{"10.1000/dead"}}},
	{"graph", "GET", "/v1/graph?seed_session=s1", nil},
	{"export", "GET", "/v1/export", nil},
}

// TestDeadSessionsRefused signs tokens with the server's real secret for
// sessions that no longer stand, and checks each is 401 on a sample of
// every route group (where a live token succeeds and the dead one changes
// nothing), and then on every route that needs a credential.
func TestDeadSessionsRefused(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	e := newEnv(t, httpapi.Config{JWTSecret: secret, FounderEmails: []string{"root@example.org"}}, nil)
	root := e.signup("root@example.org", "lab-root")
	ada := e.signup("ada@example.org", "lab-one")
	bob := e.signup("bob@example.org", "lab-two")
	dave := e.signup("dave@example.org", "lab-one-b")
	erin := e.signup("erin@example.org", "lab-one-c")

	want(t, e.do("POST", "/v1/admin/workspaces/lab-one/users", map[string]any{"email": "carol@example.org",
		"password": "pw-cccccccc"}, root.auth()...), http.StatusCreated, "")
	e.secrets = append(e.secrets, "pw-cccccccc", "pw-eeeeeee2")
	carol := e.login("carol@example.org", "pw-cccccccc")
	var me hosted.User
	e.do("GET", "/v1/auth/me", nil, bearer(carol)...).json(t, &me)
	want(t, e.do("POST", "/v1/admin/workspaces/lab-one/users/"+me.UserID+"/disable", nil, root.auth()...), http.StatusOK, "")
	want(t, e.do("POST", "/v1/auth/logout", nil, dave.auth()...), http.StatusOK, "")
	want(t, e.do("POST", "/v1/auth/password", map[string]any{"current_password": password(erin.email),
		"new_password": "pw-eeeeeee2"}, erin.auth()...), http.StatusOK, "")

	dead := map[string]string{
		"UnknownUser":          signToken(t, secret, "usr_ghost", "lab-one"),
		"OtherWorkspaceUser":   signToken(t, secret, bob.userID, "lab-one"),
		"DisabledUser":         carol,
		"LoggedOut":            dave.token,
		"BeforePasswordChange": erin.token,
	}
	for _, rt := range liveSample {
		want(t, e.do(rt.method, rt.path, rt.body, ada.auth()...), okStatus(rt.method, rt.path), "")
	}
	for name, tok := range dead {
		t.Run(name, func(t *testing.T) {
			for _, rt := range liveSample {
				body := rt.body
				if rt.path == "/v1/papers" {
					body = map[string]any{"doi": "10.1000/" + strings.ToLower(name), "title": "T", "text": "Abstract\nA."}
				}
				r := e.do(rt.method, rt.path, body, bearer(tok)...)
				if r.status != http.StatusUnauthorized || r.errCode(t) != "unauthorized" {
					t.Errorf("%s %s %s: %d %s", rt.group, rt.method, rt.path, r.status, r.body)
				}
			}
			var ex struct{ Exists bool }
			e.do("GET", "/v1/papers/10.1000/"+strings.ToLower(name)+"/exists", nil, ada.auth()...).json(t, &ex)
			if ex.Exists {
				t.Error("a refused request stored a paper")
			}
			for _, rt := range credentialRoutes(t, e) {
				r := e.do(rt.method, rt.path, rt.body, bearer(tok)...)
				if r.status != http.StatusUnauthorized || r.errCode(t) != "unauthorized" {
					t.Errorf("%s %s: %d %s", rt.method, rt.path, r.status, r.body)
				}
			}
			r := e.do("GET", "/v1/admin/me", nil, bearer(tok)...)
			if r.status != http.StatusOK || string(r.body) != `{"is_founder":false}`+"\n" {
				t.Errorf("admin me: %d %s", r.status, r.body)
			}
		})
	}
}

// okStatus is the success status of a sampled route.
func okStatus(method, path string) int {
	if method == "POST" && path == "/v1/papers" {
		return http.StatusCreated
	}
	return http.StatusOK
}

// credentialRoutes lists every route of the OpenAPI document that needs a
// credential, path variables filled in, each with an empty JSON body.
func credentialRoutes(t *testing.T, e *env) []routeSample {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Security []map[string]any `json:"security"`
		} `json:"paths"`
	}
	e.do("GET", "/v1/openapi.json", nil).json(t, &doc)
	fill := strings.NewReplacer("{doi}", "10.1000/x", "{key}", "k", "{key_id}", "key_x", "{org_id}", "lab-one",
		"{user_id}", "usr_x", "{node_id}", "paper:10.1000/x")
	var out []routeSample
	for path, ops := range doc.Paths {
		for method, o := range ops {
			needed := len(o.Security) > 0
			for _, req := range o.Security {
				needed = needed && len(req) > 0 // an empty requirement makes the credential optional
			}
			if needed {
				out = append(out, routeSample{method: strings.ToUpper(method), path: fill.Replace(path), body: map[string]any{}})
			}
		}
	}
	if len(out) < 47 { // as of issue #18; routes are only added
		t.Fatalf("only %d routes need a credential", len(out))
	}
	return out
}

func TestLogout(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	ada := e.signup("ada@example.org", "lab-one")
	second := e.login(ada.email, password(ada.email))
	key := e.apiKey(ada.auth()...)
	recall := func(tok string) resp {
		return e.do("POST", "/v1/recall", map[string]any{"question": "q"}, bearer(tok)...)
	}

	t.Run("ErrNoSession", func(t *testing.T) {
		for _, path := range []string{"/v1/auth/logout", "/v1/auth/logout-all"} {
			want(t, e.do("POST", path, nil, bearer(key)...), http.StatusUnauthorized, "unauthorized")
			want(t, e.do("POST", path, nil), http.StatusUnauthorized, "unauthorized")
		}
		want(t, recall(ada.token), http.StatusOK, "")
	})
	t.Run("One", func(t *testing.T) {
		r := e.do("POST", "/v1/auth/logout", nil, ada.auth()...)
		want(t, r, http.StatusOK, "")
		if string(r.body) != `{"logged_out":true}`+"\n" {
			t.Fatalf("logout body %s", r.body)
		}
		want(t, recall(ada.token), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("GET", "/v1/auth/me", nil, ada.auth()...), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("POST", "/v1/auth/logout", nil, ada.auth()...), http.StatusUnauthorized, "unauthorized")
		want(t, recall(second), http.StatusOK, "")
	})
	t.Run("All", func(t *testing.T) {
		third := e.login(ada.email, password(ada.email))
		want(t, e.do("POST", "/v1/auth/logout-all", nil, bearer(third)...), http.StatusOK, "")
		for _, tok := range []string{second, third} {
			want(t, recall(tok), http.StatusUnauthorized, "unauthorized")
		}
		want(t, recall(key), http.StatusOK, "") // API keys are not sessions
		want(t, recall(e.login(ada.email, password(ada.email))), http.StatusOK, "")
	})
}

func TestChangePasswordRoute(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	ada := e.signup("ada@example.org", "lab-one")
	other := e.login(ada.email, password(ada.email))
	key := e.apiKey(ada.auth()...)
	const next = "a new long password"
	e.secrets = append(e.secrets, next)
	change := func(hdr []string, current, next any) resp {
		return e.do("POST", "/v1/auth/password", map[string]any{"current_password": current, "new_password": next}, hdr...)
	}

	t.Run("Err", func(t *testing.T) {
		want(t, change(ada.auth(), "wrong password", next), http.StatusForbidden, "forbidden")
		for _, body := range []any{
			map[string]any{"current_password": password(ada.email), "new_password": "short"},
			map[string]any{"current_password": password(ada.email), "new_password": strings.Repeat("x", 73)},
			map[string]any{"current_password": password(ada.email)},
			map[string]any{"current_password": password(ada.email), "new_password": 12345678},
			`{"current_password":`,
		} {
			want(t, e.do("POST", "/v1/auth/password", body, ada.auth()...), http.StatusBadRequest, "invalid_input")
		}
		want(t, change(bearer(key), password(ada.email), next), http.StatusUnauthorized, "unauthorized")
		// Nothing changed: the old password and both sessions still work.
		e.login(ada.email, password(ada.email))
		for _, hdr := range [][]string{ada.auth(), bearer(other)} {
			want(t, e.do("GET", "/v1/auth/me", nil, hdr...), http.StatusOK, "")
		}
	})
	t.Run("OK", func(t *testing.T) {
		r := change(ada.auth(), password(ada.email), next)
		want(t, r, http.StatusOK, "")
		var tok struct {
			AccessToken string      `json:"access_token"`
			User        hosted.User `json:"user"`
		}
		r.json(t, &tok)
		if tok.AccessToken == "" || tok.User.UserID != ada.userID {
			t.Fatalf("answer %s", r.body)
		}
		want(t, e.do("GET", "/v1/auth/me", nil, bearer(tok.AccessToken)...), http.StatusOK, "")
		for _, hdr := range [][]string{ada.auth(), bearer(other)} {
			want(t, e.do("GET", "/v1/auth/me", nil, hdr...), http.StatusUnauthorized, "unauthorized")
		}
		want(t, e.do("POST", "/v1/auth/login", map[string]any{"email": ada.email, "password": password(ada.email)}),
			http.StatusUnauthorized, "unauthorized")
		e.login(ada.email, next)
		want(t, e.do("GET", "/v1/account", nil, bearer(key)...), http.StatusOK, "")
	})
}

func TestDisableUserRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Config{FounderEmails: []string{"root@example.org"}}, nil)
	root := e.signup("root@example.org", "lab-root")
	ada := e.signup("ada@example.org", "lab-one")
	e.signup("bob@example.org", "lab-two")
	r := e.do("POST", "/v1/admin/workspaces/lab-one/users", map[string]any{"email": "carol@example.org",
		"password": "pw-cccccccc"}, root.auth()...)
	want(t, r, http.StatusCreated, "")
	e.secrets = append(e.secrets, "pw-cccccccc")
	var carol hosted.User
	r.json(t, &carol)
	carolTok := e.login(carol.Email, "pw-cccccccc")
	carolKey := e.apiKey(bearer(carolTok)...)
	adaKey := e.apiKey(ada.auth()...)
	disable := "/v1/admin/workspaces/lab-one/users/" + carol.UserID + "/disable"
	enable := "/v1/admin/workspaces/lab-one/users/" + carol.UserID + "/enable"
	recall := func(hdr ...string) resp {
		return e.do("POST", "/v1/user/recall", map[string]any{"question": "q"}, hdr...)
	}
	adminUser := func() map[string]any {
		var list struct{ Users []map[string]any }
		e.do("GET", "/v1/admin/users", nil, root.auth()...).json(t, &list)
		for _, u := range list.Users {
			if u["user_id"] == carol.UserID {
				return u
			}
		}
		t.Fatal("carol not listed")
		return nil
	}

	t.Run("Err", func(t *testing.T) {
		want(t, e.do("POST", disable, nil, ada.auth()...), http.StatusForbidden, "forbidden")
		want(t, e.do("POST", disable, nil), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("POST", "/v1/admin/workspaces/lab-two/users/"+carol.UserID+"/disable", nil, root.auth()...), http.StatusNotFound, "not_found")
		want(t, e.do("POST", "/v1/admin/workspaces/lab-one/users/usr_ghost/enable", nil, root.auth()...), http.StatusNotFound, "not_found")
		want(t, recall(bearer(carolTok)...), http.StatusOK, "")
	})
	t.Run("Disable", func(t *testing.T) {
		r := e.do("POST", disable, nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		var u map[string]any
		r.json(t, &u)
		if u["user_id"] != carol.UserID || u["disabled"] != true {
			t.Fatalf("disabled user %s", r.body)
		}
		want(t, recall(bearer(carolTok)...), http.StatusUnauthorized, "unauthorized")
		want(t, recall(append(bearer(carolKey), "X-User-Id", carol.UserID)...), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("POST", "/v1/auth/login", map[string]any{"email": carol.Email, "password": "pw-cccccccc"}),
			http.StatusUnauthorized, "unauthorized")
		want(t, recall(append(bearer(adaKey), "X-User-Id", carol.UserID)...), http.StatusForbidden, "forbidden")
		want(t, recall(append(bearer(adaKey), "X-User-Id", ada.userID)...), http.StatusOK, "")
		want(t, recall(ada.auth()...), http.StatusOK, "")
		if got := adminUser(); got["disabled"] != true {
			t.Errorf("admin listing %v", got)
		}
		want(t, e.do("POST", disable, nil, root.auth()...), http.StatusOK, "")
	})
	t.Run("Enable", func(t *testing.T) {
		r := e.do("POST", enable, nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		var u map[string]any
		r.json(t, &u)
		if u["disabled"] != false {
			t.Fatalf("enabled user %s", r.body)
		}
		want(t, recall(append(bearer(carolKey), "X-User-Id", carol.UserID)...), http.StatusOK, "")
		want(t, recall(bearer(carolTok)...), http.StatusUnauthorized, "unauthorized")
		want(t, recall(bearer(e.login(carol.Email, "pw-cccccccc"))...), http.StatusOK, "")
		if got := adminUser(); got["disabled"] != false {
			t.Errorf("admin listing %v", got)
		}
	})
}

// twoServers runs two servers over one database, as two processes would
// (servers).
func twoServers(t *testing.T) (e, other *env) {
	es := servers(t, 2, httpapi.Config{FounderEmails: []string{"root@example.org"}}, nil)
	return es[0], es[1]
}

// TestSessionEndedThroughAnotherServer ends sessions through one server
// and checks that the other, which has verified them before, refuses them
// on the next request.
func TestSessionEndedThroughAnotherServer(t *testing.T) {
	e, other := twoServers(t)
	root := e.signup("root@example.org", "lab-root")
	ada := e.signup("ada@example.org", "lab-one")
	exists := func(tok string) resp { return e.do("GET", "/v1/papers/10.1000/xyz/exists", nil, bearer(tok)...) }
	fresh := func() string {
		tok := e.login(ada.email, password(ada.email))
		for range 3 {
			want(t, exists(tok), http.StatusOK, "")
		}
		return tok
	}

	t.Run("Logout", func(t *testing.T) {
		tok, kept := fresh(), fresh()
		want(t, other.do("POST", "/v1/auth/logout", nil, bearer(tok)...), http.StatusOK, "")
		want(t, exists(tok), http.StatusUnauthorized, "unauthorized")
		want(t, exists(kept), http.StatusOK, "")
	})
	t.Run("LogoutAll", func(t *testing.T) {
		tok := fresh()
		want(t, other.do("POST", "/v1/auth/logout-all", nil, bearer(fresh())...), http.StatusOK, "")
		want(t, exists(tok), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("Disable", func(t *testing.T) {
		tok := fresh()
		want(t, other.do("POST", "/v1/admin/workspaces/lab-one/users/"+ada.userID+"/disable", nil, root.auth()...), http.StatusOK, "")
		want(t, exists(tok), http.StatusUnauthorized, "unauthorized")
	})
}
