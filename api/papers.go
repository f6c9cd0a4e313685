package api

// Paper is a paper in a workspace's memory, keyed by its normalised DOI.
type Paper struct {
	DOI       string   `json:"doi"`
	Title     string   `json:"title"`
	Year      int      `json:"year,omitempty"`
	Authors   []string `json:"authors"`
	OA        bool     `json:"oa"`
	Cached    bool     `json:"cached"` // the full text is in memory
	SourceURL string   `json:"source_url,omitempty"`
	Domain    string   `json:"domain,omitempty"`
	Journal   string   `json:"journal,omitempty"` // the journal or proceedings, from the origins
	Type      string   `json:"type,omitempty"`    // the kind of work, as Crossref names it: journal-article, …
	// Retracted is true when an origin reports the paper retracted
	// (Crossref's updated-by notices, OpenAlex's is_retracted); Notices
	// lists the editorial notices about it, retractions or not.
	Retracted bool     `json:"retracted"`
	Notices   []Notice `json:"notices,omitempty"`
	// Metadata is where the metadata from the paper's origins stands:
	// MetadataPending while the background job is to fill what the paper
	// lacks and check its retraction status, MetadataComplete once the
	// origins answered (or had nothing to add), MetadataUnavailable when
	// no origin can be asked (origins off, no DOI) or the job gave up.
	Metadata string  `json:"metadata" doc:"where the metadata from the paper's origins stands: pending (a background job is to fill authors, year, journal, oa and the retraction status from Crossref, Unpaywall and OpenAlex), complete (they answered, or had nothing to add), unavailable (origins off, no DOI, or they kept failing and the job gave up)"`
	Score    float64 `json:"score,omitempty"` // set by RecallPapers
	// Tags and Collections are the names the paper is filed under in the
	// library it was imported from, and Source that library ("zotero:users/4242",
	// "bibtex:My Library.bib"); empty for a paper stored otherwise. Set by
	// Paper and ListPapers.
	Tags        []string `json:"tags,omitempty"`
	Collections []string `json:"collections,omitempty"`
	Source      string   `json:"source,omitempty"`
}

// Paper.Metadata's values.
const (
	MetadataPending     = "pending"     // a background job is to ask the origins
	MetadataComplete    = "complete"    // the origins answered, or had nothing to add
	MetadataUnavailable = "unavailable" // no origin can be asked, or the job gave up
)

// Notice is an editorial notice about a paper, as its origins report it:
// Type is "retraction", "correction", "expression_of_concern", …; DOI is
// the notice's own DOI and Date its date (YYYY-MM-DD), when known.
type Notice struct {
	Type string `json:"type"`
	DOI  string `json:"doi,omitempty"`
	Date string `json:"date,omitempty"`
}

// PaperInput is a paper to store. DOI may be empty when SourceURL or Text
// contains one; without any DOI the paper gets a stable "local:" id from
// its title or URL.
type PaperInput struct {
	DOI       string   `json:"doi"`
	Title     string   `json:"title"`
	Text      string   `json:"text"`
	Authors   []string `json:"authors"`
	Year      int      `json:"year"`
	OA        bool     `json:"oa"`
	SourceURL string   `json:"source_url"`
	Domain    string   `json:"domain"`
	// Refresh asks the origins again (Options.Origins) instead of taking
	// their answer from the day's cache: a stored paper's retraction
	// status is so brought up to date.
	Refresh bool `json:"refresh"`
}

// IngestReport summarises what a store or ingest call added.
type IngestReport struct {
	DocID       string `json:"doc_id"`
	Kind        string `json:"kind"`   // paper or document
	Format      string `json:"format"` // text, markdown, pdf, …
	CharsRead   int    `json:"chars_read"`
	Pages       int    `json:"pages"`
	Sections    int    `json:"sections"`
	Rows        int    `json:"rows"`
	NodesStored int    `json:"nodes_stored"`
	ClaimsFound int    `json:"claims_found"`
	ElapsedMS   int64  `json:"elapsed_ms"`
}

// PaperRecallRequest asks for the papers that best match a query.
type PaperRecallRequest struct {
	Query     string    // required
	Limit     int       // 0 means DefaultPaperLimit; at most MaxPaperLimit
	Fill      bool      // false: the list ends before a paper under SourceStopRatio times the best sound one; true: up to Limit
	Retrieval Retrieval // zero means hybrid
	// DOIs, Tags and Collections scope the ranking to those papers, as
	// RecallRequest's do. Nil means every paper.
	DOIs, Tags, Collections []string
}
