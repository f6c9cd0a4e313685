package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
)

// createKeyRequest names a new API key.
type createKeyRequest struct {
	Name string `json:"name" doc:"label of the key, at most 100 characters; default \"default\""`
}

var createAPIKeyOp = op{tag: "account", summary: "Create an API key", req: createKeyRequest{},
	resp: papermem.NewAPIKey{}, status: http.StatusCreated,
	notes: "The body may be empty. key is the value, pm_ followed by 43 URL-safe characters, shown this once: only its SHA-256 hash is kept. The key is bound to the caller's workspace."}

func (s *server) handleCreateAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req createKeyRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		return err
	}
	k, err := s.workspace(r).CreateAPIKey(r.Context(), req.Name, principalFrom(r.Context()).creator())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, k)
}

// apiKeysResponse lists the workspace's keys.
type apiKeysResponse struct {
	APIKeys []papermem.APIKey `json:"api_keys"`
}

var apiKeysOp = op{tag: "account", summary: "The workspace's API keys, without values", resp: apiKeysResponse{}}

func (s *server) handleAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.workspace(r).APIKeys(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, apiKeysResponse{APIKeys: keys})
}

// revokedResponse names the revoked key.
type revokedResponse struct {
	Revoked string `json:"revoked"`
}

var revokeAPIKeyOp = op{tag: "account", summary: "Revoke an API key", resp: revokedResponse{},
	errs:  []int{http.StatusNotFound},
	notes: "The key fails with 401 from the next request on. Unknown key, or another workspace's: 404."}

func (s *server) handleRevokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathValue(r, "key_id")
	if err != nil {
		return err
	}
	if err := s.workspace(r).RevokeAPIKey(r.Context(), id); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, revokedResponse{Revoked: id})
}
