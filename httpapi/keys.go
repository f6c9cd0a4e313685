package httpapi

import (
	"net/http"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
)

var createAPIKeyOp = op{tag: "account", summary: "Create an API key", req: api.CreateKeyRequest{},
	resp: hosted.NewAPIKey{}, status: http.StatusCreated,
	notes: "The body may be empty. key is the value, pm_ followed by 43 URL-safe characters, shown this once: only its SHA-256 hash is kept. The key is bound to the caller's workspace."}

func (s *server) handleCreateAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateKeyRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		return err
	}
	k, err := s.hostedWorkspace(r).CreateAPIKey(r.Context(), req.Name, principalFrom(r.Context()).creator())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, k)
}

var apiKeysOp = op{tag: "account", summary: "The workspace's API keys, without values", resp: api.ApiKeysResponse{}}

func (s *server) handleAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.workspace(r).APIKeys(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.ApiKeysResponse{APIKeys: keys})
}

var revokeAPIKeyOp = op{tag: "account", summary: "Revoke an API key", resp: api.RevokedResponse{},
	errs:  []int{http.StatusNotFound},
	notes: "The key fails with 401 from the next request on. Unknown key, or another workspace's: 404."}

func (s *server) handleRevokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathValue(r, "key_id")
	if err != nil {
		return err
	}
	if err := s.hostedWorkspace(r).RevokeAPIKey(r.Context(), id); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.RevokedResponse{Revoked: id})
}
