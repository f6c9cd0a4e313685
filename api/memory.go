package api

import (
	"encoding/json"
)

// RecallRequest asks for the spans of the workspace's memory that answer a
// question.
type RecallRequest struct {
	Question     string   `json:"question" required:"true" doc:"the question to answer"`
	Keywords     []string `json:"keywords" doc:"extra terms; spans containing them rank higher. Default []"`
	Domain       *string  `json:"domain" doc:"only spans of this domain; null or absent means every domain"`
	Label        string   `json:"label" doc:"node label: Claim (default), Passage, Paper, Analysis, Document or Any (all but per-user memories)"`
	BudgetTokens *int     `json:"budget_tokens" doc:"token budget, 1..200000; null or absent means 8000. Invariant: total_tokens == sum(span.tokens) <= budget_tokens"`
	SectionTypes []string `json:"section_types" doc:"only spans of these section types: abstract, introduction, background, methods, results, discussion, conclusion, limitations, references, body, table, sheet; unknown values are 400"`
	ScopeSignals []string `json:"scope_signals" doc:"boost spans carrying the cues of: open_questions, mechanisms, reliability, what_to_build, limitations, evidence; unknown values are 400"`
	Tags         []string `json:"tags" doc:"only spans of the papers with one of these tags (as imported, exact names), scoped as dois; with dois or collections too, only papers in every scope given. At most 100 names; an empty name is 400"`
	Collections  []string `json:"collections" doc:"only spans of the papers filed in one of these collections (their names, exact), scoped as dois. At most 100 names; an empty name is 400"`
	Fill         bool     `json:"fill" doc:"true: spans are taken best first while they fit budget_tokens, whatever their score (the whole budget). Default false: the answer stops when the evidence is in, before a span much weaker than the best one taken (see the notes); budget_tokens stays a ceiling"`
	MinTokens    *int     `json:"min_tokens" doc:"the answer does not stop before this many tokens, 0..budget_tokens; null or absent means 0"`
	DOIs         []string `json:"dois" doc:"only spans of these papers (their title and abstract, passages and claims; not their analyses, and no documents, so labels Analysis and Document then match nothing), with words weighed within them as in a workspace of those papers alone; null, absent or [] means every source. A DOI not in this workspace matches nothing (no error), so when none is the answer has no spans. At most 100 DOIs, duplicates ignored; a string that is not a DOI, or more than 100, is 400"`
}

// ExistsResponse says whether a paper is in memory.
type ExistsResponse struct {
	Exists bool `json:"exists"`
}

// PaperRequest is a paper to store.
type PaperRequest struct {
	DOI       *string  `json:"doi" doc:"the DOI; null or absent: found in source_url or the text, else a stable local:<hash> id from the title or source_url"`
	Title     string   `json:"title" doc:"default empty"`
	Text      string   `json:"text" doc:"full text (plain or Markdown); default empty. With text the paper is cached"`
	Authors   []string `json:"authors" doc:"default []"`
	Year      *int     `json:"year" doc:"publication year, 0..9999"`
	OA        bool     `json:"oa" doc:"open access; default false"`
	SourceURL *string  `json:"source_url" doc:"where the full text can be fetched (POST /v1/papers/{doi}/fetch)"`
	Domain    string   `json:"domain" doc:"topic area, used to filter recall"`
	Refresh   bool     `json:"refresh" doc:"ask the paper's origins again instead of taking their answer from the day's cache (brings its retraction status up to date); default false"`
}

// StorePaperResponse is the stored paper with its ingest report.
type StorePaperResponse struct {
	Paper
	Report *IngestReport `json:"report"`
}

// BatchRequest is a list of papers to store.
type BatchRequest struct {
	Papers []PaperRequest `json:"papers" required:"true" doc:"1 to 1000 papers, each as in POST /v1/papers"`
}

// BatchError is one paper that failed.
type BatchError struct {
	Index int    `json:"index" doc:"position of the paper in the request"`
	Code  string `json:"code" doc:"the error code it would have had alone"`
	Error string `json:"error" doc:"why it failed"`
}

// BatchReport sums the ingest reports of a batch.
type BatchReport struct {
	Ingested    int          `json:"ingested" doc:"papers stored"`
	Failed      int          `json:"failed" doc:"papers refused"`
	Errors      []BatchError `json:"errors" doc:"one entry per refused paper, by index"`
	DOIs        []string     `json:"dois" doc:"keys of the stored papers, in request order"`
	CharsRead   int          `json:"chars_read"`
	Sections    int          `json:"sections"`
	NodesStored int          `json:"nodes_stored"`
	ClaimsFound int          `json:"claims_found"`
	ElapsedMS   int64        `json:"elapsed_ms"`
}

// DeletedResponse names what was deleted.
type DeletedResponse struct {
	Deleted string `json:"deleted"`
}

