package papermem

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/recall"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/tokens"
)

// Paper is a paper in a workspace's memory, keyed by its normalised DOI.
type Paper = api.Paper

// Paper.Metadata's values (package api defines them).
const (
	MetadataPending     = api.MetadataPending
	MetadataComplete    = api.MetadataComplete
	MetadataUnavailable = api.MetadataUnavailable
)

// Notice is an editorial notice about a paper, as its origins report it:
// Type is "retraction", "correction", "expression_of_concern", …; DOI is
// the notice's own DOI and Date its date (YYYY-MM-DD), when known.
type Notice = api.Notice

// PaperInput is a paper to store.
type PaperInput = api.PaperInput

// IngestReport summarises what a store or ingest call added.
type IngestReport = api.IngestReport

// resolveDOI picks the paper's key: the given DOI, one found in the URL or
// the text, the one its origins give it (resolve: an arXiv URL's DOI or
// the DOI Crossref matches to the title, when origins are configured), or
// a local id from the title or URL.
func resolveDOI(in *PaperInput, resolve func(title string) string) (string, error) {
	if strings.TrimSpace(in.DOI) != "" {
		if d := NormalizeDOI(in.DOI); d != "" {
			return d, nil
		}
		return "", Errorf(EINVALID, "%q is not a DOI.", in.DOI)
	}
	if d := FindDOI(in.SourceURL); d != "" {
		return d, nil
	}
	head := in.Text
	if len(head) > 4000 {
		head = head[:4000]
	}
	if d := FindDOI(head); d != "" {
		return d, nil
	}
	if d := resolve(strings.TrimSpace(in.Title)); d != "" {
		return d, nil
	}
	switch {
	case strings.TrimSpace(in.Title) != "":
		return localID(in.Title), nil
	case strings.TrimSpace(in.SourceURL) != "":
		return localID(in.SourceURL), nil
	}
	return "", Errorf(EINVALID, "A paper needs a doi, a title or a source_url.")
}

// StorePaper stores or updates a paper and indexes its title, abstract,
// passages and claims. Re-storing a DOI updates the paper in place; fields
// left empty keep their stored values. With Options.Origins, a paper
// without a DOI gets the one Crossref matches to its title, and what the
// paper lacks (title, authors, year, journal, open access) is filled from
// its origins, which also say whether it is retracted; a paper with a
// DOI alone fails with EUPSTREAM when no origin answers, and anything
// else is stored whatever they answer. Errors: EINVALID, EUPSTREAM.
func (w *Workspace) StorePaper(ctx context.Context, in PaperInput) (_ *Paper, _ *IngestReport, err error) {
	defer translate(&err)
	return w.storePaperInput(ctx, in, filed{})
}

// filed is what an import knows of a paper beyond a PaperInput
// (imports.go): its venue, and the library it is filed in.
type filed struct {
	journal string        // the venue, from an imported item
	filing  *store.Filing // the paper's source, tags and collections; nil for none
}

// storePaperInput is StorePaper, of a paper an import may have filed.
func (w *Workspace) storePaperInput(ctx context.Context, in PaperInput, f filed) (_ *Paper, _ *IngestReport, err error) {
	defer translate(&err)
	start := time.Now()
	// The cheap checks first: resolving the DOI may ask Crossref.
	if in.Year < 0 || in.Year > 9999 {
		return nil, nil, Errorf(EINVALID, "year %d is out of range.", in.Year)
	}
	if !utf8.ValidString(in.Text) || !utf8.ValidString(in.Title) {
		return nil, nil, Errorf(EINVALID, "Paper text must be UTF-8.")
	}
	// What the store waits for at the origins, if anything, it waits for
	// within one deadline: a title alone's DOI, a DOI alone's metadata.
	octx, cancel := ctx, context.CancelFunc(func() {})
	if w.m.origins != nil {
		octx, cancel = context.WithTimeout(ctx, w.m.origins.deadline)
	}
	defer cancel()
	doi, err := resolveDOI(&in, func(title string) string {
		return w.resolveAtOrigins(octx, in.SourceURL, title, strings.TrimSpace(in.Text) == "")
	})
	if err != nil {
		return nil, nil, err
	}
	old, err := w.paper(ctx, w.m.db, doi)
	if err != nil && ErrorCode(err) != ENOTFOUND {
		return nil, nil, err
	}
	p := mergePaper(old, doi, in, f)
	text := in.Text
	if text == "" && old != nil {
		text = old.text
	}
	w.planMetadata(p, in.Refresh)
	if p.Title == "" && text == "" && p.Metadata == store.MetadataPending {
		// A DOI alone: nothing to store until its origins answer.
		if err := w.fillNow(octx, p, in.Refresh); err != nil {
			return nil, nil, err
		}
	}
	sections := textSections(text)
	rep := &IngestReport{DocID: doi, Kind: KindPaper, Format: "text", CharsRead: utf8.RuneCountInString(text), Sections: len(sections)}
	if err := w.storePaper(ctx, p, text, sections, rep); err != nil {
		return nil, nil, err
	}
	w.countPaper(len(in.Text))
	rep.ElapsedMS = time.Since(start).Milliseconds()
	return &p.Paper, rep, nil
}

