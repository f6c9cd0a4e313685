package dashboard

import "net/http"

func (h *handler) users(w http.ResponseWriter, r *http.Request, v *viewer) error {
	us, err := h.m.Workspace(v.User.OrgID).Users(r.Context())
	if err != nil {
		return err
	}
	h.render(w, r, http.StatusOK, "users", &page{Title: "Users", Nav: "users", Viewer: v, Data: us})
	return nil
}
