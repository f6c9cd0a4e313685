// Package mcpserver serves papermem's memory to agents over the Model
// Context Protocol, with the official Go SDK. New returns a server whose
// tools mirror the /v1 routes an agent needs (recall, recall_papers,
// store_paper, paper_exists, cite, fetch_paper, ingest_file,
// store_analysis, get_analysis, remember, recall_user, forget,
// link_session, export_session, graph) over a Backend: a workspace in process (Local) or
// a running server (*client.Client).
//
// Each tool's input schema comes from a Go type and the doc tags of its
// fields; each result carries structured content (the /v1 route's JSON) and
// a text rendering that cites every span it holds. A failure is a tool
// error whose text is the API's error body, {"error":{"code","message"}},
// with the API's code (api.Code).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/buildinfo"
)

// Name is the server's implementation name in the MCP handshake.
const Name = "papermem"

// DefaultBudgetTokens is the token budget of the recall and recall_user
// tools when the call gives none: a quarter of the library's
// papermem.DefaultBudgetTokens, since what a tool returns fills the
// agent's context. At 2,000 tokens recall finds all the evidence of 0.917
// of SciFact's claims (0.865 at 1,000) and user recall 0.843 of LoCoMo's
// questions (0.881 at 4,000); see docs/measurements.md. A call may
// ask for up to papermem.MaxBudgetTokens.
const DefaultBudgetTokens = 2000

// Options configures a server. The zero Options serves the tools without
// local file access.
type Options struct {
	// Files lets ingest_file read a path on this machine, as a stdio
	// server launched by the user may. False means ingest_file takes the
	// file's content in base64 only, as over HTTP.
	Files bool

	// Version is reported in the handshake. Empty means the version of
	// the papermem module this binary was built from (a release, the
	// pseudo-version go build stamps from a git checkout, or "devel").
	Version string

	// Logger receives internal errors, whose details tool errors withhold.
	// Nil means slog.Default().
	Logger *slog.Logger
}

// New returns an MCP server over b. Nil options means the zero Options.
func New(b Backend, opts *Options) *mcp.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Version == "" {
		o.Version = buildinfo.Version()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "papermem research memory", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	t := &tools{b: b, opts: o}
	addTool(s, t, "recall", recallDoc, reads, t.recall)
	addTool(s, t, "recall_papers", recallPapersDoc, reads, t.recallPapers)
	addTool(s, t, "store_paper", storePaperDoc, replaces, t.storePaper)
	addTool(s, t, "paper_exists", paperExistsDoc, reads, t.paperExists)
	addTool(s, t, "cite", citeDoc, reads, t.cite)
	addTool(s, t, "fetch_paper", fetchPaperDoc, fetches, t.fetchPaper)
	if o.Files {
		addTool(s, t, "ingest_file", ingestFileDoc+" Give path (a file on this machine) or content_base64 with name.", writes, t.ingestFile)
	} else {
		addTool(s, t, "ingest_file", ingestFileDoc+" Give content_base64 and name.", writes, t.ingestContent)
	}
	addTool(s, t, "store_analysis", storeAnalysisDoc, replaces, t.storeAnalysis)
	addTool(s, t, "get_analysis", getAnalysisDoc, reads, t.getAnalysis)
	addTool(s, t, "remember", rememberDoc, replaces, t.remember)
	addTool(s, t, "recall_user", recallUserDoc, reads, t.recallUser)
	addTool(s, t, "forget", forgetDoc, replaces, t.forget)
	addTool(s, t, "link_session", linkSessionDoc, adds, t.linkSession)
	addTool(s, t, "export_session", exportSessionDoc, writes, t.exportSession)
	addTool(s, t, "graph", graphDoc, reads, t.graph)
	addCitationTools(s, t)
	addLibraryTools(s, t)
	return s
}

const instructions = "papermem is the research memory of this workspace: papers (by DOI), ingested documents, analyses of papers and per-user notes. " +
	"Before answering a research question, call recall and cite the spans it returns (DOI, title, section, page). " +
	"Store what you read with store_paper or ingest_file, your appraisal of a paper with store_analysis, and what the user tells you about themselves with remember."

