package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var rememberOp = op{tag: "user memory", summary: "Remember something for the current user", req: api.RememberRequest{},
	resp: papermem.Remembered{}, notes: "Needs a user id (session token, or X-User-Id with an API key): 400 missing_user_id otherwise. Memories are visible to their user only."}

func (s *server) handleRemember(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	var req api.RememberRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	res, err := s.workspace(r).Remember(r.Context(), user, req.Input())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

var recallUserOp = op{tag: "user memory", summary: "Recall the current user's memories", req: api.UserRecallRequest{},
	resp: papermem.RecallResult{}, notes: "Searches only the current user's memories. Needs a user id: 400 missing_user_id otherwise. " + scoreNote + limitNote}

func (s *server) handleRecallUser(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	var req api.UserRecallRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	in, err := req.Input()
	if err != nil {
		return err
	}
	res, err := s.workspace(r).RecallUser(r.Context(), user, in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

var forgetOp = op{tag: "user memory", summary: "Forget one of the current user's memories", resp: api.DeletedResponse{},
	errs:  []int{http.StatusNotFound},
	notes: "Answers {deleted: <key>}; 404 when the user has no memory with the key. Needs a user id."}

func (s *server) handleForget(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	key, err := pathValue(r, "key")
	if err != nil {
		return err
	}
	if err := s.workspace(r).Forget(r.Context(), user, key); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.DeletedResponse{Deleted: key})
}
