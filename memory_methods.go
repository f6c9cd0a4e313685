package papermem

import (
	"context"
	"io"
)

// The Memory's methods that act on one workspace act on its default
// workspace (Options.Workspace), as Workspace(id)'s same methods act on
// workspace id: each is documented in full on Workspace.

// Account returns the workspace's account view. A workspace never written
// to shows the defaults on the Starter plan.
func (m *Memory) Account(ctx context.Context) (*Account, error) {
	return m.ws.Account(ctx)
}

// UpdateAccount merges the given objects into the account and may move it
// to a free plan, all in one transaction: on any error nothing changes.
// Errors: EINVALID (a malformed object or field, or a paid plan, which
// needs a checkout: package hosted), EUNKNOWNPLAN.
func (m *Memory) UpdateAccount(ctx context.Context, up AccountUpdate) (*Account, error) {
	return m.ws.UpdateAccount(ctx, up)
}

// Plan returns the workspace's plan; Starter for a workspace never
// written to.
func (m *Memory) Plan(ctx context.Context) (Plan, error) {
	return m.ws.Plan(ctx)
}

// APIKeys lists the workspace's keys, oldest first, without values.
func (m *Memory) APIKeys(ctx context.Context) ([]APIKey, error) {
	return m.ws.APIKeys(ctx)
}

// StoreAnalysis stores or replaces the analysis of a.DOI and indexes its
// markdown as Analysis nodes (and the claims in it as Claim nodes). When
// a.ClaimsExtracted is zero it is set to the number of claims found. The
// paper itself need not be in memory. Errors: EINVALID.
func (m *Memory) StoreAnalysis(ctx context.Context, a Analysis) (*Analysis, error) {
	return m.ws.StoreAnalysis(ctx, a)
}

// Analysis returns the analysis of the paper with the DOI. Errors:
// EINVALID, ENOTFOUND.
func (m *Memory) Analysis(ctx context.Context, doi string) (*Analysis, error) {
	return m.ws.Analysis(ctx, doi)
}

// Invoices returns the workspace's invoices, newest first.
func (m *Memory) Invoices(ctx context.Context) ([]Invoice, error) {
	return m.ws.Invoices(ctx)
}

// Billing returns the workspace's bill for the current calendar month:
// the plan fee plus overage, from the usage metered so far (usage.go),
// exact: what the meter counted and had not written is written first. An
// embedded Memory meters nothing, so its bill is the plan fee alone.
// Errors: those of a write (the meter's), and none beyond I/O.
func (m *Memory) Billing(ctx context.Context) (*Bill, error) {
	return m.ws.Billing(ctx)
}

// References returns the works the paper doi cites. Links never fetched
// are fetched first (as FetchCitations) when origins are configured.
// Errors: EINVALID (also a refresh without origins, or of a paper with a
// local id), ENOTFOUND (no such paper in the workspace), EUPSTREAM (a
// fetch failed: the stored links, if any, are kept).
func (m *Memory) References(ctx context.Context, doi string, o CitationOptions) (*CitationList, error) {
	return m.ws.References(ctx, doi, o)
}

// Citations returns the works citing the paper doi, as OpenAlex knows
// them (none for a paper OpenAlex does not know). Otherwise as References.
func (m *Memory) Citations(ctx context.Context, doi string, o CitationOptions) (*CitationList, error) {
	return m.ws.Citations(ctx, doi, o)
}

// FetchCitations reads the citation links of the paper doi from its
// origins and replaces the stored ones: its references (OpenAlex's
// referenced_works, else Crossref's reference list) and the works citing
// it (OpenAlex), at most MaxReferences and MaxCiters, each with DOI,
// title and year as the origins give them. A DOI no origin knows is
// recorded as such, with no links. The origins' answers are taken from
// their day-long cache unless refresh. This is the whole work of one
// paper's citation job, and what a refresh does.
func (m *Memory) FetchCitations(ctx context.Context, doi string, refresh bool) (*CitationFetch, error) {
	return m.ws.FetchCitations(ctx, doi, refresh)
}

// Related returns the workspace's papers related to the paper doi by
// citations, best first (Score, then DOI), at most limit (0 means
// DefaultCitationLimit, at most MaxCitationLimit). Only papers in memory
// are listed. Links of doi never fetched are fetched first when origins
// are configured. Errors: EINVALID, ENOTFOUND, EUPSTREAM.
func (m *Memory) Related(ctx context.Context, doi string, limit int) ([]CitationRelated, error) {
	return m.ws.Related(ctx, doi, limit)
}

