package httpapi

import (
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var startImportOp = op{tag: "imports", summary: "Start importing a Zotero library or an export file",
	req: api.ImportRequest{}, resp: papermem.Import{}, status: http.StatusAccepted,
	notes: "A JSON body {source:\"zotero\", library:\"users/4242\" or \"groups/17\", api_key} imports the library from the Zotero web API (PAPERMEM_ZOTERO_URL, default https://api.zotero.org); " +
		"a multipart/form-data body with a part named file (and an optional source field) imports an export file: BibTeX (.bib; Zotero's and Better BibTeX's), RIS (.ris), CSL-JSON (.json) or a CSV manifest (.csv: file,doi,title[,tags]). " +
		"An uploaded export has no files beside it: its entries become papers, and the PDFs it names are not read (import the export with its files/ folder from the CLI, papermem import FILE). " +
		"The answer is 202 with the import (import_id, status running); the import runs in the background: GET /v1/imports/{id} reports its progress. " +
		"Each regular item becomes a paper (its DOI, else a stable local:<hash> id from its title) with title, authors, year, venue (journal), abstract, tags, collections (their names) and source; notes and attachments are not papers; each PDF attachment becomes the paper's full text, recalled with the paper's DOI in every span's provenance. " +
		"The Zotero library's version is kept per workspace and library: the next import of it reads only what changed since (since=, If-Modified-Since-Version; nothing when the library is unchanged), updates edited items in place and removes the papers of items deleted there (only papers imported from that library). " +
		"Requests to Zotero: at most four of an import in flight, Backoff (for every request of the import) and Retry-After (429, 503) honoured. " +
		"The key is checked before the answer: Zotero refusing it (or not knowing the library) is 400 invalid_input and records nothing; Zotero unreachable is 502. A file that does not parse is 400 with the line at fault; an unknown source or extension 415. " +
		"Re-importing the same export changes nothing (hashes of each entry's metadata and files): its entries count as skipped."}

func (s *server) handleStartImport(w http.ResponseWriter, r *http.Request) error {
	var req papermem.ImportRequest
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		if err := s.parseUpload(w, r); err != nil {
			return err
		}
		defer r.MultipartForm.RemoveAll()
		files := r.MultipartForm.File["file"]
		if len(files) != 1 {
			return papermem.Errorf(papermem.EINVALID, "The form needs one part named file holding the export, with its filename.")
		}
		f, err := files[0].Open()
		if err != nil {
			return err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		req = papermem.ImportRequest{Name: files[0].Filename, Data: data}
		if v := r.MultipartForm.Value["source"]; len(v) > 0 {
			req.Source = v[0]
		}
	} else {
		var body api.ImportRequest
		if err := s.decode(w, r, &body); err != nil {
			return err
		}
		if body.Source != papermem.ImportZotero {
			return papermem.Errorf(papermem.EINVALID, "source must be \"zotero\" in a JSON body; upload export files as multipart/form-data (Zotero desktop's local API is the CLI's: papermem import zotero --local).")
		}
		req = papermem.ImportRequest{Source: body.Source, Library: body.Library, APIKey: body.APIKey}
	}
	im, err := s.workspace(r).StartImport(r.Context(), req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, im)
}

var importOp = op{tag: "imports", summary: "An import's progress", resp: papermem.Import{}, errs: []int{http.StatusNotFound},
	notes: "status is running, done or failed (message says why). total is the items to read when known; items the items read (regular items, notes and attachments); papers the papers stored or updated; documents the files ingested as papers' full texts; deleted the papers removed because their items were deleted in Zotero; skipped the items read but not stored (notes, attachments, unchanged items); errors the items that could not be stored (at most 100), each {item, code, message}. An import of another workspace is 404."}

func (s *server) handleImport(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || id < 1 {
		return papermem.Errorf(papermem.EINVALID, "The import id must be a positive integer.")
	}
	im, err := s.workspace(r).Import(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, im)
}

var importsOp = op{tag: "imports", summary: "The workspace's imports",
	query: []param{{name: "limit", typ: "integer", doc: "most imports listed, 1..100; default 20"}},
	resp:  api.ImportsResponse{}, notes: "Newest first, each as GET /v1/imports/{id} reports it."}

func (s *server) handleImports(w http.ResponseWriter, r *http.Request) error {
	limit, err := limitOf(r, papermem.MaxPaperLimit)
	if err != nil {
		return err
	}
	ims, err := s.workspace(r).Imports(r.Context(), limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.ImportsResponse{Imports: ims})
}