// tools holds what the tool handlers share.
type tools struct {
	b    Backend
	opts Options
}

// The tools' annotations: what a call does to memory, for clients that ask
// the user before a tool changes or deletes something. Only fetch_paper
// reaches outside memory (the paper's source_url).
var (
	// reads only read memory.
	reads = hints(true, false, true, false)
	// replaces store or delete by key (a DOI, a memory's key): what was
	// stored under it is overwritten or gone, and calling again with the
	// same arguments changes nothing more.
	replaces = hints(false, true, true, false)
	// writes may overwrite (a file with a DOI replaces the paper's text;
	// re-exporting a session replaces its record) and add anew on every
	// call (a document, a session id generated when none is given).
	writes = hints(false, true, false, false)
	// adds only adds what is not there yet.
	adds = hints(false, false, true, false)
	// fetches downloads a paper into memory once.
	fetches = hints(false, false, true, true)
)

func hints(readOnly, destructive, idempotent, openWorld bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: &openWorld}
}

// handler is a tool's work: its structured result and text rendering.
type handler[In, Out any] func(ctx context.Context, in In) (Out, string, error)

// addTool registers a tool taking In, decoded as the server decodes a
// request body, and answering Out. Errors become tool errors with the
// API's error body.
func addTool[In, Out any](s *mcp.Server, t *tools, name, doc string, ann *mcp.ToolAnnotations, h handler[In, Out]) {
	tool := &mcp.Tool{Name: name, Description: doc, Annotations: ann, InputSchema: inputSchema[In](), OutputSchema: outputSchema[Out]()}
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if err := api.DecodeJSON(args, &in); err != nil {
			return t.errorResult(ctx, name, err), nil
		}
		out, text, err := h(ctx, in)
		if err != nil {
			return t.errorResult(ctx, name, err), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: out}, nil
	})
}

// errorResult is a failed call: its text is the API's error body. Internal
// errors are logged and their message withheld, as the HTTP API does.
func (t *tools) errorResult(ctx context.Context, tool string, err error) *mcp.CallToolResult {
	code := api.Code(err)
	if code == api.CodeInternal {
		t.opts.Logger.ErrorContext(ctx, "mcp tool failed", "tool", tool, "err", err)
	}
	body, _ := json.Marshal(api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: papermem.ErrorMessage(err)}})
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
}

// Tool inputs that are not /v1 request bodies.
type (
	recallPapersInput struct {
		Query string `json:"query" required:"true" doc:"what the papers should be about, e.g. \"vitamin D fracture risk\""`
		Limit int    `json:"limit,omitempty" doc:"most papers returned, 1..100; 0 or absent means 20"`
		Fill  bool   `json:"fill,omitempty" doc:"true lists up to limit papers; false or absent ends the list before papers much weaker than the best"`
	}
	doiInput struct {
		DOI string `json:"doi" required:"true" doc:"the paper's DOI, e.g. 10.1000/xyz"`
	}
	citeInput struct {
		DOI    string `json:"doi" required:"true" doc:"the paper's DOI, e.g. 10.1000/xyz"`
		Format string `json:"format,omitempty" doc:"bibtex (the default when absent), ris or csl-json; case does not matter"`
	}
	forgetInput struct {
		Key string `json:"key" required:"true" doc:"the key of the user's memory to delete, as returned by remember or shown in recall_user provenance"`
	}
	graphInput struct {
		SeedSession string `json:"seed_session" required:"true" doc:"the session id to start from (as used in link_session or export_session)"`
		Hops        int    `json:"hops,omitempty" doc:"depth, 1..3; 0 or absent means 1"`
	}
	ingestContentInput struct {
		Name          string `json:"name" required:"true" doc:"the file's name; its extension selects the format: .md .markdown .txt .text .log .csv .tsv .json .pdf .xlsx .docx"`
		ContentBase64 string `json:"content_base64" required:"true" doc:"the file's bytes in standard base64; at most the server's max_file_bytes (25 MiB by default) once decoded"`
		Domain        string `json:"domain,omitempty" doc:"topic area stored with the file's spans, used to filter recall"`
		DOI           string `json:"doi,omitempty" doc:"store the file as the full text of the paper with this DOI"`
		Title         string `json:"title,omitempty" doc:"title to store instead of the one found in the file"`
	}
	ingestFileInput struct {
		Path          string `json:"path,omitempty" doc:"a file on the machine running this server, absolute or relative to its working directory"`
		Name          string `json:"name,omitempty" doc:"with content_base64: the file's name, whose extension selects the format (.md .txt .csv .tsv .json .pdf .xlsx .docx …); with path: default the path's base name"`
		ContentBase64 string `json:"content_base64,omitempty" doc:"instead of path: the file's bytes in standard base64"`
		Domain        string `json:"domain,omitempty" doc:"topic area stored with the file's spans, used to filter recall"`
		DOI           string `json:"doi,omitempty" doc:"store the file as the full text of the paper with this DOI"`
		Title         string `json:"title,omitempty" doc:"title to store instead of the one found in the file"`
	}
	// papersOutput wraps recall_papers' list: structured content is an
	// object.
	papersOutput struct {
		Papers []papermem.Paper `json:"papers"`
	}
	// citeOutput is cite's answer: the reference, also the call's text.
	citeOutput struct {
		DOI      string `json:"doi"`
		Format   string `json:"format"`
		Citation string `json:"citation"`
	}
	// existsOutput is paper_exists' answer, with the DOI as memory keys
	// it.
	existsOutput struct {
		DOI    string `json:"doi"`
		Exists bool   `json:"exists"`
	}
)

