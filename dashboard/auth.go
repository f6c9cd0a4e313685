package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
)

// CookieName is the name of the cookie holding the dashboard's session.
const CookieName = "papermem_session"

// CSRFHeader carries the CSRF token of requests sent by script.
const CSRFHeader = "X-CSRF-Token"

// csrfField is the hidden form field carrying the CSRF token.
const csrfField = "csrf"

// maxFormBytes caps a form or JSON body other than an upload.
const maxFormBytes = 64 << 10

// viewer is the signed-in user of a request.
type viewer struct {
	User      *hosted.User
	Founder   bool
	Workspace string // the workspace's name, or its id when it has none
	session   hosted.Session
	csrf      string
}

var (
	errSignedOut  = papermem.Errorf(papermem.EUNAUTHORIZED, "Sign in to use the dashboard.")
	errCrossSite  = papermem.Errorf(papermem.EFORBIDDEN, "Cross-site request refused.")
	errCSRF       = papermem.Errorf(papermem.EFORBIDDEN, "Missing or invalid CSRF token; reload the page and try again.")
	errBadRequest = papermem.Errorf(papermem.EINVALID, "The form could not be read.")
)

// signedIn wraps a page needing a signed-in user: a GET without a valid
// session is sent to the login page, anything else is refused; a POST
// must pass checkCSRF.
func (h *handler) signedIn(f pageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h.viewer(r)
		if err != nil {
			if r.Method == http.MethodGet && papermem.ErrorCode(err) == papermem.EUNAUTHORIZED {
				clearCookie(w, r)
				http.Redirect(w, r, Prefix+"login", http.StatusSeeOther)
				return
			}
			h.fail(w, r, nil, err)
			return
		}
		if err := h.cfg.Server.Limit(w, r, v.User); err != nil {
			h.fail(w, r, v, err)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if isMultipart(r) {
				if err := checkOrigin(r); err != nil { // before reading the upload
					h.fail(w, r, v, err)
					return
				}
				if err := h.parseMultipart(w, r); err != nil {
					h.fail(w, r, v, err)
					return
				}
			} else {
				r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			}
			if err := checkCSRF(r, v); err != nil {
				h.fail(w, r, v, err)
				return
			}
		}
		if err := f(w, r, v); err != nil {
			h.fail(w, r, v, err)
		}
	})
}

// viewer authenticates the request's cookie.
func (h *handler) viewer(r *http.Request) (*viewer, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil, errSignedOut
	}
	sess, u, err := h.cfg.Server.Authenticate(r.Context(), c.Value)
	if err != nil {
		return nil, err
	}
	tok, err := h.csrfToken(r.Context(), sess.ID)
	if err != nil {
		return nil, err
	}
	// Founder access is read afresh, as on /v1: the session's user may be
	// remembered from before a grant.
	fresh, err := h.svc.User(r.Context(), u.UserID)
	if err != nil {
		return nil, err
	}
	ws, err := h.workspaceName(r.Context(), u.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return &viewer{User: u, Founder: h.cfg.Server.IsFounder(fresh), Workspace: ws, session: sess, csrf: tok}, nil
}

// workspaceName is the name given to workspace at signup, or its id
// when it was given none.
func (h *handler) workspaceName(ctx context.Context, workspace string) (string, error) {
	rec, err := h.svc.Workspace(workspace).Record(ctx)
	switch {
	case papermem.ErrorCode(err) == papermem.ENOTFOUND:
		return workspace, nil
	case err != nil:
		return "", err
	case rec.Name == "":
		return workspace, nil
	}
	return rec.Name, nil
}

// csrfToken is the CSRF token of a session: an HMAC of its id.
func (h *handler) csrfToken(ctx context.Context, sessionID string) (string, error) {
	key, err := h.csrfSecret(ctx)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(sessionID))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

// csrfSecret is the key of CSRF tokens, kept in the database so that
// every server sharing it agrees; read once.
func (h *handler) csrfSecret(ctx context.Context) ([]byte, error) {
	h.csrfMu.Lock()
	defer h.csrfMu.Unlock()
	if h.csrfKey == nil {
		key, err := h.svc.Secret(ctx, "dashboard-csrf")
		if err != nil {
			return nil, err
		}
		h.csrfKey = key
	}
	return h.csrfKey, nil
}

// checkCSRF refuses a state-changing request from elsewhere: it must come
// from this origin and carry the session's token.
func checkCSRF(r *http.Request, v *viewer) error {
	if err := checkOrigin(r); err != nil {
		return err
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" {
		if err := parseForm(r); err != nil {
			return err
		}
		got = r.PostFormValue(csrfField)
	}
	if !hmac.Equal([]byte(got), []byte(v.csrf)) {
		return errCSRF
	}
	return nil
}

// parseForm reads a urlencoded body; multipart bodies are read by
// parseMultipart beforehand.
func parseForm(r *http.Request) error {
	if isMultipart(r) {
		return nil
	}
	if err := r.ParseForm(); err != nil {
		return errBadRequest
	}
	return nil
}

func isMultipart(r *http.Request) bool {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return ct == "multipart/form-data"
}

