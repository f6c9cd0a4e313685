package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/papermem/papermem"
)

// Upload limits beyond the file itself, as on /v1/ingest.
const (
	multipartOverhead = 64 << 10 // boundaries, part headers and text fields
	uploadMemory      = 1 << 20  // held in memory; the rest is spooled to disk
)

// papersListed is how many papers, and how many documents, the memory
// page lists.
const papersListed = 50

// papersData is the memory page: the papers listed or found, the
// documents most recently ingested, and what the last upload became.
type papersData struct {
	Query     string
	Papers    []papermem.Paper
	Documents []papermem.Document
	Ingested  string // doc id of a document just ingested
	Formats   []string
	MaxBytes  int64
}

func (h *handler) papers(w http.ResponseWriter, r *http.Request, v *viewer) error {
	ws := h.m.Workspace(v.User.OrgID)
	d := papersData{Query: strings.TrimSpace(r.URL.Query().Get("q")), Ingested: r.URL.Query().Get("ingested"),
		MaxBytes: h.m.MaxIngestBytes()}
	for _, f := range papermem.IngestFormats() {
		d.Formats = append(d.Formats, f.Extensions...)
	}
	var err error
	if d.Query != "" {
		d.Papers, err = ws.RecallPapers(r.Context(), papermem.PaperRecallRequest{Query: d.Query, Limit: papersListed})
	} else {
		d.Papers, err = ws.Papers(r.Context(), papersListed)
	}
	if err != nil {
		return err
	}
	if d.Documents, err = ws.Documents(r.Context(), papersListed); err != nil {
		return err
	}
	h.render(w, r, http.StatusOK, "papers", &page{Title: "Memory", Nav: "papers", Viewer: v, Data: d})
	return nil
}

// paperData is a paper's page.
type paperData struct {
	Paper    *papermem.Paper
	Sections []papermem.PaperSection
	Analysis *papermem.Analysis
	// References and Citers are the paper's stored citation links (the
	// page never waits on the origins).
	References, Citers *papermem.CitationList
}

func (h *handler) paper(w http.ResponseWriter, r *http.Request, v *viewer) error {
	ws := h.m.Workspace(v.User.OrgID)
	doi := r.PathValue("doi")
	p, err := ws.Paper(r.Context(), doi)
	if err != nil {
		return err
	}
	d := paperData{Paper: p}
	if d.Sections, err = ws.PaperSections(r.Context(), p.DOI); err != nil {
		return err
	}
	d.Analysis, err = ws.Analysis(r.Context(), p.DOI)
	if err != nil && papermem.ErrorCode(err) != papermem.ENOTFOUND {
		return err
	}
	stored := papermem.CitationOptions{StoredOnly: true}
	if d.References, err = ws.References(r.Context(), p.DOI, stored); err != nil {
		return err
	}
	if d.Citers, err = ws.Citations(r.Context(), p.DOI, stored); err != nil {
		return err
	}
	title := p.Title
	if title == "" {
		title = p.DOI
	}
	h.render(w, r, http.StatusOK, "paper", &page{Title: title, Nav: "papers", Viewer: v, Data: d})
	return nil
}

// upload ingests the file of a multipart form (fields file, doi, title,
// domain). A paper goes to its page, a document back to the memory page.
func (h *handler) upload(w http.ResponseWriter, r *http.Request, v *viewer) error {
	if r.MultipartForm == nil {
		return papermem.Errorf(papermem.EINVALID, "The upload must be multipart/form-data with the file in a part named file.")
	}
	defer r.MultipartForm.RemoveAll()
	files := r.MultipartForm.File["file"]
	if len(files) != 1 {
		return papermem.Errorf(papermem.EINVALID, "Choose one file to upload.")
	}
	f, err := files[0].Open()
	if err != nil {
		return err
	}
	defer f.Close()
	opts := papermem.IngestOptions{Domain: trimmed(r, "domain"), DOI: trimmed(r, "doi"), Title: trimmed(r, "title")}
	rep, err := h.m.Workspace(v.User.OrgID).IngestFile(r.Context(), files[0].Filename, f, opts)
	if err != nil {
		return err
	}
	to := Prefix + "papers?ingested=" + url.QueryEscape(rep.DocID)
	if rep.Kind == papermem.KindPaper {
		to = paperPath(rep.DocID)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// parseMultipart reads an upload's form, its body capped at the largest
// file ingestion takes.
func (h *handler) parseMultipart(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, h.m.MaxIngestBytes()+multipartOverhead)
	if err := r.ParseMultipartForm(uploadMemory); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return &papermem.Error{Code: papermem.EINVALID, Message: "The upload could not be read.", Err: err}
	}
	return nil
}

// paperPath is the escaped path of a paper's page: a DOI keeps its slashes
// but not its "?" or "#".
func paperPath(doi string) string {
	return (&url.URL{Path: Prefix + "papers/" + doi}).EscapedPath()
}
