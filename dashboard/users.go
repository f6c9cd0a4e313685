package dashboard

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/papermem/papermem/hosted"
)

// usersData is the users page: the workspace's users and, for a founder,
// the form adding one, shown again with its fields after an error.
type usersData struct {
	Users []hosted.UserActivity
	Form  newUserForm
	Added string // the email of the user just added, when it is one of Users
}

// newUserForm holds the fields of the form adding a user, the password
// never.
type newUserForm struct {
	Name, Email, Role string
}

func (h *handler) users(w http.ResponseWriter, r *http.Request, v *viewer) error {
	return h.renderUsers(w, r, v, http.StatusOK, "", usersData{Added: r.URL.Query().Get("added")})
}

func (h *handler) renderUsers(w http.ResponseWriter, r *http.Request, v *viewer, status int, msg string, d usersData) error {
	us, err := h.svc.Workspace(v.User.WorkspaceID).Users(r.Context())
	if err != nil {
		return err
	}
	d.Users = us
	if !slices.ContainsFunc(us, func(u hosted.UserActivity) bool { return u.Email == d.Added }) {
		d.Added = ""
	}
	if d.Form.Role == "" {
		d.Form.Role = hosted.RoleMember
	}
	h.render(w, r, status, "users", &page{Title: "Users", Nav: "users", Viewer: v, Error: msg, Data: d})
	return nil
}

// addUser creates a user in the founder's workspace with the password the
// founder chose, for them to pass on: the /v1 route is
// POST /v1/admin/workspaces/{org_id}/users. An error shows the form again.
func (h *handler) addUser(w http.ResponseWriter, r *http.Request, v *viewer) error {
	f := newUserForm{Name: trimmed(r, "name"), Email: trimmed(r, "email"), Role: trimmed(r, "role")}
	u, err := h.svc.CreateUser(r.Context(), v.User.WorkspaceID,
		hosted.NewUser{Email: f.Email, Password: r.PostFormValue("password"), Name: f.Name, Role: f.Role})
	if err != nil {
		status, msg := h.failure(r, err)
		return h.renderUsers(w, r, v, status, msg, usersData{Form: f})
	}
	http.Redirect(w, r, Prefix+"users?added="+url.QueryEscape(u.Email), http.StatusSeeOther)
	return nil
}
