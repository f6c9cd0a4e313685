package api

// CitedWork is a work at the other end of a paper's citation link: one of
// its references, or a work citing it.
type CitedWork struct {
	DOI        string `json:"doi"`                   // lower-cased; "" when the origins know none
	Title      string `json:"title"`                 // "" when unknown
	Year       int    `json:"year"`                  // 0 when unknown
	InMemory   bool   `json:"in_memory"`             // the workspace holds a paper with this DOI
	OpenAlexID string `json:"openalex_id,omitempty"` // "W…", when OpenAlex knows the work
	// Text is the reference as its publisher deposited it at Crossref,
	// for a reference with neither DOI nor title.
	Text string `json:"text,omitempty"`
}

// CitationList is one direction of a paper's citation links.
type CitationList struct {
	DOI    string      `json:"doi"`    // the paper's
	Works  []CitedWork `json:"works"`  // in the origin's order; never nil
	Total  int         `json:"total"`  // how many the origin counts; more than len(Works) past the bounds
	Source string      `json:"source"` // "openalex", "crossref" (references only) or "": where the list came from
	// Status is CitationsFetched, CitationsUnknown or CitationsNotFetched.
	Status    string `json:"status"`
	FetchedAt string `json:"fetched_at,omitempty"` // RFC 3339, when fetched
}

// CitationRelated is a paper of the workspace related to another by
// citations.
type CitationRelated struct {
	DOI   string `json:"doi"`
	Title string `json:"title"`
	Year  int    `json:"year"`
	// Coupling counts the works both papers cite (bibliographic
	// coupling); CoCitation the works citing both (co-citation), as far
	// as the stored links of the workspace's papers tell.
	Coupling   int `json:"coupling"`
	CoCitation int `json:"co_citation"`
	// Score is Coupling + CoCitation: each shared reference and each
	// shared citer counts one.
	Score float64 `json:"score"`
}

// CitationGap is a work the workspace's papers cite that it does not hold.
type CitationGap struct {
	DOI        string   `json:"doi"` // "" for a work OpenAlex knows without one
	Title      string   `json:"title"`
	Year       int      `json:"year"`
	OpenAlexID string   `json:"openalex_id,omitempty"`
	Count      int      `json:"count"`    // how many of the workspace's papers cite it
	CitedBy    []string `json:"cited_by"` // their DOIs
}
