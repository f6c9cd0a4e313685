package httpapi

import (
	"net/http"

	"github.com/papermem/papermem/api"
)

// Ending sessions. These routes need a session token: an API key is 401.

func (s *server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Logout(r.Context(), *principalFrom(r.Context()).session); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.LogoutResponse{LoggedOut: true})
}

func (s *server) handleLogoutAll(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if err := s.svc.Workspace(p.workspace).LogoutAll(r.Context(), p.user); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.LogoutResponse{LoggedOut: true})
}

func (s *server) handleChangePassword(w http.ResponseWriter, r *http.Request) error {
	if err := s.limitAuth(w, r); err != nil {
		return err
	}
	var req api.PasswordRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	u, err := s.svc.Workspace(p.workspace).ChangePassword(r.Context(), p.user, req.CurrentPassword, req.NewPassword)
	if err != nil {
		return err
	}
	return s.writeToken(w, r, http.StatusOK, u)
}

var (
	logoutOp = op{tag: "auth", summary: "End the calling session", resp: api.LogoutResponse{},
		notes: "The token sent is refused from then on, by every server sharing the database, until it would have expired. Other sessions of the user stay. Needs a session token (an API key is 401)."}
	logoutAllOp = op{tag: "auth", summary: "End every session of the calling user", resp: api.LogoutResponse{},
		notes: "Every session token of the user issued so far, the one sent included, is refused from then on; log in again for a new one. API keys are not affected. Needs a session token."}
	passwordOp = op{tag: "auth", summary: "Change the calling user's password", req: api.PasswordRequest{},
		resp: api.TokenResponse{}, errs: []int{http.StatusForbidden},
		notes: "new_password follows the signup rule (8 to 72 bytes, else 400 invalid_input); a wrong current_password is 403 forbidden and changes nothing; a concurrent change of the same password is 400. On success every session token of the user, the one sent included, is refused from then on, and the answer carries a new one, as login does. API keys are not affected. Needs a session token; attempts are limited per client address, as login is."}
)