// Gaps returns the works the workspace's papers cite and it does not
// hold, most cited first (then by DOI or OpenAlex id), at most limit (0
// means DefaultCitationLimit, at most MaxCitationLimit). Only stored
// links count: nothing is fetched. Errors: EINVALID.
func (m *Memory) Gaps(ctx context.Context, limit int) ([]CitationGap, error) {
	return m.ws.Gaps(ctx, limit)
}

// Cite renders the stored paper with the DOI as a reference in format
// (BibTeX, RIS or CSL-JSON; case ignored, "" means DefaultCitationFormat),
// from what memory holds of it: title, authors, year, source URL, journal
// and work type (Crossref's: a journal-article, or a paper of no type, is a BibTeX
// @article, a proceedings-article @inproceedings, anything else @misc). Nothing is
// looked up elsewhere. A paper stored without a DOI (a local: id) is
// cited without one. The BibTeX key, also the CSL-JSON id, is the first
// author's family name, the year and the title's first significant word,
// in lower-case ASCII ("doe2020vitamin"). Errors: EINVALID (a format not
// in CitationFormats, or a DOI that is not one), ENOTFOUND.
func (m *Memory) Cite(ctx context.Context, doi, format string) (*Citation, error) {
	return m.ws.Cite(ctx, doi, format)
}

// Documents lists the workspace's documents, most recently ingested first,
// at most limit of them (0 means DefaultPaperLimit; at most MaxPaperLimit).
// Errors: EINVALID.
func (m *Memory) Documents(ctx context.Context, limit int) ([]Document, error) {
	return m.ws.Documents(ctx, limit)
}

// ExportSession stores the record of a session and links the session to
// its recalled papers and claims as LinkSession does (unknown DOIs become
// paper stubs). There is one record per session: exporting a session again
// replaces its record, while links only accumulate. Unlike LinkSession, a
// recalled claim id that names no node of the workspace is kept in the
// record but not linked, since the record reports what happened and a
// claim's node may have been re-indexed since. Errors: EINVALID.
func (m *Memory) ExportSession(ctx context.Context, rec SessionRecord) (*Exported, error) {
	return m.ws.ExportSession(ctx, rec)
}

// Exports returns session records matching q, newest first (by created_at,
// then latest written), one page at a time. Pages are cut by a cursor, so
// records written meanwhile neither repeat nor shift later pages.
// Errors: EINVALID (bad limit, cursor, or Since after Until).
func (m *Memory) Exports(ctx context.Context, q ExportQuery) (*ExportPage, error) {
	return m.ws.Exports(ctx, q)
}

// StreamExports calls fn with each session record matching q, newest
// first, reading them a page at a time so that memory stays bounded
// whatever their number; q.Limit caps the records (0 means all). An error
// from fn stops the stream and is returned. Errors: EINVALID and fn's.
func (m *Memory) StreamExports(ctx context.Context, q ExportQuery, fn func(*SessionRecord) error) error {
	return m.ws.StreamExports(ctx, q, fn)
}

// SessionActivities returns the session activity of every user who owns a
// session in the workspace, keyed by user id. A session's owner is the
// first user id given when linking or exporting it. Users without sessions
// are absent. The users listing of package hosted adds it to their
// activity.
func (m *Memory) SessionActivities(ctx context.Context) (map[string]*SessionActivity, error) {
	return m.ws.SessionActivities(ctx)
}

// FetchPaper makes sure the paper's full text is in memory: cache first,
// else a download from its source_url through Options.Fetcher or, for a
// paper without one, of an open-access copy its origins know of
// (Options.Origins: Unpaywall's best location, then OpenAlex's, then
// arXiv's), which is then ingested with IngestFile (PDF, Markdown or plain
// text, by content type). Errors: EINVALID (also an unreadable download),
// ENOTFOUND (paper unknown, or no text and nowhere to fetch it from: no
// source_url and no open-access copy), EUPSTREAM (origin failed),
// ETOOLARGE.
func (m *Memory) FetchPaper(ctx context.Context, doi string) (*FetchResult, error) {
	return m.ws.FetchPaper(ctx, doi)
}

// Materialize recomputes the workspace's related edges: after it, two
// sessions are joined by exactly one related edge when the Jaccard index of
// their paper sets, |A∩B| / |A∪B|, is at least threshold, and the edge's
// weight is that index. Edges that exist are kept (re-weighted when their
// index changed), edges now below the threshold are removed, so a second
// run with the same links creates nothing. Threshold 0 means
// DefaultRelatedThreshold; otherwise it must lie in (0, 1].
func (m *Memory) Materialize(ctx context.Context, threshold float64) (*MaterializeResult, error) {
	return m.ws.Materialize(ctx, threshold)
}

