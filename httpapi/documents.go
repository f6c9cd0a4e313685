package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var documentsOp = op{tag: "ingest", summary: "The workspace's documents",
	query: []param{{name: "limit", typ: "integer", doc: "most documents listed, 1..100; default 20"}},
	resp:  api.DocumentsResponse{},
	notes: "The files ingested as documents (POST /v1/ingest of a file that is not a paper's full text), most recently ingested first: doc_id (the report's), name, title, format, domain, bytes and created_at. Papers are listed by GET /v1/papers/recall."}

func (s *server) handleDocuments(w http.ResponseWriter, r *http.Request) error {
	limit, err := limitOf(r, papermem.MaxPaperLimit)
	if err != nil {
		return err
	}
	docs, err := s.workspace(r).Documents(r.Context(), limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.DocumentsResponse{Documents: docs, Count: len(docs)})
}
