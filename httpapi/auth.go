package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
)

// access is the credential a route needs.
type access int

const (
	public   access = iota // none
	optional               // read when present, never required, never an error
	bearer                 // an API key or a session token
	session                // a session token only
	memory                 // bearer, or the developer headers when Config.DevAuth is on
	founder                // bearer of an account with founder access
)

// Credential kinds, as logged.
const (
	credSession = "session"
	credAPIKey  = "api_key"
	credDev     = "dev"
)

// Request headers naming users and developer workspaces.
const (
	headerUserID  = "X-User-Id"
	headerDevOrg  = "X-Dev-Org-Id"
	headerDevUser = "X-Dev-User-Id"
)

// principal is who a request acts for.
type principal struct {
	workspace string // workspace every call is scoped to
	user      string // "" when the credential names no user
	cred      string // credSession, credAPIKey or credDev
	keyID     string // the API key's id, for credAPIKey

	session *hosted.Session // the session token, for credSession
}

// rateKey identifies the credential for rate limiting.
func (p *principal) rateKey() string {
	switch p.cred {
	case credAPIKey:
		return "key:" + p.keyID
	case credSession:
		return "user:" + p.user
	}
	return "dev:" + p.workspace
}

// creators are the creator names of workspaces this principal made.
func (p *principal) creators() []string {
	c := []string{hosted.CreatorWorkspace(p.workspace)}
	if p.user != "" {
		c = append(c, hosted.CreatorUser(p.user))
	}
	return c
}

// creator is the name recorded for what this principal creates.
func (p *principal) creator() string {
	if p.user != "" {
		return hosted.CreatorUser(p.user)
	}
	return hosted.CreatorWorkspace(p.workspace)
}

// principalFrom returns the request's principal; routes other than public
// and optional ones always have one.
func principalFrom(ctx context.Context) *principal {
	if i := infoFrom(ctx); i != nil {
		return i.p
	}
	return nil
}

// workspace is the principal's workspace.
func (s *server) workspace(r *http.Request) *papermem.Workspace {
	return s.m.Workspace(principalFrom(r.Context()).workspace)
}

// hostedWorkspace is the hosted service's handle on the principal's
// workspace.
func (s *server) hostedWorkspace(r *http.Request) *hosted.Workspace {
	return s.svc.Workspace(principalFrom(r.Context()).workspace)
}

// userOf returns the principal's user id, or api.ErrMissingUser.
func userOf(r *http.Request) (string, error) {
	if u := principalFrom(r.Context()).user; u != "" {
		return u, nil
	}
	return "", api.ErrMissingUser
}

var (
	errNoCredential = papermem.Errorf(papermem.EUNAUTHORIZED, "Missing credential: send Authorization: Bearer <API key or session token>.")
	errBadToken     = papermem.Errorf(papermem.EUNAUTHORIZED, "Invalid or expired session token.")
	errNeedSession  = papermem.Errorf(papermem.EUNAUTHORIZED, "This route needs a session token from signup or login.")
	errNotFounder   = papermem.Errorf(papermem.EFORBIDDEN, "This route needs founder access.")
)

// chain wraps a route's handler with its authentication and rate limit.
func (s *server) chain(rt route) http.Handler {
	h := s.adapt(rt.h)
	if rt.access == public || rt.access == optional {
		return h
	}
	return s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.authenticate(r, rt.access)
		if err != nil {
			return err
		}
		info := infoFrom(r.Context())
		if info == nil { // served without logRequests
			info = &requestInfo{}
			r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		}
		info.p = p
		if err := limit(w, r, s.rates, p.workspace, p.rateKey(), func() int { return s.planLimit(r.Context(), p.workspace) }); err != nil {
			return err
		}
		if rt.access == founder && !s.isFounder(r.Context(), p) {
			return errNotFounder
		}
		s.svc.Workspace(p.workspace).CountAPIRequest() // metered in memory, written in batches
		h.ServeHTTP(w, r)
		return nil
	})
}

