package papermem

import (
	"context"
	"errors"
	"fmt"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/origin"
	"github.com/papermem/papermem/internal/store"
)

// Citation graph limits.
const (
	// MaxReferences and MaxCiters bound the links kept of one paper: the
	// first references its origin lists, and the first citing works
	// OpenAlex pages through. The origins' own counts are reported as
	// CitationList.Total.
	MaxReferences = 500
	MaxCiters     = 500
	// DefaultCitationLimit is Related's and Gaps's limit when none is
	// given; MaxCitationLimit the largest accepted.
	DefaultCitationLimit = 20
	MaxCitationLimit     = 100
)

// Citation link states (CitationList.Status).
const (
	CitationsFetched    = "fetched"     // read from the origins at FetchedAt
	CitationsUnknown    = "unknown"     // no origin knows the DOI
	CitationsNotFetched = "not_fetched" // never read: origins off, or a paper with a local id
)

// CitedWork is a work at the other end of a paper's citation link: one of its
// references, or a work citing it.
type CitedWork = api.CitedWork

// CitationList is one direction of a paper's citation links.
type CitationList = api.CitationList

// CitationOptions tune References and Citations. The zero value reads
// what is stored, fetching a paper's links only if they never were.
type CitationOptions struct {
	// Refresh asks the origins again (their day-long cache skipped) and
	// replaces the stored links; false reads what is stored.
	Refresh bool
	// StoredOnly never asks the origins: links never fetched read as
	// CitationsNotFetched (a page that must not wait on the origins).
	// Refresh wins over it.
	StoredOnly bool
}

// References returns the works the paper doi cites. Links never fetched
// are fetched first (as FetchCitations) when origins are configured.
// Errors: EINVALID (also a refresh without origins, or of a paper with a
// local id), ENOTFOUND (no such paper in the workspace), EUPSTREAM (a
// fetch failed: the stored links, if any, are kept).
func (w *Workspace) References(ctx context.Context, doi string, o CitationOptions) (_ *CitationList, err error) {
	defer translate(&err)
	return w.citationList(ctx, doi, store.Reference, o)
}

// Citations returns the works citing the paper doi, as OpenAlex knows
// them (none for a paper OpenAlex does not know). Otherwise as References.
func (w *Workspace) Citations(ctx context.Context, doi string, o CitationOptions) (_ *CitationList, err error) {
	defer translate(&err)
	return w.citationList(ctx, doi, store.Citer, o)
}

func (w *Workspace) citationList(ctx context.Context, doi, dir string, o CitationOptions) (*CitationList, error) {
	d, pid, err := w.paperRow(ctx, doi)
	if err != nil {
		return nil, err
	}
	f, err := store.CitationFetchOf(ctx, w.m.db, w.id, pid)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("citation links of %s: %w", d, err)
	}
	switch {
	case o.Refresh && !w.canFetchCitations(d):
		return nil, cannotFetchCitations(w.m.origins == nil, d)
	case o.Refresh || f == nil && !o.StoredOnly && w.canFetchCitations(d):
		ff, err := w.fetchCitations(ctx, d, o.Refresh)
		if err != nil {
			return nil, err
		}
		f = ff.CitationFetch
	}
	out := &CitationList{DOI: d, Works: []CitedWork{}, Status: CitationsNotFetched}
	if f == nil {
		return out, nil
	}
	links, err := store.CitationLinks(ctx, w.m.db, w.id, pid, dir)
	if err != nil {
		return nil, fmt.Errorf("citation links of %s: %w", d, err)
	}
	for _, l := range links {
		out.Works = append(out.Works, CitedWork{DOI: l.DOI, Title: l.Title, Year: l.Year, InMemory: l.InMemory, OpenAlexID: l.OpenAlexID, Text: l.Text})
	}
	out.Status, out.FetchedAt = CitationsFetched, f.FetchedAt
	if f.Status == CitationsUnknown {
		out.Status = CitationsUnknown
	}
	out.Total, out.Source = f.CitersTotal, f.CitersFrom
	if dir == store.Reference {
		out.Total, out.Source = f.RefsTotal, f.RefsFrom
	}
	out.Total = max(out.Total, len(out.Works))
	return out, nil
}

// paperRow normalises doi and returns it with its paper's row id.
// Errors: EINVALID, ENOTFOUND.
func (w *Workspace) paperRow(ctx context.Context, doi string) (string, int64, error) {
	d := NormalizeDOI(doi)
	if d == "" {
		return "", 0, Errorf(EINVALID, "%q is not a DOI.", doi)
	}
	pid, err := store.PaperID(ctx, w.m.db, w.id, d)
	if err != nil {
		return "", 0, dbError(err, "Paper "+d+" is not in memory.")
	}
	return d, pid, nil
}

