package api

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
	Imports []Import `json:"imports" doc:"newest first"`
}

// Import is an import and its progress.
type Import struct {
	ID        int64         `json:"import_id"`
	Source    string        `json:"source"`
	Library   string        `json:"library"` // the Zotero library, or the export file's name
	Status    string        `json:"status"`  // running, done or failed
	Total     int           `json:"total"`   // items to read, when known (0 until then)
	Items     int           `json:"items"`   // items read
	Papers    int           `json:"papers"`  // papers stored or updated
	Documents int           `json:"documents"`
	Deleted   int           `json:"deleted"`
	Skipped   int           `json:"skipped"`
	Errors    []ImportError `json:"errors"`
	Message   string        `json:"message,omitempty"` // why a failed import failed
	CreatedAt string        `json:"created_at"`
	UpdatedAt string        `json:"updated_at"`
}

// ImportError is an item an import could not store: its key in the source
// and the error's code and message.
type ImportError struct {
	Item    string `json:"item"`
	Code    string `json:"code"`
	Message string `json:"message"`
}
