package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// The library tools: papers and documents as resources, and imports of a
// Zotero library or an export file.

// addLibraryTools registers the library tools on s.
func addLibraryTools(s *mcp.Server, t *tools) {
	addTool(s, t, "get_paper", getPaperDoc, reads, t.getPaper)
	addTool(s, t, "list_papers", listPapersDoc, reads, t.listPapers)
	addTool(s, t, "delete_paper", deletePaperDoc, replaces, t.deletePaper)
	addTool(s, t, "delete_document", deleteDocumentDoc, replaces, t.deleteDocument)
	addTool(s, t, "import_library", importLibraryDoc, imports, t.importLibrary)
	addTool(s, t, "import_status", importStatusDoc, reads, t.importStatus)
}

// imports reads a library elsewhere and adds or updates papers.
var imports = hints(false, true, true, true)

const (
	getPaperDoc       = "Read a paper's metadata by DOI: title, authors, year, venue, open access, retraction, and for an imported paper its tags, collections and source library."
	listPapersDoc     = "List the workspace's papers, newest first, a page at a time; filter by tag or collection (exact names, as imported). Pass next_cursor back as cursor for the next page."
	deletePaperDoc    = "Delete a paper by DOI with its passages, claims and analysis. It cannot be undone."
	deleteDocumentDoc = "Delete an ingested document by its doc_id (doc:12) with its passages. It cannot be undone."
	importLibraryDoc  = "Import a researcher's library: a Zotero library (source zotero, library users/<id> or groups/<id>, api_key; zotero-local for Zotero desktop on the user's machine, when this server runs there), or an export file given as content_base64 with its name (.bib BibTeX, .ris, .json CSL-JSON, .csv manifest file,doi,title). " +
		"Every regular item becomes a paper with its tags and collections; a Zotero item's PDF becomes its full text, recalled with its DOI. Importing the same library again reads only what changed and removes the papers deleted there. " +
		"The import runs in the background: follow it with import_status."
	importStatusDoc = "The progress of an import by import_id (status running, done or failed; items, papers, documents, deleted, skipped, errors), or, without import_id, the workspace's recent imports."
)

type (
	listPapersInput struct {
		Tag        string `json:"tag,omitempty" doc:"only papers with this tag"`
		Collection string `json:"collection,omitempty" doc:"only papers in this collection"`
		Limit      int    `json:"limit,omitempty" doc:"papers per page, 1..100; 0 or absent means 20"`
		Cursor     string `json:"cursor,omitempty" doc:"next_cursor of the previous page"`
	}
	documentInput struct {
		ID string `json:"doc_id" required:"true" doc:"the document's doc_id, e.g. doc:12"`
	}
	importInput struct {
		Source        string `json:"source,omitempty" doc:"zotero for a Zotero library; for an export file its format (bibtex, ris, csl-json, manifest), absent meaning the name's extension"`
		Library       string `json:"library,omitempty" doc:"the Zotero library: users/<id> or groups/<id>"`
		APIKey        string `json:"api_key,omitempty" doc:"a Zotero API key that may read the library; sent to Zotero only, never stored"`
		Name          string `json:"name,omitempty" doc:"the export file's name, e.g. My Library.bib"`
		ContentBase64 string `json:"content_base64,omitempty" doc:"the export file's bytes in standard base64; its attached files are not read"`
	}
	importStatusInput struct {
		ID int64 `json:"import_id,omitempty" doc:"the import's id, as import_library answered it; absent lists the recent imports"`
	}
	importsOutput struct {
		Imports []papermem.Import `json:"imports"`
	}
)

func (t *tools) getPaper(ctx context.Context, in doiInput) (*api.PaperResponse, string, error) {
	p, err := t.b.Paper(ctx, in.DOI)
	if err != nil {
		return nil, "", err
	}
	return p, renderPaper(p), nil
}

func (t *tools) listPapers(ctx context.Context, in listPapersInput) (*api.PapersResponse, string, error) {
	page, err := t.b.Papers(ctx, papermem.PaperQuery{Tag: in.Tag, Collection: in.Collection, Limit: in.Limit, Cursor: in.Cursor})
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s.\n", count(len(page.Papers), "paper"))
	for i := range page.Papers {
		b.WriteString(renderPaper(&page.Papers[i]))
	}
	if page.NextCursor != "" {
		fmt.Fprintf(&b, "More: cursor %s.\n", page.NextCursor)
	}
	return page, b.String(), nil
}

func (t *tools) deletePaper(ctx context.Context, in doiInput) (*api.DeletedResponse, string, error) {
	d, err := t.b.DeletePaper(ctx, in.DOI)
	if err != nil {
		return nil, "", err
	}
	return d, fmt.Sprintf("Deleted paper doi:%s.", d.Deleted), nil
}

func (t *tools) deleteDocument(ctx context.Context, in documentInput) (*api.DeletedResponse, string, error) {
	d, err := t.b.DeleteDocument(ctx, in.ID)
	if err != nil {
		return nil, "", err
	}
	return d, fmt.Sprintf("Deleted document %s.", d.Deleted), nil
}