// canFetchCitations reports whether the links of the paper d can be
// fetched: origins are configured and d is a DOI, not a local id.
func (w *Workspace) canFetchCitations(d string) bool {
	return w.m.origins != nil && !isLocalID(d)
}

// queuesCitations reports whether storing the paper d queues its
// citations job.
func (w *Workspace) queuesCitations(d string) bool {
	return w.canFetchCitations(d) && w.m.origins.citations
}

// CitationFetch reports what FetchCitations stored.
type CitationFetch struct {
	DOI        string `json:"doi"`
	Status     string `json:"status"` // CitationsFetched or CitationsUnknown
	Source     string `json:"source"` // where the references came from: "openalex", "crossref" or ""
	References int    `json:"references"`
	Citers     int    `json:"citers"`
	FetchedAt  string `json:"fetched_at"`
}

// FetchCitations reads the citation links of the paper doi from its
// origins and replaces the stored ones: its references (OpenAlex's
// referenced_works, else Crossref's reference list) and the works citing
// it (OpenAlex), at most MaxReferences and MaxCiters, each with DOI,
// title and year as the origins give them. A DOI no origin knows is
// recorded as such, with no links. The origins' answers are taken from
// their day-long cache unless refresh. This is the whole work of one
// paper's citation job, and what a refresh does.
//
// Errors: EINVALID (no origins configured, or a paper with a local id),
// ENOTFOUND (no such paper), EUPSTREAM (an origin failed: the stored
// links are kept).
func (w *Workspace) FetchCitations(ctx context.Context, doi string, refresh bool) (_ *CitationFetch, err error) {
	defer translate(&err)
	d, _, err := w.paperRow(ctx, doi)
	if err != nil {
		return nil, err
	}
	if !w.canFetchCitations(d) {
		return nil, cannotFetchCitations(w.m.origins == nil, d)
	}
	f, err := w.fetchCitations(ctx, d, refresh)
	if err != nil {
		return nil, err
	}
	return &CitationFetch{DOI: d, Status: f.Status, Source: f.RefsFrom, References: f.refs, Citers: f.citers, FetchedAt: f.FetchedAt}, nil
}

// cannotFetchCitations is the error for a fetch without origins (off) or
// of a paper with a local id d.
func cannotFetchCitations(off bool, d string) error {
	if off {
		return Errorf(EINVALID, "Citation links cannot be read: the origins are off (PAPERMEM_ORIGINS=off); what is stored is served without refresh.")
	}
	return Errorf(EINVALID, "Paper %s has no DOI: its citation links cannot be fetched.", d)
}

// fetched is a stored fetch with the numbers of links kept.
type fetched struct {
	*store.CitationFetch
	refs, citers int
}

// fetchCitations asks the origins for the links of paper d and stores
// them; the request to the origins is made before the write begins.
func (w *Workspace) fetchCitations(ctx context.Context, d string, refresh bool) (*fetched, error) {
	links, err := w.m.origins.client.Links(ctx, d, origin.LinkLimits{MaxReferences: MaxReferences, MaxCiters: MaxCiters}, refresh)
	f := &store.CitationFetch{Status: CitationsFetched, FetchedAt: w.m.nowString()}
	switch {
	case errors.Is(err, origin.ErrNotFound), errors.Is(err, origin.ErrInvalid):
		f.Status, links = CitationsUnknown, &origin.Links{}
	case err != nil:
		return nil, originError(err, "the citation links of doi:"+d, linksInstead)
	}
	f.RefsFrom, f.CitersFrom = links.ReferencesFrom, links.CitersFrom
	f.RefsTotal, f.CitersTotal = links.ReferencesTotal, links.CitersTotal
	refs, citers := storedLinks(links.References), storedLinks(links.Citers)
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		pid, err := store.PaperID(ctx, tx, w.id, d)
		if err != nil {
			return dbError(err, "Paper "+d+" is not in memory.")
		}
		return store.ReplaceCitationLinks(ctx, tx, w.id, pid, *f, refs, citers)
	})
	if err != nil {
		return nil, err
	}
	return &fetched{CitationFetch: f, refs: len(refs), citers: len(citers)}, nil
}

// storedLinks converts the origins' works for the store, each keyed by
// its DOI, else its OpenAlex id.
func storedLinks(ws []origin.LinkedWork) []store.CitationLink {
	out := make([]store.CitationLink, 0, len(ws))
	for _, x := range ws {
		l := store.CitationLink{DOI: NormalizeDOI(x.DOI), OpenAlexID: x.OpenAlexID, Title: x.Title, Year: x.Year, Text: x.Text}
		switch {
		case l.DOI != "":
			l.WorkKey = l.DOI
		case l.OpenAlexID != "":
			l.WorkKey = "openalex:" + l.OpenAlexID
		}
		out = append(out, l)
	}
	return out
}