// Tool descriptions. They name no HTTP route, header or status: the tools
// are served over stdio too.
const (
	recallDoc = "Find the evidence in this workspace's memory (papers, documents, analyses) that answers a question, packed into a token budget (2000 tokens unless budget_tokens says otherwise), best first. " +
		"Each span has its text and provenance (kind, DOI, title, source, section, page, sheet, row); cite them. Give dois to search only those papers. Per-user notes are not searched (use recall_user). " +
		"Scores mean the same for every question, from 0 to 1 (keywords may lift a span above its relevance); no spans means memory holds nothing about it. " +
		"The answer stops when the evidence is in, before a span much weaker than the best; set fill for the whole budget, or min_tokens."
	recallPapersDoc  = "Rank the workspace's papers for a query: DOI, title, authors, year, score (0 to 1, as recall's), and whether the full text is in memory. Only papers that match: the list may be short or empty."
	storePaperDoc    = "Store or update a paper by DOI: its title, authors, year and full text (plain or Markdown). Its abstract, passages and claims become recallable. Re-storing a DOI updates it."
	paperExistsDoc   = "Whether the workspace already holds a paper, by DOI; answers the DOI normalised as memory keys it (lower case, without a doi: or https://doi.org/ prefix)."
	citeDoc          = "Cite a paper in memory, by DOI, as BibTeX (the default), RIS or CSL-JSON, from what memory holds of it (title, authors, year, journal, type of work, URL); nothing is looked up elsewhere. The text is the reference alone, ready to paste into a bibliography file."
	fetchPaperDoc    = "Make sure a paper's full text is in memory: answered from memory when cached, else downloaded from the paper's source_url and ingested."
	ingestFileDoc    = "Add a file (Markdown, text, CSV/TSV, JSON, PDF, XLSX, DOCX) to memory. A file carrying a DOI becomes (or replaces) that paper's full text; anything else a new document. At most the server's file size limit (25 MiB by default)."
	storeAnalysisDoc = "Store or replace your analysis of a paper (Markdown, with optional core claim, acceptance, scorecard and sharpest flaw); recall then finds it."
	getAnalysisDoc   = "Read the stored analysis of a paper, by DOI."
	rememberDoc      = "Remember something about the current user (a preference, a fact, an event). Needs a user, which the connection names: the user of a session token, the user named with an API key, or papermem mcp --user. The same key updates the memory."
	recallUserDoc    = "Recall the current user's own memories that answer a question, best first, within a token budget (2000 tokens unless budget_tokens says otherwise); none when they hold nothing about it."
	forgetDoc        = "Delete one of the current user's memories by key. It cannot be undone."
	linkSessionDoc   = "Record that a research session used papers (DOIs) and claims (node ids from recall), building the session graph. Links already recorded are kept."
	exportSessionDoc = "Write a session's record: its steps (agent, tool, args, result_ref), the papers and claims it recalled, and metadata. Re-exporting a session replaces its record; without session_id every call writes a new one."
	graphDoc         = "The session graph around a session: sessions, the papers and claims they used, and related sessions, within 1 to 3 hops."
)

