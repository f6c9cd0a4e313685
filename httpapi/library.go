package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var paperOp = op{tag: "papers", summary: "A paper's metadata", resp: api.PaperResponse{}, errs: []int{http.StatusNotFound},
	notes: "The paper's fields as stored: title, authors, year, venue (journal), oa, retracted and notices, cached (its full text is in memory), metadata (pending while the background job is to fill it from its origins, then complete or unavailable), and, for an imported paper, its tags, collections and source. A malformed DOI is 400; a DOI this workspace does not hold is 404."}

func (s *server) handlePaper(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	p, err := s.workspace(r).Paper(r.Context(), doi)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.NewPaperResponse(*p))
}

var papersOp = op{tag: "papers", summary: "List the workspace's papers, a page at a time",
	query: []param{
		{name: "tag", typ: "string", doc: "only papers with this tag (exact name)"},
		{name: "collection", typ: "string", doc: "only papers in this collection (exact name)"},
		{name: "limit", typ: "integer", doc: "papers per page, 1..100; default 20"},
		{name: "cursor", typ: "string", doc: "next_cursor of the previous page; absent for the first"},
	},
	resp:  api.PapersResponse{},
	notes: "Newest first (by when the paper was first stored). A cursor not from this listing is 400."}

func (s *server) handlePapers(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	pq := papermem.PaperQuery{Tag: q.Get("tag"), Collection: q.Get("collection"), Cursor: q.Get("cursor")}
	n, err := limitOf(r, papermem.MaxPaperLimit)
	if err != nil {
		return err
	}
	pq.Limit = n
	page, err := s.workspace(r).ListPapers(r.Context(), pq)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.NewPapersResponse(page.Papers, page.NextCursor))
}

var deleteDocumentOp = op{tag: "ingest", summary: "Remove a document and its passages from every index",
	resp: api.DeletedResponse{}, errs: []int{http.StatusNotFound},
	notes: "id is the document's doc_id (doc:12) or its number (12). Answers {deleted: \"doc:12\"}; nothing of it is recalled afterwards. An id that is not a document id is 400; a document this workspace does not hold is 404."}

func (s *server) handleDeleteDocument(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["id"]
	if err := s.workspace(r).DeleteDocument(r.Context(), id); err != nil {
		return err
	}
	doc, _ := papermem.NormalizeDocID(id) // valid: DeleteDocument parsed it
	return writeJSON(w, http.StatusOK, api.DeletedResponse{Deleted: doc})
}
