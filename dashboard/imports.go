package dashboard

import (
	"io"
	"net/http"
	"strconv"

	"github.com/papermem/papermem"
)

// importsListed is how many imports the imports page lists.
const importsListed = 20

// importsData is the imports page: the workspace's imports and their
// progress, and the one just started.
type importsData struct {
	Imports []papermem.Import
	Started int64
	Running bool // an import is running: the page refreshes itself
}

func (h *handler) imports(w http.ResponseWriter, r *http.Request, v *viewer) error {
	ims, err := h.m.Workspace(v.User.WorkspaceID).Imports(r.Context(), importsListed)
	if err != nil {
		return err
	}
	d := importsData{Imports: ims}
	d.Started, _ = strconv.ParseInt(r.URL.Query().Get("started"), 10, 64)
	for _, im := range ims {
		d.Running = d.Running || im.Status == papermem.ImportRunning
	}
	h.render(w, r, http.StatusOK, "imports", &page{Title: "Imports", Nav: "imports", Viewer: v, Data: d})
	return nil
}

// startImport starts an import: of the uploaded export file (part file),
// or of the Zotero library the form names (fields library and api_key).
func (h *handler) startImport(w http.ResponseWriter, r *http.Request, v *viewer) error {
	req := papermem.ImportRequest{Source: papermem.ImportZotero, Library: trimmed(r, "library"), APIKey: trimmed(r, "api_key")}
	if r.MultipartForm != nil {
		defer r.MultipartForm.RemoveAll()
		files := r.MultipartForm.File["file"]
		if len(files) != 1 {
			return papermem.Errorf(papermem.EINVALID, "Choose one export file to import.")
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
	}
	im, err := h.m.Workspace(v.User.WorkspaceID).StartImport(r.Context(), req)
	if err != nil {
		return err
	}
	http.Redirect(w, r, Prefix+"imports?started="+strconv.FormatInt(im.ID, 10), http.StatusSeeOther)
	return nil
}