// recallLabels are the labels recall takes (papermem.LabelMemory is
// recall_user's).
var recallLabels = []string{papermem.LabelClaim, papermem.LabelPassage, papermem.LabelPaper,
	papermem.LabelAnalysis, papermem.LabelDocument, papermem.LabelAny}

// canonical returns the value of allowed that s names ignoring case, else
// s unchanged (for the library to refuse).
func canonical(s string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a
		}
	}
	return s
}

// canonicalAll is canonical of each of ss, in a new slice.
func canonicalAll(ss, allowed []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = canonical(s, allowed)
	}
	return out
}

// budget is b, or DefaultBudgetTokens when the call gave none.
func budget(b *int) *int {
	if b == nil {
		n := DefaultBudgetTokens
		return &n
	}
	return b
}

func (t *tools) recall(ctx context.Context, in api.RecallRequest) (*papermem.RecallResult, string, error) {
	in.BudgetTokens = budget(in.BudgetTokens)
	in.Label = canonical(in.Label, recallLabels)
	in.SectionTypes = canonicalAll(in.SectionTypes, papermem.SectionTypes)
	in.ScopeSignals = canonicalAll(in.ScopeSignals, papermem.ScopeSignals)
	res, err := t.b.Recall(ctx, in)
	if err != nil {
		return nil, "", err
	}
	return res, renderSpans(res), nil
}

func (t *tools) recallPapers(ctx context.Context, in recallPapersInput) (*papersOutput, string, error) {
	ps, err := t.b.RecallPapersIn(ctx, papermem.PaperRecallRequest{Query: in.Query, Limit: in.Limit, Fill: in.Fill})
	if err != nil {
		return nil, "", err
	}
	if ps == nil {
		ps = []papermem.Paper{}
	}
	return &papersOutput{Papers: ps}, renderPapers(ps), nil
}

func (t *tools) storePaper(ctx context.Context, in api.PaperRequest) (*api.StorePaperResponse, string, error) {
	res, err := t.b.StorePaper(ctx, in)
	if err != nil {
		return nil, "", err
	}
	text := fmt.Sprintf("Stored paper doi:%s %q", res.DOI, res.Title)
	if res.Report != nil {
		text += ": " + reportCounts(res.Report)
	}
	if !res.Cached {
		text += "; no full text"
	}
	return res, text + ".", nil
}

func (t *tools) paperExists(ctx context.Context, in doiInput) (*existsOutput, string, error) {
	ok, err := t.b.PaperExists(ctx, in.DOI)
	if err != nil {
		return nil, "", err
	}
	doi := papermem.NormalizeDOI(in.DOI) // a DOI: the backend refuses any other
	text := fmt.Sprintf("doi:%s is in memory.", doi)
	if !ok {
		text = fmt.Sprintf("doi:%s is not in memory.", doi)
	}
	return &existsOutput{DOI: doi, Exists: ok}, text, nil
}

func (t *tools) cite(ctx context.Context, in citeInput) (*citeOutput, string, error) {
	format := canonical(strings.TrimSpace(in.Format), papermem.CitationFormats)
	if format == "" {
		format = papermem.DefaultCitationFormat
	}
	text, err := t.b.Cite(ctx, in.DOI, format)
	if err != nil {
		return nil, "", err
	}
	return &citeOutput{DOI: papermem.NormalizeDOI(in.DOI), Format: format, Citation: text}, text, nil
}

func (t *tools) fetchPaper(ctx context.Context, in doiInput) (*papermem.FetchResult, string, error) {
	res, err := t.b.FetchPaper(ctx, in.DOI)
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("doi:%s: full text in memory (%d bytes, from %s).", res.DOI, res.Bytes, res.Source), nil
}

func (t *tools) ingestContent(ctx context.Context, in ingestContentInput) (*papermem.IngestReport, string, error) {
	return t.ingestFile(ctx, ingestFileInput{Name: in.Name, ContentBase64: in.ContentBase64, Domain: in.Domain, DOI: in.DOI, Title: in.Title})
}