// storePaper writes paper p with its full text in one transaction and
// replaces its nodes with those indexed from sections, whose offsets cite
// text. It fills rep's node and claim counts. StorePaper and IngestFile
// both store papers through it.
func (w *Workspace) storePaper(ctx context.Context, p *storedPaper, text string, sections []extract.Section, rep *IngestReport) error {
	ns := paperNodes(p, sections)
	if err := w.m.embedParallel(ctx, ns); err != nil {
		return err
	}
	row, nodes := &store.Paper{DOI: p.DOI, Title: p.Title, Year: p.Year, Authors: p.Authors,
		OA: p.OA, SourceURL: p.SourceURL, Domain: p.Domain, Journal: p.Journal, Type: p.Type,
		Retracted: p.Retracted, Notices: convertNotices[store.Notice](p.Notices), Text: text, Metadata: p.Metadata}, stored(ns)
	err := w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		id, err := tx.StorePaper(ctx, w.id, row, nodes, w.m.nowString())
		if err != nil {
			return err
		}
		if err := w.queueCitations(ctx, tx, id, p.DOI, p.fresh); err != nil {
			return err
		}
		if p.filing != nil {
			if err := tx.FilePaper(ctx, w.id, p.DOI, p.filing); err != nil {
				return err
			}
		}
		if p.Metadata != store.MetadataPending {
			return nil
		}
		// The job is queued with the paper, in its transaction: a
		// paper stored pending always has its job.
		return store.Enqueue(ctx, tx, jobMetadata, w.id, p.DOI, jobArgs(p.fresh), w.m.now())
	})
	if err != nil {
		return err
	}
	if p.Metadata == store.MetadataPending || w.queuesCitations(p.DOI) {
		w.m.jobs.wake()
	}
	rep.NodesStored = len(ns)
	rep.ClaimsFound = countLabel(ns, LabelClaim)
	return nil
}

// storedPaper is a paper row with its id and full text; fresh asks its
// metadata job, when it is stored pending, to bypass the origins' cache.
type storedPaper struct {
	Paper
	id     int64
	text   string
	fresh  bool
	filing *store.Filing // written with the paper when set
}

func mergePaper(old *storedPaper, doi string, in PaperInput, f filed) *storedPaper {
	p := &storedPaper{Paper: Paper{DOI: doi, Authors: []string{}}}
	if old != nil {
		*p = *old
	}
	set := func(dst *string, v string) {
		if v = strings.TrimSpace(v); v != "" {
			*dst = v
		}
	}
	set(&p.Title, in.Title)
	set(&p.SourceURL, in.SourceURL)
	set(&p.Domain, in.Domain)
	set(&p.Journal, f.journal)
	p.filing = f.filing
	if in.Year != 0 {
		p.Year = in.Year
	}
	if len(in.Authors) > 0 {
		p.Authors = in.Authors
	}
	p.OA = p.OA || in.OA
	p.Cached = p.Cached || strings.TrimSpace(in.Text) != ""
	return p
}

// paperOf converts a papers row.
func paperOf(r *store.Paper) *storedPaper {
	return &storedPaper{Paper: Paper{DOI: r.DOI, Title: r.Title, Year: r.Year, Authors: r.Authors, OA: r.OA,
		SourceURL: r.SourceURL, Domain: r.Domain, Journal: r.Journal, Type: r.Type, Retracted: r.Retracted,
		Notices: convertNotices[Notice](r.Notices), Cached: r.Text != "", Metadata: r.Metadata}, id: r.ID, text: r.Text}
}

// convertNotices converts between Notice and store.Notice, which have the
// same fields.
func convertNotices[To, From Notice | store.Notice](ns []From) []To {
	var out []To
	for _, n := range ns {
		out = append(out, To(n))
	}
	return out
}

