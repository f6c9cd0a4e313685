package api

// PaperResponse is a paper read as a resource (GET /v1/papers/{doi}): its
// metadata, with its venue, tags, collections and source always present.
type PaperResponse struct {
	Paper
	Venue       string   `json:"venue" doc:"the journal or proceedings; empty when unknown (the same as journal)"`
	Tags        []string `json:"tags" doc:"the paper's tags in the library it was imported from, sorted; [] for none"`
	Collections []string `json:"collections" doc:"the names of the collections it is filed in there, sorted; [] for none"`
	Source      string   `json:"source" doc:"the library it was last imported from (zotero:users/4242, zotero-local:users/0, bibtex:<file>, ris:<file>, csl-json:<file>, manifest:<file>); empty for a paper stored through the API"`
}

// NewPaperResponse makes the response of paper p.
func NewPaperResponse(p Paper) PaperResponse {
	r := PaperResponse{Paper: p, Venue: p.Journal, Tags: p.Tags, Collections: p.Collections, Source: p.Source}
	if r.Tags == nil {
		r.Tags = []string{}
	}
	if r.Collections == nil {
		r.Collections = []string{}
	}
	return r
}

// PapersResponse is a page of papers (GET /v1/papers).
type PapersResponse struct {
	Papers     []PaperResponse `json:"papers" doc:"newest first"`
	NextCursor string          `json:"next_cursor" doc:"pass as cursor for the next page; empty on the last page"`
}

// NewPapersResponse makes the response of a page of papers and its next
// cursor.
func NewPapersResponse(papers []Paper, nextCursor string) PapersResponse {
	r := PapersResponse{Papers: make([]PaperResponse, len(papers)), NextCursor: nextCursor}
	for i, p := range papers {
		r.Papers[i] = NewPaperResponse(p)
	}
	return r
}

// PaperQuery selects a page of the workspace's papers (ListPapers).
type PaperQuery struct {
	Tag        string // "" means any; else only papers with this tag (exact name)
	Collection string // "" means any; else only papers in this collection (exact name)
	Limit      int    // 0 means DefaultPaperLimit; at most MaxPaperLimit
	Cursor     string // "" means the first page; else a PaperPage's NextCursor
}