func (t *tools) ingestFile(ctx context.Context, in ingestFileInput) (*papermem.IngestReport, string, error) {
	opts := papermem.IngestOptions{Domain: in.Domain, DOI: in.DOI, Title: in.Title}
	var rep *papermem.IngestReport
	var err error
	switch {
	case in.Path != "" && in.ContentBase64 != "":
		return nil, "", papermem.Errorf(papermem.EINVALID, "Give path or content_base64, not both.")
	case in.Path != "":
		f, ferr := os.Open(in.Path)
		if ferr != nil {
			return nil, "", papermem.Errorf(papermem.EINVALID, "Cannot open %s: %v.", in.Path, ferr)
		}
		defer f.Close()
		name := in.Name
		if name == "" {
			name = filepath.Base(in.Path)
		}
		rep, err = t.b.Ingest(ctx, name, f, opts)
	default:
		if in.Name == "" || in.ContentBase64 == "" {
			return nil, "", papermem.Errorf(papermem.EINVALID, "Give the file's name and content_base64.")
		}
		data, derr := decodeContent(in.ContentBase64)
		if derr != nil {
			return nil, "", derr
		}
		rep, err = t.b.Ingest(ctx, in.Name, bytes.NewReader(data), opts)
	}
	if err != nil {
		return nil, "", err
	}
	return rep, renderReport(rep), nil
}

// decodeContent decodes a tool's content_base64, standard base64
// (EINVALID otherwise).
func decodeContent(content string) ([]byte, error) {
	data, err := base64.StdEncoding.DecodeString(content)
	if err != nil {
		return nil, papermem.Errorf(papermem.EINVALID, "content_base64 is not valid base64: %v.", err)
	}
	return data, nil
}

func (t *tools) storeAnalysis(ctx context.Context, in api.AnalysisRequest) (*api.StoredAnalysis, string, error) {
	res, err := t.b.StoreAnalysis(ctx, in)
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Stored the analysis of doi:%s (%d claims).", res.DOI, res.ClaimsExtracted), nil
}

func (t *tools) getAnalysis(ctx context.Context, in doiInput) (*papermem.Analysis, string, error) {
	a, err := t.b.Analysis(ctx, in.DOI)
	if err != nil {
		return nil, "", err
	}
	return a, fmt.Sprintf("Analysis of doi:%s (updated %s):\n\n%s", a.DOI, a.UpdatedAt, a.Markdown), nil
}

func (t *tools) remember(ctx context.Context, in api.RememberRequest) (*papermem.Remembered, string, error) {
	res, err := t.b.Remember(ctx, in)
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Remembered as %q (node %d).", res.Key, res.NodeID), nil
}

func (t *tools) recallUser(ctx context.Context, in api.UserRecallRequest) (*papermem.RecallResult, string, error) {
	in.BudgetTokens = budget(in.BudgetTokens)
	res, err := t.b.RecallUser(ctx, in)
	if err != nil {
		return nil, "", err
	}
	return res, renderSpans(res), nil
}

func (t *tools) forget(ctx context.Context, in forgetInput) (*api.DeletedResponse, string, error) {
	res, err := t.b.Forget(ctx, in.Key)
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Forgot %q.", res.Deleted), nil
}

func (t *tools) linkSession(ctx context.Context, in api.LinkRequest) (*papermem.SessionLinks, string, error) {
	res, err := t.b.LinkSession(ctx, in)
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Session %s linked to %d papers and %d claims.", res.SessionID, res.LinkedPapers, res.LinkedClaims), nil
}

func (t *tools) exportSession(ctx context.Context, in api.ExportRequest) (*papermem.Exported, string, error) {
	res, err := t.b.ExportSession(ctx, in)
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Exported the record of session %s.", res.SessionID), nil
}

func (t *tools) graph(ctx context.Context, in graphInput) (*papermem.Subgraph, string, error) {
	g, err := t.b.Graph(ctx, in.SeedSession, in.Hops)
	if err != nil {
		return nil, "", err
	}
	return g, renderGraph(g), nil
}
