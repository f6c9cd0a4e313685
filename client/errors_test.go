package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/fetch"
	"github.com/papermem/papermem/internal/testutil"
)

// TestErrorVocabulary meets each failure twice, through the library in
// process and through the client against the real handler over the same
// database: both must read as the same code with papermem.ErrorCode and
// answer errors.Is with that code's sentinel (and with the sentinel the
// API's code refines, if any); the client's error keeps the status, the
// API's code and the server's message.
func TestErrorVocabulary(t *testing.T) {
	ctx := context.Background()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusInternalServerError)
	}))
	t.Cleanup(origin.Close)
	svc := testutil.OpenHosted(t, &papermem.Options{Fetcher: fetch.New(fetch.Options{AllowPrivate: true}), MaxIngestBytes: 1000}, nil)
	m := svc.Memory()
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{}))
	t.Cleanup(srv.Close)
	limited := httptest.NewServer(httpapi.New(svc, httpapi.Config{RateLimit: 1}))
	t.Cleanup(limited.Close)

	anon := client.New(srv.URL, nil)
	tok := must(anon.Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse", WorkspaceID: "lab-ada"}))(t)
	ada := anon.WithToken(tok.AccessToken)
	ws, hws := m.Workspace("lab-ada"), svc.Workspace("lab-ada")
	ada2 := client.New(limited.URL, &client.Options{Token: tok.AccessToken, MaxRetryWait: 1})
	must(ada2.Usage(ctx))(t) // the one request a minute

	big := strings.Repeat("Vitamin D and fractures. ", 100) // over MaxIngestBytes
	paper := func(doi string) api.PaperRequest {
		return api.PaperRequest{DOI: &doi, Title: "Statins", SourceURL: ptr(origin.URL + "/statin.txt")}
	}

	tests := []struct {
		name    string
		code    string       // the library's
		sent    string       // the API's code, when it is not code
		status  int          // the response's
		refines error        // the sentinel the API's code refines code with; nil: none
		lib     func() error // the failure in process; nil when only the server has it
		client  func() error // the same failure through the client
	}{
		{name: "BadLabel", code: papermem.EINVALID, status: 400,
			lib: func() error {
				_, err := ws.Recall(ctx, papermem.RecallRequest{Question: "fractures", Label: "Bogus"})
				return err
			},
			client: func() error {
				_, err := ada.Recall(ctx, api.RecallRequest{Question: "fractures", Label: "Bogus"})
				return err
			}},
		{name: "MalformedWorkspaceID", code: papermem.EINVALID, status: 400, refines: papermem.ErrWorkspaceID, sent: api.CodeInvalidWorkspace,
			lib: func() error {
				_, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "x@example.org", Password: "x password"}, WorkspaceID: "X!"})
				return err
			},
			client: func() error {
				_, err := anon.Signup(ctx, api.SignupRequest{Email: "x@example.org", Password: "x password", WorkspaceID: "X!"})
				return err
			}},
		{name: "MissingUser", code: papermem.EINVALID, status: 400, refines: api.ErrMissingUser, sent: api.CodeMissingUserID,
			client: func() error {
				key := must(ada.CreateAPIKey(ctx, api.CreateKeyRequest{Name: "no user"}))(t)
				_, err := anon.WithToken(key.Key).Remember(ctx, api.RememberRequest{Text: "likes CIs"})
				return err
			}},
		{name: "UnknownDOI", code: papermem.ENOTFOUND, status: 404,
			lib: func() error {
				_, err := ws.Analysis(ctx, "10.1000/none")
				return err
			},
			client: func() error {
				_, err := ada.Analysis(ctx, "10.1000/none")
				return err
			}},
		{name: "DuplicateSignup", code: papermem.ECONFLICT, status: 400, refines: papermem.ErrDuplicateEmail, sent: api.CodeDuplicateEmail,
			lib: func() error {
				_, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "ada@example.org", Password: "correct horse"}})
				return err
			},
			client: func() error {
				_, err := anon.Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse"})
				return err
			}},
		{name: "WrongPassword", code: papermem.EUNAUTHORIZED, status: 401,
			lib: func() error {
				_, err := svc.Login(ctx, "ada@example.org", "wrong horse")
				return err
			},
			client: func() error {
				_, err := anon.Login(ctx, api.LoginRequest{Email: "ada@example.org", Password: "wrong horse"})
				return err
			}},
		{name: "MissingCredential", code: papermem.EUNAUTHORIZED, status: 401,
			lib: func() error {
				_, err := svc.AuthenticateAPIKey(ctx, "")
				return err
			},
			client: func() error {
				_, err := anon.Me(ctx)
				return err
			}},
		{name: "WrongCurrentPassword", code: papermem.EFORBIDDEN, status: 403,
			lib: func() error {
				_, err := hws.ChangePassword(ctx, tok.User.UserID, "wrong horse", "another horse")
				return err
			},
			client: func() error {
				_, err := ada.ChangePassword(ctx, api.PasswordRequest{CurrentPassword: "wrong horse", NewPassword: "another horse"})
				return err
			}},
		{name: "FounderRoute", code: papermem.EFORBIDDEN, status: 403,
			client: func() error {
				_, err := ada.AdminOverview(ctx)
				return err
			}},
		{name: "UnknownPlan", code: papermem.EUNKNOWNPLAN, status: 400,
			lib: func() error {
				_, err := hws.Checkout(ctx, "platinum")
				return err
			},
			client: func() error {
				_, err := ada.Checkout(ctx, api.CheckoutRequest{Plan: "platinum"})
				return err
			}},
		{name: "FileTooLarge", code: papermem.ETOOLARGE, status: 413,
			lib: func() error {
				_, err := ws.IngestFile(ctx, "big.txt", strings.NewReader(big), papermem.IngestOptions{})
				return err
			},
			client: func() error {
				_, err := ada.Ingest(ctx, "big.txt", strings.NewReader(big), papermem.IngestOptions{})
				return err
			}},
		{name: "UnknownFormat", code: papermem.EUNSUPPORTED, status: 415,
			lib: func() error {
				_, err := ws.IngestFile(ctx, "x.exe", strings.NewReader("MZ"), papermem.IngestOptions{})
				return err
			},
			client: func() error {
				_, err := ada.Ingest(ctx, "x.exe", strings.NewReader("MZ"), papermem.IngestOptions{})
				return err
			}},
		{name: "OriginFailed", code: papermem.EUPSTREAM, status: 502,
			lib: func() error {
				p := paper("10.1000/lib")
				if _, _, err := ws.StorePaper(ctx, papermem.PaperInput{DOI: *p.DOI, Title: p.Title, SourceURL: *p.SourceURL}); err != nil {
					return err
				}
				_, err := ws.FetchPaper(ctx, *p.DOI)
				return err
			},
			client: func() error {
				must(ada.StorePaper(ctx, paper("10.1000/client")))(t)
				_, err := ada.FetchPaper(ctx, "10.1000/client")
				return err
			}},
		{name: "RateLimited", code: papermem.ERATELIMITED, status: 429,
			client: func() error {
				_, err := ada2.Usage(ctx)
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(t *testing.T, err error) {
				t.Helper()
				if got := papermem.ErrorCode(err); got != tt.code {
					t.Fatalf("ErrorCode(%v) = %q, want %q", err, got, tt.code)
				}
				sentinel := sentinelOf[tt.code]
				if !errors.Is(err, sentinel) {
					t.Errorf("errors.Is(%v, %s sentinel) = false", err, tt.code)
				}
				for code, other := range sentinelOf {
					if code != tt.code && errors.Is(err, other) {
						t.Errorf("errors.Is(%v, %s sentinel) = true", err, code)
					}
				}
				if tt.refines != nil && !errors.Is(err, tt.refines) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.refines)
				}
				if papermem.ErrorMessage(err) == "" {
					t.Error("no message")
				}
			}
			if tt.lib != nil {
				t.Run("Library", func(t *testing.T) { check(t, tt.lib()) })
			}
			t.Run("Client", func(t *testing.T) {
				err := tt.client()
				check(t, err)
				sent := tt.code
				if tt.sent != "" {
					sent = tt.sent
				}
				var ce *client.Error
				if !errors.As(err, &ce) || ce.StatusCode != tt.status || ce.Code != sent || ce.Message != papermem.ErrorMessage(err) {
					t.Errorf("client error = %#v, want status %d, code %s and the server's message", ce, tt.status, sent)
				}
				if api.Code(err) != sent {
					t.Errorf("api.Code = %q, want %q", api.Code(err), sent)
				}
			})
		})
	}

	// The API has no code for a conflict: a taken workspace id is
	// invalid_workspace, which the client reads as EINVALID.
	t.Run("TakenWorkspaceID", func(t *testing.T) {
		_, _, err := svc.CreateWorkspace(ctx, "lab-ada", "", tok.User.UserID)
		if papermem.ErrorCode(err) != papermem.ECONFLICT || !errors.Is(err, papermem.ErrConflict) || !errors.Is(err, papermem.ErrWorkspaceID) {
			t.Errorf("library: %v (%s)", err, papermem.ErrorCode(err))
		}
		_, err = ada.CreateWorkspace(ctx, api.CreateWorkspaceRequest{WorkspaceID: "lab-ada"})
		if papermem.ErrorCode(err) != papermem.EINVALID || !errors.Is(err, papermem.ErrInvalid) || !errors.Is(err, papermem.ErrWorkspaceID) ||
			api.Code(err) != api.CodeInvalidWorkspace {
			t.Errorf("client: %v (%s)", err, papermem.ErrorCode(err))
		}
	})
}

// sentinelOf is each code's sentinel.
var sentinelOf = map[string]error{
	papermem.EINVALID: papermem.ErrInvalid, papermem.EUNKNOWNPLAN: papermem.ErrUnknownPlan,
	papermem.ENOTFOUND: papermem.ErrNotFound, papermem.ECONFLICT: papermem.ErrConflict,
	papermem.EUNAUTHORIZED: papermem.ErrUnauthorized, papermem.EFORBIDDEN: papermem.ErrForbidden,
	papermem.ETOOLARGE: papermem.ErrTooLarge, papermem.EUNSUPPORTED: papermem.ErrUnsupported,
	papermem.EUPSTREAM: papermem.ErrUpstream, papermem.EUNAVAILABLE: papermem.ErrUnavailable,
	papermem.ENOSPACE: papermem.ErrNoSpace, papermem.ERATELIMITED: papermem.ErrRateLimited,
	papermem.EINTERNAL: papermem.ErrInternal,
}
