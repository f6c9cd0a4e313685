package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
)

// rememberRequest is something the user wants remembered.
type rememberRequest struct {
	Text       string         `json:"text" required:"true" doc:"what to remember, at most 64 KiB"`
	Key        string         `json:"key" doc:"the memory's key; the same key updates in place. Default: derived from the text"`
	Tags       []string       `json:"tags" doc:"free labels"`
	Domain     string         `json:"domain" doc:"topic area"`
	OccurredAt string         `json:"occurred_at" doc:"ISO-8601 date or time of the event"`
	Metadata   map[string]any `json:"metadata" doc:"free JSON object, returned in provenance; metadata.session (string or number) and metadata.seq (number) place the memory in a conversation, so that recall can bring the turns around a hit"`
}

var rememberOp = op{tag: "user memory", summary: "Remember something for the current user", req: rememberRequest{},
	resp: papermem.Remembered{}, notes: "Needs a user id (session token, or X-User-Id with an API key): 400 missing_user_id otherwise. Memories are visible to their user only."}

func (s *server) handleRemember(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	var req rememberRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	res, err := s.workspace(r).Remember(r.Context(), user, papermem.MemoryInput{Text: req.Text, Key: req.Key,
		Tags: req.Tags, Domain: req.Domain, OccurredAt: req.OccurredAt, Metadata: req.Metadata})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// userRecallRequest asks for the user's memories that answer a question.
type userRecallRequest struct {
	Question     string   `json:"question" required:"true"`
	Keywords     []string `json:"keywords"`
	BudgetTokens *int     `json:"budget_tokens" doc:"1..200000; null or absent means 8000"`
}

var recallUserOp = op{tag: "user memory", summary: "Recall the current user's memories", req: userRecallRequest{},
	resp: papermem.RecallResult{}, notes: "Searches only the current user's memories. Needs a user id: 400 missing_user_id otherwise."}

func (s *server) handleRecallUser(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	var req userRecallRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	in := papermem.UserRecallRequest{Question: req.Question, Keywords: req.Keywords}
	if req.BudgetTokens != nil {
		if *req.BudgetTokens < 1 {
			return papermem.Errorf(papermem.EINVALID, "budget_tokens must be between 1 and %d.", papermem.MaxBudgetTokens)
		}
		in.BudgetTokens = *req.BudgetTokens
	}
	res, err := s.workspace(r).RecallUser(r.Context(), user, in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

var forgetOp = op{tag: "user memory", summary: "Forget one of the current user's memories", resp: deletedResponse{},
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
	return writeJSON(w, http.StatusOK, deletedResponse{Deleted: key})
}
