package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// env is a server over a real SQLite file. It records every response body
// so that a test can check nothing secret ever left the server.
type env struct {
	t   *testing.T
	m   *papermem.Memory
	svc *hosted.Service // over m
	srv *httptest.Server
	log *testutil.Buffer

	mu      sync.Mutex
	bodies  []string
	keys    []string // API key values created
	secrets []string // passwords used
}

func newEnv(t *testing.T, cfg httpapi.Config, opts *papermem.Options) *env {
	t.Helper()
	return newHostedEnv(t, cfg, opts, nil)
}

// newHostedEnv is newEnv with the hosted service's options.
func newHostedEnv(t *testing.T, cfg httpapi.Config, opts *papermem.Options, hopts *hosted.Options) *env {
	t.Helper()
	svc := testutil.OpenHosted(t, opts, hopts)
	e := &env{t: t, m: svc.Memory(), svc: svc, log: &testutil.Buffer{}}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(e.log, nil))
	}
	e.srv = httptest.NewServer(httpapi.New(e.svc, cfg))
	t.Cleanup(e.srv.Close)
	t.Cleanup(e.checkNoLeaks)
	return e
}

// checkNoLeaks fails when a response body held a password hash, a password,
// or an API key value anywhere but in the one response that created it,
// or when the log held any of them.
func (e *env) checkNoLeaks() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, b := range append(e.bodies, e.log.String()) {
		for _, marker := range []string{"$2a$", "$2b$", "password_hash"} {
			if strings.Contains(b, marker) {
				e.t.Errorf("a response or the log contains %q: %.200s", marker, b)
			}
		}
		for _, p := range e.secrets {
			if strings.Contains(b, p) {
				e.t.Errorf("a response or the log contains a password")
			}
		}
	}
	for _, k := range e.keys {
		n := 0
		for _, b := range e.bodies {
			n += strings.Count(b, k)
		}
		if n != 1 {
			e.t.Errorf("API key value appears in %d responses, want only its creation", n)
		}
		if strings.Contains(e.log.String(), k) {
			e.t.Errorf("API key value in the log")
		}
	}
}

// resp is a response with its raw body.
type resp struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into v.
func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// errCode returns the error code of an error body.
func (r resp) errCode(t *testing.T) string {
	t.Helper()
	var b struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	r.json(t, &b)
	if b.Error.Code == "" || b.Error.Message == "" {
		t.Fatalf("not an error body: %s", r.body)
	}
	return b.Error.Code
}

// do sends a request. body is a string (sent raw), nil, or a value sent
// as JSON; hdr are header name/value pairs.
func (e *env) do(method, path string, body any, hdr ...string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return e.send(req, hdr)
}

// send sets the header pairs hdr on req, sends it and records the body so
// that tests can check no response leaked a secret.
func (e *env) send(req *http.Request, hdr []string) resp {
	e.t.Helper()
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	e.mu.Lock()
	e.bodies = append(e.bodies, string(raw))
	e.mu.Unlock()
	return resp{status: res.StatusCode, header: res.Header, body: raw}
}

// want fails unless r has the status (and, for errors, the code).
func want(t *testing.T, r resp, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if code != "" {
		if got := r.errCode(t); got != code {
			t.Fatalf("code %q, want %q: %s", got, code, r.body)
		}
	}
}

// account is a signed-up user with a session token.
type account struct {
	token, userID, org, email string
}

func (a account) auth() []string { return []string{"Authorization", "Bearer " + a.token} }

// signup creates an account in a fresh workspace.
func (e *env) signup(email, org string) account {
	e.t.Helper()
	pw := "pw-" + strings.Repeat(email[:1], 8)
	e.mu.Lock()
	e.secrets = append(e.secrets, pw)
	e.mu.Unlock()
	r := e.do("POST", "/v1/auth/signup", map[string]any{"email": email, "password": pw, "name": "Tester", "org_id": org})
	want(e.t, r, http.StatusCreated, "")
	var tok struct {
		AccessToken string      `json:"access_token"`
		User        hosted.User `json:"user"`
	}
	r.json(e.t, &tok)
	return account{token: tok.AccessToken, userID: tok.User.UserID, org: tok.User.WorkspaceID, email: email}
}

// apiKey creates an API key with the credential hdr.
func (e *env) apiKey(hdr ...string) string {
	e.t.Helper()
	r := e.do("POST", "/v1/account/api-keys", map[string]any{"name": "test"}, hdr...)
	want(e.t, r, http.StatusCreated, "")
	var k hosted.NewAPIKey
	r.json(e.t, &k)
	e.mu.Lock()
	e.keys = append(e.keys, k.Key)
	e.mu.Unlock()
	return k.Key
}

func bearer(v string) []string { return []string{"Authorization", "Bearer " + v} }
