package mcpserver_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

func TestLibraryTools(t *testing.T) {
	overTransports(t, func(t *testing.T, cs *mcp.ClientSession) {
		bib := "@article{k1, title = {Fjord circulation survey}, doi = {10.1000/fjord}, year = {2019}, journal = {Ocean Letters}, keywords = {fjords, tides}}\n" +
			"@book{k2, title = {Tidal glaciers}, keywords = {tides}}\n"
		im, _ := ok[papermem.Import](t, cs, "import_library", map[string]any{"name": "lib.bib", "content_base64": base64.StdEncoding.EncodeToString([]byte(bib))})
		var done papermem.Import
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			st, _ := ok[struct{ Imports []papermem.Import }](t, cs, "import_status", map[string]any{"import_id": im.ID})
			if done = st.Imports[0]; done.Status != papermem.ImportRunning {
				break
			}
		}
		if done.Status != papermem.ImportDone || done.Papers != 2 {
			t.Fatalf("import %+v", done)
		}
		p, txt := ok[api.PaperResponse](t, cs, "get_paper", map[string]any{"doi": "10.1000/fjord"})
		if p.Title != "Fjord circulation survey" || p.Venue != "Ocean Letters" || len(p.Tags) != 2 || p.Source != "bibtex:lib.bib" {
			t.Errorf("get_paper %+v, %q", p, txt)
		}
		page, _ := ok[api.PapersResponse](t, cs, "list_papers", map[string]any{"tag": "tides", "limit": 1})
		if len(page.Papers) != 1 || page.NextCursor == "" {
			t.Errorf("list_papers page 1: %+v", page)
		}
		page, _ = ok[api.PapersResponse](t, cs, "list_papers", map[string]any{"tag": "tides", "limit": 1, "cursor": page.NextCursor})
		if len(page.Papers) != 1 || page.NextCursor != "" {
			t.Errorf("list_papers page 2: %+v", page)
		}
		d, _ := ok[api.DeletedResponse](t, cs, "delete_paper", map[string]any{"doi": "10.1000/fjord"})
		if d.Deleted != "10.1000/fjord" {
			t.Errorf("delete_paper %+v", d)
		}
		fails(t, cs, "get_paper", map[string]any{"doi": "10.1000/fjord"}, api.CodeNotFound)
		fails(t, cs, "delete_document", map[string]any{"doc_id": "doc:999999"}, api.CodeNotFound)
		fails(t, cs, "import_library", map[string]any{"source": "zotero", "library": "nope", "api_key": "k"}, api.CodeInvalidInput)
	})
}

func TestImportZoteroLocalRefusedOverHTTP(t *testing.T) {
	overTransports(t, func(t *testing.T, cs *mcp.ClientSession) {
		if t.Name() == "TestImportZoteroLocalRefusedOverHTTP/HTTP" {
			fails(t, cs, "import_library", map[string]any{"source": "zotero-local"}, api.CodeInvalidInput)
		}
	})
}
