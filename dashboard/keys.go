package dashboard

import (
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// keysData is the API keys page: the keys and, right after creation, the
// new key's value, shown this once.
type keysData struct {
	Keys []papermem.APIKey
	New  *hosted.NewAPIKey
}

func (h *handler) keys(w http.ResponseWriter, r *http.Request, v *viewer) error {
	return h.renderKeys(w, r, v, nil)
}

func (h *handler) renderKeys(w http.ResponseWriter, r *http.Request, v *viewer, created *hosted.NewAPIKey) error {
	keys, err := h.m.Workspace(v.User.WorkspaceID).APIKeys(r.Context())
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created != nil {
		status = http.StatusCreated
	}
	h.render(w, r, status, "keys", &page{Title: "API keys", Nav: "keys", Viewer: v, Data: keysData{Keys: keys, New: created}})
	return nil
}

// createKey creates a key and shows its value once.
func (h *handler) createKey(w http.ResponseWriter, r *http.Request, v *viewer) error {
	k, err := h.svc.Workspace(v.User.WorkspaceID).CreateAPIKey(r.Context(), trimmed(r, "name"), hosted.CreatorUser(v.User.UserID))
	if err != nil {
		return err
	}
	return h.renderKeys(w, r, v, k)
}

// confirmRevoke asks before revoking a key.
func (h *handler) confirmRevoke(w http.ResponseWriter, r *http.Request, v *viewer) error {
	k, err := h.key(r, v)
	if err != nil {
		return err
	}
	h.render(w, r, http.StatusOK, "revoke", &page{Title: "Revoke API key", Nav: "keys", Viewer: v, Data: k})
	return nil
}

func (h *handler) revokeKey(w http.ResponseWriter, r *http.Request, v *viewer) error {
	if err := h.svc.Workspace(v.User.WorkspaceID).RevokeAPIKey(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	http.Redirect(w, r, Prefix+"keys", http.StatusSeeOther)
	return nil
}

// key finds the workspace's key named in the path.
func (h *handler) key(r *http.Request, v *viewer) (*papermem.APIKey, error) {
	keys, err := h.m.Workspace(v.User.WorkspaceID).APIKeys(r.Context())
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if keys[i].KeyID == r.PathValue("id") {
			return &keys[i], nil
		}
	}
	return nil, papermem.Errorf(papermem.ENOTFOUND, "No API key %q in this workspace.", r.PathValue("id"))
}