// crossOrigin is net/http's CSRF check: a request the browser marks
// cross-site (Sec-Fetch-Site), or whose Origin names another host than
// the request's, is refused. It compares hosts, not schemes, so that a
// server behind a proxy that ends TLS accepts its own https pages' posts.
var crossOrigin = http.NewCrossOriginProtection()

// checkOrigin refuses a request from another origin (crossOrigin).
// Browsers send Origin, and Sec-Fetch-Site, on every POST.
func checkOrigin(r *http.Request) error {
	if crossOrigin.Check(r) != nil {
		return errCrossSite
	}
	return nil
}

// overTLS reports whether the browser reached the server over TLS: its own,
// or a proxy's that says so in X-Forwarded-Proto.
func overTLS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// setCookie stores the session token in the cookie.
func setCookie(w http.ResponseWriter, r *http.Request, token string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: token, Path: Prefix, MaxAge: int(ttl / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: overTLS(r)})
}

// clearCookie removes the cookie.
func clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: Prefix, MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: overTLS(r)})
}

// credentials are the fields of the login and signup forms.
type credentials struct {
	Email         string `json:"email"`
	Password      string `json:"password"`
	Name          string `json:"name"`
	WorkspaceName string `json:"workspace_name"`
}

// readCredentials reads a urlencoded form or a JSON object.
func readCredentials(w http.ResponseWriter, r *http.Request) (credentials, bool, error) {
	var c credentials
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if isJSON(r) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return c, true, errBadRequest
		}
		if err := json.Unmarshal(body, &c); err != nil {
			return c, true, papermem.Errorf(papermem.EINVALID, "The body must be a JSON object with email and password.")
		}
		return c, true, nil
	}
	if err := r.ParseForm(); err != nil {
		return c, false, errBadRequest
	}
	c = credentials{Email: r.PostFormValue("email"), Password: r.PostFormValue("password"),
		Name: r.PostFormValue("name"), WorkspaceName: r.PostFormValue("workspace_name")}
	return c, false, nil
}

func isJSON(r *http.Request) bool {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return ct == "application/json"
}

func (h *handler) loginPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "login", &page{Title: "Log in", Data: credentials{}})
}

func (h *handler) signupPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "signup", &page{Title: "Sign up", Data: credentials{}})
}

// login checks the email and password and sets the session cookie: a form
// is redirected to the overview, JSON answers {"user": …}.
func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	h.signIn(w, r, "login", func(ctx context.Context, c credentials) (*hosted.User, error) {
		return h.svc.Login(ctx, c.Email, c.Password)
	})
}

// signup creates an account and its workspace and signs it in.
func (h *handler) signup(w http.ResponseWriter, r *http.Request) {
	h.signIn(w, r, "signup", func(ctx context.Context, c credentials) (*hosted.User, error) {
		return h.svc.Signup(ctx, hosted.SignupInput{
			NewUser:       hosted.NewUser{Email: c.Email, Password: c.Password, Name: c.Name},
			WorkspaceName: c.WorkspaceName})
	})
}

// signIn runs the origin check and the attempt limit, then find, and sets
// the cookie for the user found. A failed form is shown again with the
// error.
func (h *handler) signIn(w http.ResponseWriter, r *http.Request, form string,
	find func(context.Context, credentials) (*hosted.User, error)) {
	var c credentials
	asJSON := isJSON(r)
	u, err := func() (*hosted.User, error) {
		if err := checkOrigin(r); err != nil {
			return nil, err
		}
		if err := h.cfg.Server.LimitAuth(w, r); err != nil {
			return nil, err
		}
		var err error
		if c, asJSON, err = readCredentials(w, r); err != nil {
			return nil, err
		}
		return find(r.Context(), c)
	}()
	if err == nil {
		var tok string
		var ttl time.Duration
		if tok, ttl, err = h.cfg.Server.Issue(r.Context(), u); err == nil {
			setCookie(w, r, tok, ttl)
			if asJSON {
				writeJSON(w, http.StatusOK, map[string]any{"user": u})
			} else {
				http.Redirect(w, r, Prefix, http.StatusSeeOther)
			}
			return
		}
	}
	status := h.cfg.Status(err)
	msg := papermem.ErrorMessage(err)
	if status >= 500 {
		h.log.ErrorContext(r.Context(), "dashboard sign in failed", "err", err)
		msg = "Internal error."
	}
	if asJSON {
		writeJSON(w, status, map[string]any{"error": map[string]string{"code": api.Code(err), "message": msg}})
		return
	}
	c.Password = "" // never shown again
	title := "Log in"
	if form == "signup" {
		title = "Sign up"
	}
	h.render(w, r, status, form, &page{Title: title, Error: msg, Data: c})
}

// logout ends the session and clears the cookie.
func (h *handler) logout(w http.ResponseWriter, r *http.Request, v *viewer) error {
	if err := h.svc.Logout(r.Context(), v.session); err != nil {
		return err
	}
	clearCookie(w, r)
	http.Redirect(w, r, Prefix+"login", http.StatusSeeOther)
	return nil
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// trimmed is a form value without surrounding space.
func trimmed(r *http.Request, name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