// Graph returns the subgraph around session seed: the sessions, papers and
// claims within hops edges (0 means DefaultGraphHops, at most MaxGraphHops)
// and every edge between them. Only the workspace's own sessions are seen.
// Errors: EINVALID, ENOTFOUND (no such session in this workspace).
func (m *Memory) Graph(ctx context.Context, seed string, hops int) (*Subgraph, error) {
	return m.ws.Graph(ctx, seed, hops)
}

// Neighborhood returns the subgraph within hops edges of the node with id
// nodeID ("session:<id>", "paper:<doi>" or "claim:<node_id>"; see
// Subgraph). Hops 0 means DefaultGraphHops, at most MaxGraphHops. The
// search is breadth-first; it stops adding nodes at MaxGraphNodes and then
// reports Truncated. From a paper it reaches the sessions that use it,
// the linked claims that come from it, and the papers in memory it cites
// or that cite it (citation edges). Errors: EINVALID, ENOTFOUND.
func (m *Memory) Neighborhood(ctx context.Context, nodeID string, hops int) (*Subgraph, error) {
	return m.ws.Neighborhood(ctx, nodeID, hops)
}

// StartImport checks req, records the import and runs it in the
// background; Import reports its progress. A Zotero import asks the API
// once before it answers, so that a wrong key or library fails here and
// records nothing. Errors: EINVALID (a bad request, a file that does not
// parse, Zotero refusing the key or not knowing the library),
// EUNSUPPORTED (an unknown source), EUPSTREAM (Zotero unreachable).
func (m *Memory) StartImport(ctx context.Context, req ImportRequest) (*Import, error) {
	return m.ws.StartImport(ctx, req)
}

// RunImport is StartImport run in the caller's goroutine: it returns when
// the import is over, with its final state, calling progress (when not
// nil) as items are stored. An import that failed is returned with status
// failed, and no error.
func (m *Memory) RunImport(ctx context.Context, req ImportRequest, progress func(Import)) (*Import, error) {
	return m.ws.RunImport(ctx, req, progress)
}

// Import returns the import with the id. Errors: ENOTFOUND.
func (m *Memory) Import(ctx context.Context, id int64) (*Import, error) {
	return m.ws.Import(ctx, id)
}

// Imports lists the workspace's imports, newest first, at most limit (0
// means DefaultPaperLimit; at most MaxPaperLimit). Errors: EINVALID.
func (m *Memory) Imports(ctx context.Context, limit int) ([]Import, error) {
	return m.ws.Imports(ctx, limit)
}

// IngestFile reads a file and adds it to the workspace's memory. Its format
// comes from the extension of name (see IngestFormats); its text is
// extracted with its structure — pages, sheets and rows, sections — under
// a time limit (extract.DefaultTimeout) and a guard that turns any parser
// failure into an error.
func (m *Memory) IngestFile(ctx context.Context, name string, r io.Reader, opts IngestOptions) (*IngestReport, error) {
	return m.ws.IngestFile(ctx, name, r, opts)
}

// ListPapers returns a page of the workspace's papers, most recently added
// first, with their tags, collections and source. Errors: EINVALID (a
// limit out of range, a cursor not from ListPapers).
func (m *Memory) ListPapers(ctx context.Context, q PaperQuery) (*PaperPage, error) {
	return m.ws.ListPapers(ctx, q)
}

// DeleteDocument removes the document with the id ("doc:<n>", as
// Documents and IngestReport.DocID give it, or "<n>") and its passages
// from every index. Errors: EINVALID, ENOTFOUND.
func (m *Memory) DeleteDocument(ctx context.Context, id string) error {
	return m.ws.DeleteDocument(ctx, id)
}

// ID returns the workspace id.
func (m *Memory) ID() string {
	return m.ws.ID()
}

// StorePaper stores or updates a paper and indexes its title, abstract,
// passages and claims. Re-storing a DOI updates the paper in place; fields
// left empty keep their stored values. With Options.Origins, a paper
// without a DOI gets the one Crossref matches to its title, and what the
// paper lacks (title, authors, year, journal, open access) is filled from
// its origins, which also say whether it is retracted; a paper with a
// DOI alone fails with EUPSTREAM when no origin answers, and anything
// else is stored whatever they answer. Errors: EINVALID, EUPSTREAM.
func (m *Memory) StorePaper(ctx context.Context, in PaperInput) (*Paper, *IngestReport, error) {
	return m.ws.StorePaper(ctx, in)
}

