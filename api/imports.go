package api

import "github.com/papermem/papermem"

// ImportRequest starts an import of a Zotero library (POST /v1/imports
// with a JSON body).
type ImportRequest struct {
	Source  string `json:"source" required:"true" doc:"zotero (the Zotero web API); export files are uploaded as multipart/form-data instead"`
	Library string `json:"library" required:"true" doc:"the Zotero library: users/<userID> or groups/<groupID>"`
	APIKey  string `json:"api_key" required:"true" doc:"a Zotero API key that may read the library; sent to Zotero only, never stored, logged or answered"`
}

// ImportForm is the multipart/form-data body of an export file's import
// (POST /v1/imports).
type ImportForm struct {
	File   string `json:"file" format:"binary" required:"true" doc:"the export file, with its filename: .bib (BibTeX), .ris, .json (CSL-JSON) or .csv (a file,doi,title manifest)"`
	Source string `json:"source" doc:"bibtex, ris, csl-json or manifest; default: the file name's extension"`
}

// ImportsResponse lists imports (GET /v1/imports).
type ImportsResponse struct {
	Imports []papermem.Import `json:"imports" doc:"newest first"`
}