func (w *Workspace) paper(ctx context.Context, q store.Querier, doi string) (*storedPaper, error) {
	r, err := store.PaperByDOI(ctx, q, w.id, doi)
	if err != nil {
		return nil, dbError(err, "Paper "+doi+" is not in memory.")
	}
	return paperOf(r), nil
}

// Paper returns the paper with the given DOI. Errors: EINVALID, ENOTFOUND.
func (w *Workspace) Paper(ctx context.Context, doi string) (_ *Paper, err error) {
	defer translate(&err)
	p, err := w.paperByDOI(ctx, doi)
	if err != nil {
		return nil, err
	}
	if err := w.fileUnder(ctx, []*storedPaper{p}); err != nil {
		return nil, err
	}
	return &p.Paper, nil
}

// paperByDOI normalises doi and reads its paper. Errors: EINVALID,
// ENOTFOUND.
func (w *Workspace) paperByDOI(ctx context.Context, doi string) (*storedPaper, error) {
	d := NormalizeDOI(doi)
	if d == "" {
		return nil, Errorf(EINVALID, "%q is not a DOI.", doi)
	}
	return w.paper(ctx, w.m.db, d)
}

// PaperExists reports whether the workspace holds the paper with the DOI.
// Errors: EINVALID.
func (w *Workspace) PaperExists(ctx context.Context, doi string) (_ bool, err error) {
	defer translate(&err)
	d := NormalizeDOI(doi)
	if d == "" {
		return false, Errorf(EINVALID, "%q is not a DOI.", doi)
	}
	return store.PaperExists(ctx, w.m.db, w.id, d)
}

// DeletePaper removes the paper, its passages, claims and analysis from
// every index. Errors: EINVALID, ENOTFOUND.
func (w *Workspace) DeletePaper(ctx context.Context, doi string) (err error) {
	defer translate(&err)
	d := NormalizeDOI(doi)
	if d == "" {
		return Errorf(EINVALID, "%q is not a DOI.", doi)
	}
	return w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		// The workspace's lock first, as StorePaper takes it: a store of
		// the same paper on another server cannot slip nodes in between.
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		return dbError(tx.DeletePaper(ctx, w.id, d), "Paper "+d+" is not in memory.")
	})
}

// paperNodes builds a paper's nodes: one Paper node (title and abstract)
// followed by the passages and claims of its sections.
func paperNodes(p *storedPaper, sections []extract.Section) []node {
	body := indexNodes(sections, LabelPassage, p.Domain)
	head := p.Title
	if abs := abstract(sections, body); abs != "" {
		head = strings.TrimSpace(head + "\n" + abs)
	}
	if head == "" {
		return body
	}
	pn := node{parent: -1, Label: LabelPaper, SectionType: extract.TypeAbstract, Section: "Title and abstract",
		Domain: p.Domain, Text: head, Tokens: tokens.Count(head), CharEnd: utf8.RuneCountInString(head)}
	for i := range body {
		if body[i].parent >= 0 {
			body[i].parent++
		}
	}
	return append([]node{pn}, body...)
}

// maxAbstractTokens bounds the leading paragraph that stands for the
// abstract of a text without an abstract section (long structured abstracts
// run to 900 tokens).
const maxAbstractTokens = 1000

// abstract returns the text of the abstract section, or else the first
// paragraph of the text when it is at most maxAbstractTokens long (a
// paper's text given as its abstract is one paragraph), or else the first
// passage of the body.
func abstract(sections []extract.Section, body []node) string {
	for _, s := range sections {
		if s.Type == extract.TypeAbstract {
			return s.Text
		}
	}
	if len(sections) > 0 {
		first, _, _ := strings.Cut(sections[0].Text, "\n\n")
		if first = strings.TrimSpace(first); first != "" && tokens.Count(first) <= maxAbstractTokens {
			return first
		}
	}
	for _, n := range body {
		if n.Label == LabelPassage {
			return n.Text
		}
	}
	return ""
}

func countLabel(ns []node, label string) int {
	n := 0
	for _, x := range ns {
		if x.Label == label {
			n++
		}
	}
	return n
}

// Paper recall limits.
const (
	DefaultPaperLimit = 20  // papers RecallPapers returns when limit is 0
	MaxPaperLimit     = 100 // most papers RecallPapers returns
)

// PaperRecallRequest asks for the papers that best match a query.
type PaperRecallRequest = api.PaperRecallRequest

