package api

// Document is a file IngestFile stored as a document: any file that is not
// a paper's full text.
type Document struct {
	ID        string `json:"doc_id"`     // "doc:<id>", the DocID of its IngestReport
	Name      string `json:"name"`       // the file's name, the source of its spans' provenance
	Title     string `json:"title"`      // found in the file, given, or else its name
	Format    string `json:"format"`     // one of IngestFormats
	Domain    string `json:"domain"`     // "" for none
	Bytes     int64  `json:"bytes"`      // size of the file
	CreatedAt string `json:"created_at"` // when it was ingested
}
