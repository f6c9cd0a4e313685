package api

// IngestOptions qualify an ingested file. The zero value means none.
type IngestOptions struct {
	// Domain is the topic area the file's nodes carry, used to filter
	// recall. Empty means none (or, for a paper, its stored domain).
	Domain string
	// DOI, when set, makes the file the full text of the paper with this
	// DOI. Empty means the DOI the file carries, if any.
	DOI string
	// Title overrides the title found in the file. Empty means that one.
	Title string
}

// IngestFormat is a file format IngestFile reads and the file name
// extensions (lower case, with the dot) that select it.
type IngestFormat struct {
	Format     string   `json:"format"`
	Extensions []string `json:"extensions"`
}