// FormatsResponse lists what POST /v1/ingest reads.
type FormatsResponse struct {
	Formats      []IngestFormat `json:"formats"`
	MaxFileBytes int64          `json:"max_file_bytes" doc:"largest file accepted; larger uploads are 413"`
}

// IngestForm documents the multipart/form-data fields of POST /v1/ingest.
type IngestForm struct {
	File   string `json:"file" format:"binary" required:"true" doc:"the file; its name's extension selects the format"`
	Domain string `json:"domain" doc:"topic area stored with the file's spans, used to filter recall"`
	DOI    string `json:"doi" doc:"store the file as the full text of the paper with this DOI (created or updated)"`
	Title  string `json:"title" doc:"title to store instead of the one found in the file"`
}

// AnalysisRequest is an analysis of a paper.
type AnalysisRequest struct {
	DOI             string `json:"doi" required:"true" doc:"the paper's DOI; the paper need not be in memory"`
	Markdown        string `json:"markdown" required:"true" doc:"the analysis; indexed as Analysis nodes so recall finds it"`
	CoreClaim       string `json:"core_claim"`
	Acceptance      string `json:"acceptance"`
	Scorecard       string `json:"scorecard"`
	SharpestFlaw    string `json:"sharpest_flaw"`
	ClaimsExtracted int    `json:"claims_extracted" doc:"0 or absent means the number of claims found in the markdown"`
}

// StoredAnalysis answers a store.
type StoredAnalysis struct {
	DOI             string `json:"doi"`
	Stored          bool   `json:"stored" doc:"always true"`
	UpdatedAt       string `json:"updated_at"`
	ClaimsExtracted int    `json:"claims_extracted"`
}

// RememberRequest is something the user wants remembered.
type RememberRequest struct {
	Text       string         `json:"text" required:"true" doc:"what to remember, at most 64 KiB"`
	Key        string         `json:"key" doc:"the memory's key; the same key updates in place. Default: derived from the text"`
	Tags       []string       `json:"tags" doc:"free labels"`
	Domain     string         `json:"domain" doc:"topic area"`
	OccurredAt string         `json:"occurred_at" doc:"ISO-8601 date or time of the event"`
	Metadata   map[string]any `json:"metadata" doc:"free JSON object, returned in provenance; metadata.session (string or number) and metadata.seq (number) place the memory in a conversation, so that recall can bring the turns around a hit"`
}

// UserRecallRequest asks for the user's memories that answer a question.
type UserRecallRequest struct {
	Question     string   `json:"question" required:"true"`
	Keywords     []string `json:"keywords"`
	BudgetTokens *int     `json:"budget_tokens" doc:"1..200000; null or absent means 8000"`
	Fill         bool     `json:"fill" doc:"true: memories are taken best first while they fit budget_tokens (the whole budget). Default false: the answer stops when the evidence is in, as a recall of the workspace does"`
	MinTokens    *int     `json:"min_tokens" doc:"the answer does not stop before this many tokens, 0..budget_tokens; null or absent means 0"`
}

// LinkRequest links a session to papers and claims.
type LinkRequest struct {
	SessionID string   `json:"session_id" required:"true" doc:"1 to 128 letters, digits or . _ : @ + -, starting with a letter or digit"`
	Papers    []string `json:"papers" doc:"DOIs (normalised); a DOI the workspace does not hold is recorded as a paper stub"`
	Claims    []int64  `json:"claims" doc:"node ids from recall; each must be a node of this workspace (not a per-user memory), else 400"`
}

// MaterializeRequest sets the relatedness threshold.
type MaterializeRequest struct {
	Threshold *float64 `json:"threshold" doc:"least Jaccard index of two sessions' paper sets for a related edge, in (0, 1]; null or absent means 0.2"`
}

// StepRequest is one step of a session. Args are kept byte for byte, so
// large numbers survive.
type StepRequest struct {
	Agent     string          `json:"agent" doc:"the agent that acted"`
	Tool      string          `json:"tool" doc:"the tool it called"`
	Args      json.RawMessage `json:"args" doc:"the tool's arguments, any JSON value"`
	ResultRef string          `json:"result_ref" doc:"where the result is kept, free text"`
}

// ExportRequest is a session's export record.
type ExportRequest struct {
	SessionID      string                     `json:"session_id" doc:"absent or empty: a new id is generated and returned"`
	UserID         string                     `json:"user_id" doc:"who ran the session; defaults to the credential's user, and must equal it when both are given (else 403)"`
	CreatedAt      string                     `json:"created_at" doc:"ISO-8601 date or time; absent means now (re-exported: the first export's time)"`
	Steps          []StepRequest              `json:"steps" doc:"in order, at most 10000"`
	RecalledPapers []string                   `json:"recalled_papers" doc:"DOIs; linked to the session like POST /v1/sessions/link (unknown ones become paper stubs)"`
	RecalledClaims []int64                    `json:"recalled_claims" doc:"node ids; kept in the record, and linked when they name a node of this workspace"`
	Metadata       map[string]json.RawMessage `json:"metadata" doc:"free JSON object; metadata.domain (a string) counts among the user's domains"`
}

