package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
)

// usersResponse lists the workspace's users.
type usersResponse struct {
	Users   []papermem.UserActivity `json:"users"`
	Count   int                     `json:"count"`
	Current *string                 `json:"current" doc:"the caller's user_id; null for an API key without X-User-Id"`
}

var usersOp = op{tag: "users and workspaces", summary: "The workspace's users with their activity", resp: usersResponse{},
	notes: "Each user with sessions, domains (of their memories), first_seen and last_seen. Never a password hash."}

func (s *server) handleUsers(w http.ResponseWriter, r *http.Request) error {
	users, err := s.workspace(r).Users(r.Context())
	if err != nil {
		return err
	}
	res := usersResponse{Users: users, Count: len(users)}
	if u := principalFrom(r.Context()).user; u != "" {
		res.Current = &u
	}
	return writeJSON(w, http.StatusOK, res)
}

// workspacesResponse lists workspaces.
type workspacesResponse struct {
	Workspaces []papermem.WorkspaceRecord `json:"workspaces"`
	Current    string                     `json:"current" doc:"the credential's org_id"`
}

var workspacesOp = op{tag: "users and workspaces", summary: "The current workspace and those the caller created",
	resp:  workspacesResponse{},
	notes: "The current workspace comes first and is registered on read when missing. Workspaces created by the caller (their user, or any credential of the current workspace) follow, oldest first."}

func (s *server) handleWorkspaces(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	list, err := s.m.Workspaces(r.Context(), p.org, p.creators()...)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, workspacesResponse{Workspaces: list, Current: p.org})
}

// createWorkspaceRequest creates a workspace.
type createWorkspaceRequest struct {
	OrgID string `json:"org_id" required:"true" doc:"^[a-z0-9][a-z0-9_-]{2,63}$; invalid or taken is 400 invalid_workspace"`
	Name  string `json:"name" doc:"display name; default empty"`
}

// createdWorkspace is a new workspace with its first API key.
type createdWorkspace struct {
	papermem.WorkspaceRecord
	APIKey *papermem.NewAPIKey `json:"api_key" doc:"the new workspace's first key; key is its value, shown this once"`
}

var createWorkspaceOp = op{tag: "users and workspaces", summary: "Create a workspace", req: createWorkspaceRequest{},
	resp: createdWorkspace{}, status: http.StatusCreated,
	notes: "The workspace starts on Starter Tier with one API key, the creator's way in; the caller's own credential stays bound to its own workspace."}

func (s *server) handleCreateWorkspace(w http.ResponseWriter, r *http.Request) error {
	var req createWorkspaceRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	rec, key, err := s.m.CreateWorkspace(r.Context(), req.OrgID, req.Name, principalFrom(r.Context()).creator())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, createdWorkspace{WorkspaceRecord: *rec, APIKey: key})
}