// queueCitations queues, in the transaction tx storing the paper d (row
// id pid), the job that reads its citation links (runCitations), when
// origins are configured without NoCitations, d is a DOI, and its links
// were never read (or fresh, a store with Refresh, asks for them again).
// The store itself never waits on the origins for them.
func (w *Workspace) queueCitations(ctx context.Context, tx *store.Tx, pid int64, d string, fresh bool) error {
	if !w.queuesCitations(d) {
		return nil
	}
	if !fresh {
		if read, err := citationsRead(ctx, tx, w.id, pid); read || err != nil {
			return err
		}
	}
	return store.Enqueue(ctx, tx, jobCitations, w.id, d, jobArgs(fresh), w.m.now())
}

// runCitations is the citations job: it reads the links of paper
// j.Subject of workspace j.Org from the origins and stores them, unless
// they were read since it was queued (a reader asked first) and it is not
// fresh. A paper deleted meanwhile ends the job.
func (m *Memory) runCitations(ctx context.Context, j store.Job) error {
	w := m.Workspace(j.Org)
	fresh := j.Args == metadataFresh
	if !fresh {
		pid, err := store.PaperID(ctx, m.db, w.id, j.Subject)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if read, err := citationsRead(ctx, m.db, w.id, pid); read || err != nil {
			return err
		}
	}
	_, err := w.fetchCitations(ctx, j.Subject, fresh)
	if ErrorCode(err) == ENOTFOUND {
		return nil
	}
	return err
}

// citationsRead reports whether the citation links of org's paper pid
// were ever read (a fetch is stored).
func citationsRead(ctx context.Context, q store.Querier, org string, pid int64) (bool, error) {
	_, err := store.CitationFetchOf(ctx, q, org, pid)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// CitationRelated is a paper of the workspace related to another by
// citations.
type CitationRelated = api.CitationRelated

// Related returns the workspace's papers related to the paper doi by
// citations, best first (Score, then DOI), at most limit (0 means
// DefaultCitationLimit, at most MaxCitationLimit). Only papers in memory
// are listed. Links of doi never fetched are fetched first when origins
// are configured. Errors: EINVALID, ENOTFOUND, EUPSTREAM.
func (w *Workspace) Related(ctx context.Context, doi string, limit int) (_ []CitationRelated, err error) {
	defer translate(&err)
	n, err := citationLimit(limit)
	if err != nil {
		return nil, err
	}
	d, pid, err := w.paperRow(ctx, doi)
	if err != nil {
		return nil, err
	}
	if w.canFetchCitations(d) {
		read, err := citationsRead(ctx, w.m.db, w.id, pid)
		if err != nil {
			return nil, err
		}
		if !read {
			if _, err := w.fetchCitations(ctx, d, false); err != nil {
				return nil, err
			}
		}
	}
	rows, err := store.CitationRelated(ctx, w.m.db, w.id, d, n)
	if err != nil {
		return nil, fmt.Errorf("related papers of %s: %w", d, err)
	}
	out := make([]CitationRelated, 0, len(rows))
	for _, r := range rows {
		out = append(out, CitationRelated{DOI: r.DOI, Title: r.Title, Year: r.Year, Coupling: r.Coupling, CoCitation: r.CoCitation,
			Score: float64(r.Coupling + r.CoCitation)})
	}
	return out, nil
}

// CitationGap is a work the workspace's papers cite that it does not hold.
type CitationGap = api.CitationGap

// Gaps returns the works the workspace's papers cite and it does not
// hold, most cited first (then by DOI or OpenAlex id), at most limit (0
// means DefaultCitationLimit, at most MaxCitationLimit). Only stored
// links count: nothing is fetched. Errors: EINVALID.
func (w *Workspace) Gaps(ctx context.Context, limit int) (_ []CitationGap, err error) {
	defer translate(&err)
	n, err := citationLimit(limit)
	if err != nil {
		return nil, err
	}
	rows, err := store.CitationGaps(ctx, w.m.db, w.id, n)
	if err != nil {
		return nil, fmt.Errorf("citation gaps: %w", err)
	}
	out := make([]CitationGap, 0, len(rows))
	for _, g := range rows {
		out = append(out, CitationGap{DOI: g.DOI, Title: g.Title, Year: g.Year, OpenAlexID: g.OpenAlexID, Count: len(g.CitedBy), CitedBy: g.CitedBy})
	}
	return out, nil
}

func citationLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultCitationLimit, nil
	case limit < 0 || limit > MaxCitationLimit:
		return 0, Errorf(EINVALID, "limit must be between 1 and %d.", MaxCitationLimit)
	}
	return limit, nil
}
