package httpapi

import (
	"net/http"

	"github.com/papermem/papermem/api"
)

var usersOp = op{tag: "users and workspaces", summary: "The workspace's users with their activity", resp: api.UsersResponse{},
	notes: "Each user with sessions, domains (of their memories), first_seen and last_seen. Never a password hash."}

func (s *server) handleUsers(w http.ResponseWriter, r *http.Request) error {
	users, err := s.hostedWorkspace(r).Users(r.Context())
	if err != nil {
		return err
	}
	res := api.UsersResponse{Users: users, Count: len(users)}
	if u := principalFrom(r.Context()).user; u != "" {
		res.Current = &u
	}
	return writeJSON(w, http.StatusOK, res)
}

var workspacesOp = op{tag: "users and workspaces", summary: "The current workspace and those the caller created",
	resp:  api.WorkspacesResponse{},
	notes: "The current workspace comes first and is registered on read when missing. Workspaces created by the caller (their user, or any credential of the current workspace) follow, oldest first."}

func (s *server) handleWorkspaces(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	list, err := s.svc.Workspaces(r.Context(), p.workspace, p.creators()...)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.WorkspacesResponse{Workspaces: list, Current: p.workspace})
}

var createWorkspaceOp = op{tag: "users and workspaces", summary: "Create a workspace", req: api.CreateWorkspaceRequest{},
	resp: api.CreatedWorkspace{}, status: http.StatusCreated,
	notes: "The workspace starts on Starter Tier with one API key, the creator's way in; the caller's own credential stays bound to its own workspace."}

func (s *server) handleCreateWorkspace(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateWorkspaceRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	rec, key, err := s.svc.CreateWorkspace(r.Context(), req.WorkspaceID, req.Name, principalFrom(r.Context()).creator())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, api.CreatedWorkspace{WorkspaceRecord: *rec, APIKey: key})
}