func (t *tools) importLibrary(ctx context.Context, in importInput) (*papermem.Import, string, error) {
	var im *papermem.Import
	var err error
	if in.Source == papermem.ImportZoteroLocal && !t.opts.Files {
		// The local API is the machine's own Zotero: only a server the
		// user launched on their machine may read it.
		return nil, "", papermem.Errorf(papermem.EINVALID, "source zotero-local reads Zotero desktop on this machine: only papermem mcp run by the user may.")
	}
	if in.ContentBase64 != "" {
		data, derr := decodeContent(in.ContentBase64)
		if derr != nil {
			return nil, "", derr
		}
		im, err = t.b.ImportFile(ctx, in.Name, bytes.NewReader(data), in.Source)
	} else {
		im, err = t.b.StartImport(ctx, api.ImportRequest{Source: in.Source, Library: in.Library, APIKey: in.APIKey})
	}
	if err != nil {
		return nil, "", err
	}
	return im, fmt.Sprintf("Import %d of %s %s started: follow it with import_status.", im.ID, im.Source, im.Library), nil
}

func (t *tools) importStatus(ctx context.Context, in importStatusInput) (*importsOutput, string, error) {
	var out importsOutput
	if in.ID != 0 {
		im, err := t.b.ImportStatus(ctx, in.ID)
		if err != nil {
			return nil, "", err
		}
		out.Imports = []papermem.Import{*im}
	} else {
		list, err := t.b.Imports(ctx, 0)
		if err != nil {
			return nil, "", err
		}
		out.Imports = list.Imports
	}
	var b strings.Builder
	for _, im := range out.Imports {
		fmt.Fprintf(&b, "Import %d of %s %s: %s; %s read, %s, %s, %d deleted, %d skipped, %s.\n",
			im.ID, im.Source, im.Library, im.Status, count(im.Items, "item"), count(im.Papers, "paper"), count(im.Documents, "file"),
			im.Deleted, im.Skipped, count(len(im.Errors), "error"))
		if im.Message != "" {
			fmt.Fprintf(&b, "  %s\n", im.Message)
		}
	}
	if len(out.Imports) == 0 {
		b.WriteString("No imports.\n")
	}
	return &out, b.String(), nil
}

// renderPaper is a paper's metadata in a line or two.
func renderPaper(p *api.PaperResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "doi:%s — %s", p.DOI, p.Title)
	if p.Year != 0 {
		fmt.Fprintf(&b, " (%d)", p.Year)
	}
	if p.Venue != "" {
		fmt.Fprintf(&b, ", %s", p.Venue)
	}
	if len(p.Authors) > 0 {
		fmt.Fprintf(&b, "; %s", strings.Join(p.Authors, ", "))
	}
	if p.Retracted {
		b.WriteString("; RETRACTED")
	}
	if len(p.Tags) > 0 {
		fmt.Fprintf(&b, "; tags: %s", strings.Join(p.Tags, ", "))
	}
	if len(p.Collections) > 0 {
		fmt.Fprintf(&b, "; collections: %s", strings.Join(p.Collections, ", "))
	}
	b.WriteString("\n")
	return b.String()
}

// Local's library methods.

func (l *local) Paper(ctx context.Context, doi string) (*api.PaperResponse, error) {
	p, err := l.ws.Paper(ctx, doi)
	if err != nil {
		return nil, err
	}
	r := api.NewPaperResponse(*p)
	return &r, nil
}

func (l *local) Papers(ctx context.Context, q papermem.PaperQuery) (*api.PapersResponse, error) {
	page, err := l.ws.ListPapers(ctx, q)
	if err != nil {
		return nil, err
	}
	out := api.NewPapersResponse(page.Papers, page.NextCursor)
	return &out, nil
}

func (l *local) DeletePaper(ctx context.Context, doi string) (*api.DeletedResponse, error) {
	if err := l.ws.DeletePaper(ctx, doi); err != nil {
		return nil, err
	}
	return &api.DeletedResponse{Deleted: papermem.NormalizeDOI(doi)}, nil
}

func (l *local) DeleteDocument(ctx context.Context, id string) (*api.DeletedResponse, error) {
	if err := l.ws.DeleteDocument(ctx, id); err != nil {
		return nil, err
	}
	doc, _ := papermem.NormalizeDocID(id) // valid: DeleteDocument parsed it
	return &api.DeletedResponse{Deleted: doc}, nil
}

func (l *local) StartImport(ctx context.Context, req api.ImportRequest) (*papermem.Import, error) {
	return l.ws.StartImport(ctx, papermem.ImportRequest{Source: req.Source, Library: req.Library, APIKey: req.APIKey})
}

func (l *local) ImportFile(ctx context.Context, name string, r io.Reader, source string) (*papermem.Import, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return l.ws.StartImport(ctx, papermem.ImportRequest{Source: source, Name: name, Data: data})
}

func (l *local) ImportStatus(ctx context.Context, id int64) (*papermem.Import, error) {
	return l.ws.Import(ctx, id)
}

func (l *local) Imports(ctx context.Context, limit int) (*api.ImportsResponse, error) {
	ims, err := l.ws.Imports(ctx, limit)
	if err != nil {
		return nil, err
	}
	return &api.ImportsResponse{Imports: ims}, nil
}
