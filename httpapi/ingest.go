package httpapi

import (
	"errors"
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// Upload limits beyond the file itself.
const (
	// multipartOverhead is what a multipart body may hold beyond the file:
	// boundaries, part headers and the text fields.
	multipartOverhead = 64 << 10
	// uploadMemory is how much of an upload is held in memory; the rest of
	// a larger file is spooled to a temporary file until it is ingested.
	uploadMemory = 1 << 20
)

var ingestFormatsOp = op{tag: "ingest", summary: "The file formats ingestion reads and the maximum file size",
	resp:  api.FormatsResponse{},
	notes: "Formats: markdown (.md, .markdown), text (.txt, .text, .log), csv (.csv, .tsv), json (.json), pdf (.pdf), xlsx (.xlsx), docx (.docx). max_file_bytes defaults to 25 MiB (PAPERMEM_MAX_UPLOAD_BYTES)."}

func (s *server) handleIngestFormats(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, api.FormatsResponse{Formats: papermem.IngestFormats(), MaxFileBytes: s.m.MaxIngestBytes()})
}

var ingestOp = op{tag: "ingest", summary: "Add a file to memory", req: api.IngestForm{}, reqType: "multipart/form-data",
	resp: papermem.IngestReport{}, status: http.StatusCreated, errs: []int{http.StatusUnsupportedMediaType},
	notes: "A multipart/form-data body with one part named file (with a filename) and optional text fields domain, doi and title, in any order. " +
		"A file that carries a DOI (the doi field, or one in its metadata, first page or a top-level \"doi\" field) becomes or updates the paper with that DOI: " +
		"report kind \"paper\", doc_id the DOI. Anything else becomes a document: kind \"document\", doc_id \"doc:<id>\", recalled with label Document (passages) or Claim, " +
		"provenance {kind:\"document\", source:<file name>, title, section, page (PDF), sheet and row (XLSX), row (CSV/TSV, JSON records), char_start, char_end (characters of the extracted text)}. " +
		"The report counts chars_read (characters extracted), pages, sections, rows, nodes_stored and claims_found. " +
		"An unknown extension is 415 unsupported_format; a file over max_file_bytes (GET /v1/ingest/formats) is 413 payload_too_large; " +
		"a corrupt, encrypted, truncated or empty file is 400 invalid_input with the parser's reason, as are a body that is not multipart/form-data and a missing file part. " +
		"A failed ingest stores nothing."}

func (s *server) handleIngest(w http.ResponseWriter, r *http.Request) error {
	if err := s.parseUpload(w, r); err != nil {
		return err
	}
	defer r.MultipartForm.RemoveAll()
	files := r.MultipartForm.File["file"]
	switch {
	case len(files) == 0:
		return papermem.Errorf(papermem.EINVALID, "The form needs a part named file holding the file, with its filename.")
	case len(files) > 1:
		return papermem.Errorf(papermem.EINVALID, "Send one file per request.")
	}
	f, err := files[0].Open()
	if err != nil {
		return err
	}
	defer f.Close()
	field := func(name string) string {
		if v := r.MultipartForm.Value[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	opts := papermem.IngestOptions{Domain: field("domain"), DOI: field("doi"), Title: field("title")}
	rep, err := s.workspace(r).IngestFile(r.Context(), files[0].Filename, f, opts)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, rep)
}

// parseUpload reads a multipart/form-data body holding a file of at most
// the memory's MaxIngestBytes; the caller removes r.MultipartForm's files.
func (s *server) parseUpload(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.m.MaxIngestBytes()+multipartOverhead)
	if err := r.ParseMultipartForm(uploadMemory); err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return err
		case errors.Is(err, http.ErrNotMultipart), errors.Is(err, http.ErrMissingBoundary):
			return papermem.Errorf(papermem.EINVALID, "The request body must be multipart/form-data with the file in a part named file.")
		}
		return &papermem.Error{Code: papermem.EINVALID, Message: "The multipart body could not be read.", Err: err}
	}
	return nil
}