// authenticate resolves the request's credential for a route needing a.
func (s *server) authenticate(r *http.Request, a access) (*principal, error) {
	ctx := r.Context()
	auth := r.Header.Get("Authorization")
	if auth == "" {
		if a == memory && s.cfg.DevAuth && r.Header.Get(headerDevOrg) != "" {
			return s.devPrincipal(r)
		}
		return nil, errNoCredential
	}
	scheme, cred, ok := strings.Cut(auth, " ")
	cred = strings.TrimSpace(cred)
	if !ok || !strings.EqualFold(scheme, "Bearer") || cred == "" {
		return nil, errNoCredential
	}
	named := strings.TrimSpace(r.Header.Get(headerUserID))
	if strings.HasPrefix(cred, hosted.KeyPrefix) {
		if a == session {
			return nil, errNeedSession
		}
		k, err := s.svc.AuthenticateAPIKey(ctx, cred)
		if err != nil {
			return nil, err
		}
		p := &principal{workspace: k.WorkspaceID, cred: credAPIKey, keyID: k.KeyID}
		if named != "" {
			u, err := s.svc.Workspace(k.WorkspaceID).User(ctx, named)
			if papermem.ErrorCode(err) == papermem.ENOTFOUND {
				return nil, papermem.Errorf(papermem.EFORBIDDEN, "User %q is not a member of this workspace. X-User-Id takes the user_id of one of its users (usr_ and 24 hex digits), as GET /v1/users lists them.", named)
			}
			if err != nil {
				return nil, err
			}
			if u.Disabled {
				return nil, papermem.Errorf(papermem.EFORBIDDEN, "User %q is disabled.", named)
			}
			p.user = named
		}
		return p, nil
	}
	sess, _, err := s.authenticateSession(ctx, cred)
	if err != nil {
		return nil, err
	}
	if named != "" && named != sess.UserID {
		return nil, papermem.Errorf(papermem.EFORBIDDEN, "A session token cannot act for another user.")
	}
	return &principal{workspace: sess.OrgID, user: sess.UserID, cred: credSession, session: sess}, nil
}

// authenticateSession checks a session token — signature and expiry — and
// that its session still stands (not logged out, user not disabled).
func (s *server) authenticateSession(ctx context.Context, tok string) (*hosted.Session, *hosted.User, error) {
	c, err := s.parseToken(ctx, tok)
	if err != nil {
		return nil, nil, err
	}
	sess := &hosted.Session{ID: c.ID, UserID: c.UserID, OrgID: c.OrgID, Version: c.SessionVersion,
		ExpiresAt: c.ExpiresAt.Time}
	u, err := s.svc.AuthenticateSession(ctx, *sess)
	if err != nil {
		return nil, nil, err
	}
	return sess, u, nil
}

// devPrincipal trusts the developer headers, from loopback clients only.
func (s *server) devPrincipal(r *http.Request) (*principal, error) {
	if ip := net.ParseIP(s.clientAddr(r)); ip == nil || !ip.IsLoopback() {
		return nil, papermem.Errorf(papermem.EUNAUTHORIZED, "Developer headers are accepted from loopback clients only.")
	}
	org := strings.TrimSpace(r.Header.Get(headerDevOrg))
	if !papermem.ValidWorkspaceID(org) {
		return nil, &papermem.Error{Code: papermem.EINVALID, Err: papermem.ErrWorkspaceID,
			Message: headerDevOrg + " must match ^[a-z0-9][a-z0-9_-]{2,63}$."}
	}
	return &principal{workspace: org, user: strings.TrimSpace(r.Header.Get(headerDevUser)), cred: credDev}, nil
}

// isFounder reports whether the principal's user has founder access:
// granted in the database or listed in Config.FounderEmails.
func (s *server) isFounder(ctx context.Context, p *principal) bool {
	if p == nil || p.user == "" || p.cred == credDev {
		return false
	}
	u, err := s.svc.User(ctx, p.user)
	if err != nil || u.OrgID != p.workspace {
		return false
	}
	return s.founderAccount(u)
}

// founderAccount reports whether the account u, as read from the database,
// has founder access.
func (s *server) founderAccount(u *hosted.User) bool { return u.IsFounder || s.founders[u.Email] }