// Input converts the request for Workspace.Recall, rejecting an explicit
// budget below 1 (EINVALID).
func (req *RecallRequest) Input() (RecallInput, error) {
	out := RecallInput{Question: req.Question, Keywords: req.Keywords, Label: req.Label,
		SectionTypes: req.SectionTypes, ScopeSignals: req.ScopeSignals, DOIs: req.DOIs, Tags: req.Tags, Collections: req.Collections, Fill: req.Fill}
	if req.MinTokens != nil {
		out.MinTokens = *req.MinTokens
	}
	if req.Domain != nil {
		out.Domain = *req.Domain
	}
	if req.BudgetTokens != nil {
		if *req.BudgetTokens < 1 {
			return out, errBudget
		}
		out.BudgetTokens = *req.BudgetTokens
	}
	return out, nil
}

var errBudget = Errorf(EINVALID, "budget_tokens must be between 1 and %d.", MaxBudgetTokens)

// Input converts the request for Workspace.StorePaper.
func (p *PaperRequest) Input() PaperInput {
	in := PaperInput{Title: p.Title, Text: p.Text, Authors: p.Authors, OA: p.OA, Domain: p.Domain, Refresh: p.Refresh}
	if p.DOI != nil {
		in.DOI = *p.DOI
	}
	if p.Year != nil {
		in.Year = *p.Year
	}
	if p.SourceURL != nil {
		in.SourceURL = *p.SourceURL
	}
	return in
}

// Input converts the request for Workspace.StoreAnalysis.
func (req *AnalysisRequest) Input() Analysis {
	return Analysis{DOI: req.DOI, Markdown: req.Markdown, CoreClaim: req.CoreClaim,
		Acceptance: req.Acceptance, Scorecard: req.Scorecard, SharpestFlaw: req.SharpestFlaw,
		ClaimsExtracted: req.ClaimsExtracted}
}

// Input converts the request for Workspace.Remember.
func (req *RememberRequest) Input() NoteInput {
	return NoteInput{Text: req.Text, Key: req.Key, Tags: req.Tags, Domain: req.Domain,
		OccurredAt: req.OccurredAt, Metadata: req.Metadata}
}

// Input converts the request for Workspace.RecallUser, rejecting an
// explicit budget below 1 (EINVALID).
func (req *UserRecallRequest) Input() (UserRecallInput, error) {
	in := UserRecallInput{Question: req.Question, Keywords: req.Keywords, Fill: req.Fill}
	if req.MinTokens != nil {
		in.MinTokens = *req.MinTokens
	}
	if req.BudgetTokens != nil {
		if *req.BudgetTokens < 1 {
			return in, errBudget
		}
		in.BudgetTokens = *req.BudgetTokens
	}
	return in, nil
}

// Record converts the request for Workspace.ExportSession on behalf of
// user, the credential's user ("" when it names none). The record's user is
// user, else the request's user_id; a user_id naming another user than a
// non-empty user is EFORBIDDEN.
func (req *ExportRequest) Record(user string) (SessionRecord, error) {
	switch {
	case user == "":
		user = req.UserID
	case req.UserID != "" && req.UserID != user:
		return SessionRecord{}, Errorf(EFORBIDDEN, "user_id names another user than the credential's.")
	}
	rec := SessionRecord{SessionID: req.SessionID, UserID: user, CreatedAt: req.CreatedAt,
		RecalledPapers: req.RecalledPapers, RecalledClaims: req.RecalledClaims}
	rec.Steps = make([]Step, len(req.Steps))
	for i, st := range req.Steps {
		rec.Steps[i] = Step{Agent: st.Agent, Tool: st.Tool, ResultRef: st.ResultRef}
		if st.Args != nil {
			rec.Steps[i].Args = st.Args
		}
	}
	if req.Metadata != nil {
		rec.Metadata = make(map[string]any, len(req.Metadata))
		for k, v := range req.Metadata {
			rec.Metadata[k] = v
		}
	}
	return rec, nil
}

// NewStoredAnalysis is the answer to storing analysis a.
func NewStoredAnalysis(a *Analysis) *StoredAnalysis {
	return &StoredAnalysis{DOI: a.DOI, Stored: true, UpdatedAt: a.UpdatedAt, ClaimsExtracted: a.ClaimsExtracted}
}

// DocumentsResponse lists the workspace's documents.
type DocumentsResponse struct {
	Documents []Document `json:"documents" doc:"most recently ingested first"`
	Count     int        `json:"count"`
}