// RecallPapers ranks the workspace's papers for a query, best first, each
// DOI once, with Score set: a paper ranks as its title and abstract node
// does in a hybrid search of those nodes alone (title words counting twice,
// word weights taken over the papers), and scores on the relevance scale
// of Span.Score: none when the best would score under MinScore, and none
// under MinSpanScore, so the list may be shorter than the limit, or empty.
// Errors: EINVALID.
func (w *Workspace) RecallPapers(ctx context.Context, req PaperRecallRequest) (_ []Paper, err error) {
	defer translate(&err)
	text, limit := strings.TrimSpace(req.Query), req.Limit
	if text == "" {
		return nil, Errorf(EINVALID, "q is required.")
	}
	switch {
	case limit == 0:
		limit = DefaultPaperLimit
	case limit < 1 || limit > MaxPaperLimit:
		return nil, Errorf(EINVALID, "limit must be between 1 and %d.", MaxPaperLimit)
	}
	if err := validRetrieval(req.Retrieval); err != nil {
		return nil, err
	}
	scope := RecallRequest{Question: text, DOIs: req.DOIs, Tags: req.Tags, Collections: req.Collections}
	if err := validateRecall(&scope); err != nil {
		return nil, err
	}
	dois, ok, err := w.scopeDOIs(ctx, scope.DOIs, scope.Tags, scope.Collections)
	if err != nil || !ok {
		return []Paper{}, err
	}
	ps, err := w.m.recall.RecallPapers(ctx, recall.PaperRequest{Workspace: w.id, Query: text, Limit: limit,
		Fill: req.Fill, Retrieval: recall.Retrieval(req.Retrieval), DOIs: dois})
	if err != nil {
		return nil, w.recallError(err)
	}
	out := make([]Paper, len(ps))
	for i := range ps {
		out[i] = paperOf(&ps[i].Paper).Paper
		out[i].Score = ps[i].Score
	}
	return out, nil
}

// Papers lists the workspace's papers, most recently stored or updated
// first, at most limit of them (0 means DefaultPaperLimit; at most
// MaxPaperLimit). Errors: EINVALID.
func (w *Workspace) Papers(ctx context.Context, limit int) (_ []Paper, err error) {
	defer translate(&err)
	limit, err = listLimit(limit)
	if err != nil {
		return nil, err
	}
	rows, err := store.Papers(ctx, w.m.db, w.id, limit)
	if err != nil {
		return nil, fmt.Errorf("list papers: %w", err)
	}
	out := make([]Paper, 0, len(rows))
	for i := range rows {
		out = append(out, paperOf(&rows[i]).Paper)
	}
	return out, nil
}

// PaperSection is one section of a stored paper: its passages and the
// claims found in them, in reading order.
type PaperSection struct {
	Title    string   `json:"title"`
	Type     string   `json:"type"` // one of SectionTypes
	Passages []string `json:"passages"`
	Claims   []string `json:"claims"`
}

// PaperSections returns the sections of the paper with the DOI, in
// reading order; a paper stored without text has none. Errors: EINVALID,
// ENOTFOUND.
func (w *Workspace) PaperSections(ctx context.Context, doi string) (_ []PaperSection, err error) {
	defer translate(&err)
	p, err := w.paperByDOI(ctx, doi)
	if err != nil {
		return nil, err
	}
	d := p.DOI
	rows, err := store.NodesOfOwner(ctx, w.m.db, w.id, KindPaper, p.id, LabelPassage, LabelClaim)
	if err != nil {
		return nil, fmt.Errorf("sections of %q: %w", d, err)
	}
	out := []PaperSection{}
	at := map[[2]string]int{} // section title and type → index in out
	for _, r := range rows {
		key := [2]string{r.Section, r.SectionType}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, PaperSection{Title: r.Section, Type: r.SectionType, Passages: []string{}, Claims: []string{}})
		}
		s := &out[i]
		if r.Label == LabelClaim {
			s.Claims = append(s.Claims, r.Text)
		} else {
			s.Passages = append(s.Passages, r.Text)
		}
	}
	return out, nil
}

// listLimit checks the limit of a listing: 0 means DefaultPaperLimit, at
// most MaxPaperLimit. Errors: EINVALID.
func listLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultPaperLimit, nil
	case limit < 0 || limit > MaxPaperLimit:
		return 0, Errorf(EINVALID, "limit must be between 1 and %d.", MaxPaperLimit)
	}
	return limit, nil
}