// claims are the claims of a session token.
type claims struct {
	UserID string `json:"user_id"`
	OrgID  string `json:"org_id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	// SessionVersion is the user's session version at issue; absent means 0.
	SessionVersion int64 `json:"session_version"`
	jwt.RegisteredClaims
}

// issueToken signs a session token for u, valid for its workspace's TTL.
func (s *server) issueToken(ctx context.Context, u *hosted.User) (*api.TokenResponse, error) {
	secret, err := s.jwtSecret(ctx)
	if err != nil {
		return nil, err
	}
	rec, err := s.svc.Workspace(u.OrgID).Record(ctx)
	if err != nil {
		return nil, err
	}
	ttl := rec.TokenTTL()
	now := s.now()
	c := claims{UserID: u.UserID, OrgID: u.OrgID, Name: u.Name, Email: u.Email, SessionVersion: u.SessionVersion,
		RegisteredClaims: jwt.RegisteredClaims{
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			ID:        randomID(),
		}}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
	if err != nil {
		return nil, err
	}
	return &api.TokenResponse{AccessToken: tok, TokenType: "bearer", ExpiresIn: int(ttl / time.Second), User: *u}, nil
}

// parseToken verifies a session token: HS256 only, signed with our secret,
// not expired, with an id (jti). Whether its user still stands is
// hosted.Service.AuthenticateSession's business.
func (s *server) parseToken(ctx context.Context, tok string) (*claims, error) {
	secret, err := s.jwtSecret(ctx)
	if err != nil {
		return nil, err
	}
	var c claims
	_, err = jwt.ParseWithClaims(tok, &c, func(*jwt.Token) (any, error) { return secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithTimeFunc(s.now))
	if err != nil || c.UserID == "" || c.ID == "" || !papermem.ValidWorkspaceID(c.OrgID) {
		return nil, errBadToken
	}
	return &c, nil
}

// limitAuth applies the per-address limit of signup, login and password
// change.
func (s *server) limitAuth(w http.ResponseWriter, r *http.Request) error {
	return limit(w, r, s.auths, "", "addr:"+s.clientAddr(r), func() int { return s.cfg.AuthRateLimit })
}

// writeToken answers with a fresh session token for u.
func (s *server) writeToken(w http.ResponseWriter, r *http.Request, status int, u *hosted.User) error {
	tok, err := s.issueToken(r.Context(), u)
	if err != nil {
		return err
	}
	return writeJSON(w, status, tok)
}

func (s *server) handleSignup(w http.ResponseWriter, r *http.Request) error {
	if err := s.limitAuth(w, r); err != nil {
		return err
	}
	var req api.SignupRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	u, err := s.svc.Signup(r.Context(), hosted.SignupInput{
		NewUser: hosted.NewUser{Email: req.Email, Password: req.Password, Name: req.Name},
		OrgID:   req.OrgID, WorkspaceName: req.WorkspaceName})
	if err != nil {
		return err
	}
	return s.writeToken(w, r, http.StatusCreated, u)
}

func (s *server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	if err := s.limitAuth(w, r); err != nil {
		return err
	}
	var req api.LoginRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	u, err := s.svc.Login(r.Context(), req.Email, req.Password)
	if err != nil {
		return err
	}
	return s.writeToken(w, r, http.StatusOK, u)
}

func (s *server) handleMe(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	u, err := s.svc.Workspace(p.workspace).User(r.Context(), p.user)
	if err != nil {
		if papermem.ErrorCode(err) == papermem.ENOTFOUND {
			return errBadToken
		}
		return err
	}
	return writeJSON(w, http.StatusOK, api.MeResponse{User: *u, IsFounder: s.isFounder(r.Context(), p)})
}

// handleAdminMe reads an optional credential and never fails.
func (s *server) handleAdminMe(w http.ResponseWriter, r *http.Request) error {
	var res api.AdminMeResponse
	if r.Header.Get("Authorization") != "" {
		if p, err := s.authenticate(r, bearer); err == nil {
			res.IsFounder = s.isFounder(r.Context(), p)
		} else if !errors.Is(err, errNoCredential) && papermem.ErrorCode(err) == papermem.EINTERNAL {
			s.log.ErrorContext(r.Context(), "admin me: authenticate", keyErr, err)
		}
	}
	return writeJSON(w, http.StatusOK, res)
}

var (
	signupOp = op{tag: "auth", summary: "Create an account and its workspace", req: api.SignupRequest{},
		resp: api.TokenResponse{}, status: http.StatusCreated, errs: []int{http.StatusTooManyRequests},
		notes: "The new user is the workspace's owner. Duplicate email: 400 duplicate_email; invalid or existing org_id: 400 invalid_workspace; other bad input: 400 invalid_input. Limited per client address."}
	loginOp = op{tag: "auth", summary: "Exchange an email and password for a session token", req: api.LoginRequest{},
		resp: api.TokenResponse{}, errs: []int{http.StatusTooManyRequests},
		notes: "Wrong email or password: 401 with the same message either way. Limited per client address."}
	meOp = op{tag: "auth", summary: "The current user", resp: api.MeResponse{},
		notes: "Needs a session token (an API key is 401)."}
	adminMeOp = op{tag: "admin", summary: "Whether the caller has founder access", resp: api.AdminMeResponse{},
		notes: "Public: reads an optional bearer credential and never fails; anything but a valid credential of a founder account answers false."}
)

// randomID returns a random 128-bit id in hex, for token ids.
func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