// Paper returns the paper with the given DOI. Errors: EINVALID, ENOTFOUND.
func (m *Memory) Paper(ctx context.Context, doi string) (*Paper, error) {
	return m.ws.Paper(ctx, doi)
}

// PaperExists reports whether the workspace holds the paper with the DOI.
// Errors: EINVALID.
func (m *Memory) PaperExists(ctx context.Context, doi string) (bool, error) {
	return m.ws.PaperExists(ctx, doi)
}

// DeletePaper removes the paper, its passages, claims and analysis from
// every index. Errors: EINVALID, ENOTFOUND.
func (m *Memory) DeletePaper(ctx context.Context, doi string) error {
	return m.ws.DeletePaper(ctx, doi)
}

// RecallPapers ranks the workspace's papers for a query, best first, each
// DOI once, with Score set: a paper ranks as its title and abstract node
// does in a hybrid search of those nodes alone (title words counting twice,
// word weights taken over the papers), and scores on the relevance scale
// of Span.Score: none when the best would score under MinScore, and none
// under MinSpanScore, so the list may be shorter than the limit, or empty.
// Errors: EINVALID.
func (m *Memory) RecallPapers(ctx context.Context, req PaperRecallRequest) ([]Paper, error) {
	return m.ws.RecallPapers(ctx, req)
}

// Papers lists the workspace's papers, most recently stored or updated
// first, at most limit of them (0 means DefaultPaperLimit; at most
// MaxPaperLimit). Errors: EINVALID.
func (m *Memory) Papers(ctx context.Context, limit int) ([]Paper, error) {
	return m.ws.Papers(ctx, limit)
}

// PaperSections returns the sections of the paper with the DOI, in
// reading order; a paper stored without text has none. Errors: EINVALID,
// ENOTFOUND.
func (m *Memory) PaperSections(ctx context.Context, doi string) ([]PaperSection, error) {
	return m.ws.PaperSections(ctx, doi)
}

// Recall returns the spans of the workspace's memory that best answer
// req.Question within req.BudgetTokens, only of the papers req.DOIs when
// it is set. Per-user memories are never included (see RecallUser).
// Errors: EINVALID.
func (m *Memory) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	return m.ws.Recall(ctx, req)
}

// LinkSession records that a session used papers and claims, creating the
// session on first use. Linking is idempotent: links that exist are kept,
// and re-linking reports the same counts. A DOI that names no paper of the
// workspace is recorded as a paper stub: a paper without title or text, so
// PaperExists reports true and Paper reports cached false until the paper
// is stored. A claim is any node id recall returned (claims, passages,
// paper heads, analyses, documents) except per-user memories; an id that
// names no such node of this workspace fails the call with EINVALID and
// nothing is written. Links to a paper disappear when it is deleted, and
// links to a claim when its paper is re-stored (its nodes get new ids).
// Errors: EINVALID.
func (m *Memory) LinkSession(ctx context.Context, l SessionLink) (*SessionLinks, error) {
	return m.ws.LinkSession(ctx, l)
}

// RecentSessions lists the ids of the workspace's sessions, most recently
// linked first, at most limit of them (0 means DefaultPaperLimit; at most
// MaxPaperLimit). Errors: EINVALID.
func (m *Memory) RecentSessions(ctx context.Context, limit int) ([]string, error) {
	return m.ws.RecentSessions(ctx, limit)
}

// Remember stores a memory of user; remembering an existing key replaces
// it in place. Errors: EINVALID.
func (m *Memory) Remember(ctx context.Context, user string, in NoteInput) (*Remembered, error) {
	return m.ws.Remember(ctx, user, in)
}

// Forget deletes the memory of user with key from every index. Errors:
// EINVALID, ENOTFOUND.
func (m *Memory) Forget(ctx context.Context, user, key string) error {
	return m.ws.Forget(ctx, user, key)
}

// RecallUser returns the memories of user that best answer the question,
// within the budget. Only that user's memories are searched. The ranking is
// made for conversation memories: names and rare words of the question
// weigh more than common ones (counted among the user's own memories), a
// question about time favours memories that say when, and a hit brings the
// memories just before and after it in its session (metadata "session")
// when the budget allows (see internal/recall/user.go). Errors: EINVALID.
func (m *Memory) RecallUser(ctx context.Context, user string, req UserRecallRequest) (*RecallResult, error) {
	return m.ws.RecallUser(ctx, user, req)
}
