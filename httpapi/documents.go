package httpapi

import (
	"net/http"
	"strconv"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var documentsOp = op{tag: "ingest", summary: "The workspace's documents",
	query: []param{{name: "limit", typ: "integer", doc: "most documents listed, 1..100; default 20"}},
	resp:  api.DocumentsResponse{},
	notes: "The files ingested as documents (POST /v1/ingest of a file that is not a paper's full text), most recently ingested first: doc_id (the report's), name, title, format, domain, bytes and created_at. Papers are listed by GET /v1/papers/recall."}

func (s *server) handleDocuments(w http.ResponseWriter, r *http.Request) error {
	limit := 0
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > papermem.MaxPaperLimit {
			return papermem.Errorf(papermem.EINVALID, "limit must be an integer between 1 and %d.", papermem.MaxPaperLimit)
		}
		limit = n
	}
	docs, err := s.workspace(r).Documents(r.Context(), limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.DocumentsResponse{Documents: docs, Count: len(docs)})
}
