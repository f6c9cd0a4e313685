package papermem

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/papermem/papermem/internal/fetch"
	"github.com/papermem/papermem/internal/origin"
	"github.com/papermem/papermem/internal/store"
)

// OriginOptions configure the lookups of papers at their origins: Crossref
// (metadata, retractions, a title's DOI), Unpaywall and OpenAlex (open
// access copies, fallback metadata, retractions) and arXiv (preprints'
// PDFs). Each request sends one DOI or one title and the Contact address,
// nothing else. A nil *OriginOptions in Options means no origin is ever
// asked: papermem works offline.
type OriginOptions struct {
	// The services' base URLs. Empty means the public services:
	// https://api.crossref.org, https://api.unpaywall.org,
	// https://api.openalex.org and https://arxiv.org. A download from
	// one of these hosts may reach a private address (a stand-in on
	// the local network); every other download is guarded as Fetcher's.
	CrossrefURL, UnpaywallURL, OpenAlexURL, ArxivURL string

	// Contact is the e-mail address the services ask callers for:
	// Crossref's and OpenAlex's mailto, Unpaywall's email. Empty means
	// none is sent: Unpaywall is asked without one (the public service
	// refuses that, so open access then comes from OpenAlex and the
	// paper alone) and Crossref answers more slowly.
	Contact string

	// OpenAlexKey is an OpenAlex API key, sent to OpenAlex alone as its
	// api_key parameter and never logged. OpenAlex asks for one on list
	// requests (a paper's citing works, paged) beyond a small daily
	// allowance. Empty means none is sent.
	OpenAlexKey string

	// Timeout bounds each request. Zero means DefaultOriginTimeout.
	Timeout time.Duration

	// Deadline bounds everything a store waits for at the origins, which
	// is only what it cannot be done without: a paper with a DOI alone
	// (its metadata; EUPSTREAM, nothing stored, when none came in time)
	// or a title alone (its DOI; a local id when none came). A paper
	// with its text, or a title and a DOI, never waits: its metadata is
	// filled by the background job. Zero means DefaultOriginDeadline.
	Deadline time.Duration

	// NoCitations: a store queues no job reading the paper's citation
	// links; they are read only when asked for (References, Citations,
	// Related). False means every paper stored with a DOI has its links
	// read in the background once.
	NoCitations bool

	// AllowPrivate lets downloads of open-access copies reach loopback
	// and private addresses on any host (tests only). False means only
	// the hosts of the base URLs above may.
	AllowPrivate bool
}

// DefaultOriginTimeout bounds a request to an origin (OriginOptions.Timeout).
const DefaultOriginTimeout = 10 * time.Second

// DefaultOriginDeadline bounds what a store waits for at the origins
// (OriginOptions.Deadline).
const DefaultOriginDeadline = 5 * time.Second

// originTTL is how long an origin's answer is taken from the cache
// (origin_cache) instead of asking again; StorePaper with Refresh asks
// anyway.
const originTTL = 24 * time.Hour

// origins looks papers up at their origins; nil when Options.Origins is.
type origins struct {
	client   *origin.Client
	download Fetcher       // downloads open-access copies (trusted hosts reachable)
	deadline time.Duration // OriginOptions.Deadline resolved
	// citations: stores queue their papers' citations jobs
	// (!OriginOptions.NoCitations).
	citations bool
}

// newOrigins returns m's origins as o configures them, or nil. Downloads
// are capped at maxBytes.
func newOrigins(m *Memory, o *OriginOptions, maxBytes int64) *origins {
	if o == nil {
		return nil
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultOriginTimeout
	}
	var observe fetch.Observe
	if m.observer != nil {
		observe = m.observeOrigin
	}
	c := origin.New(origin.Options{CrossrefURL: o.CrossrefURL, UnpaywallURL: o.UnpaywallURL, OpenAlexURL: o.OpenAlexURL,
		ArxivURL: o.ArxivURL, Contact: o.Contact, OpenAlexKey: o.OpenAlexKey, Timeout: timeout, Cache: originCache{m}, Logger: m.log, Observe: observe})
	deadline := o.Deadline
	if deadline <= 0 {
		deadline = DefaultOriginDeadline
	}
	return &origins{client: c, download: fetch.New(fetch.Options{MaxBytes: maxBytes, AllowPrivate: o.AllowPrivate, Trusted: c.Hosts(), Observe: observe}),
		deadline: deadline, citations: !o.NoCitations}
}

// originCache keeps the origins' answers in the database for originTTL.
type originCache struct{ m *Memory }

func (c originCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	body, at, ok, err := store.OriginCached(ctx, c.m.db, key)
	if err != nil || !ok {
		return nil, false, err
	}
	if c.m.now().Sub(at) > originTTL {
		return nil, false, nil
	}
	return body, true, nil
}

func (c originCache) Put(ctx context.Context, key string, body []byte) error {
	return c.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return store.CacheOrigin(ctx, tx, key, body, c.m.now())
	})
}

// originError is the library's error for an origin lookup of what that
// failed: EUPSTREAM, its message ending with what the caller may do
// instead (then), or ctx's error when the caller gave up.
func originError(err error, what, then string) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	why := " in time"
	if errors.Is(err, origin.ErrDown) {
		why = ": the origins are down"
	}
	return &Error{Code: EUPSTREAM, Err: err, Message: fmt.Sprintf("No origin answered for %s%s; nothing was stored. Retry later%s "+
		"(PAPERMEM_ORIGINS=off turns the origins off).", what, why, then)}
}

// What a caller may do when the origins fail, as originError ends its message.
const (
	storeInstead = ", or store the paper with its title or text"
	fetchInstead = ", or ingest a copy of the paper yourself"
	linksInstead = "; the links read before, if any, stay as they were"
)

// resolveAtOrigins returns the DOI of a paper that names none: the arXiv
// DOI of an arXiv sourceURL (10.48550/arxiv.<id>, without the version),
// else, for a paper with no text of its own (askCrossref), the DOI
// Crossref matches to title within ctx (the store's deadline); "" when
// neither gives one, when no origin is configured, or when Crossref fails
// (the paper is then stored under a local id, as offline). A paper with
// its text is never held up to ask.
func (w *Workspace) resolveAtOrigins(ctx context.Context, sourceURL, title string, askCrossref bool) string {
	o := w.m.origins
	if o == nil {
		return ""
	}
	if id := origin.ArxivID(sourceURL); id != "" && !strings.Contains(id, "/") {
		// A new-style id (2101.00001) is its DOI's suffix; an old-style
		// one (math.GT/0309136) is not, so Crossref decides for those.
		return NormalizeDOI("10.48550/arXiv." + arxivVersion.ReplaceAllString(id, ""))
	}
	if title == "" || !askCrossref {
		return ""
	}
	doi, err := o.client.Resolve(ctx, title)
	if err != nil {
		w.m.log.Debug("resolve a title at crossref", "err", err)
		return ""
	}
	return NormalizeDOI(doi)
}

// arxivVersion matches an arXiv id's version suffix ("v2"), which its DOI
// leaves out.
var arxivVersion = regexp.MustCompile(`v[0-9]+$`)

// planMetadata sets where paper p's metadata stands before it is stored
// without waiting for its origins: pending, for the background job
// (jobs.go) to fill from them (fresh: bypassing the day's cache), when
// origins are configured and p has a DOI; otherwise unavailable for a new
// paper, while a stored one keeps its state.
func (w *Workspace) planMetadata(p *storedPaper, fresh bool) {
	if w.m.origins != nil && !isLocalID(p.DOI) {
		p.Metadata, p.fresh = store.MetadataPending, fresh
		return
	}
	if p.Metadata == "" {
		p.Metadata = store.MetadataUnavailable
	}
}

// fillNow completes paper p, which has nothing of its own to be stored
// with (a DOI alone), from its origins before it is stored, within ctx (the
// store's deadline): the title, authors, year, journal and kind of work,
// open access, and whether it is retracted, with its notices. A DOI no
// origin knows leaves p as it is; a service failing while another
// answered leaves out what it would have added, as applyWork says. The
// error is EUPSTREAM when no origin answered.
func (w *Workspace) fillNow(ctx context.Context, p *storedPaper, refresh bool) error {
	work, err := w.m.origins.work(ctx, p.DOI, refresh)
	switch {
	case errors.Is(err, origin.ErrNotFound), errors.Is(err, origin.ErrInvalid):
		p.Metadata = store.MetadataComplete
		return nil
	case err != nil:
		return originError(err, "doi:"+p.DOI, storeInstead)
	}
	applyWork(p, work)
	p.Metadata = store.MetadataComplete
	return nil
}

// work looks the work doi up at the origins, from their day's cache
// unless fresh.
func (o *origins) work(ctx context.Context, doi string, fresh bool) (*origin.Work, error) {
	if fresh {
		return o.client.WorkFresh(ctx, doi)
	}
	return o.client.Work(ctx, doi)
}

// applyWork fills what paper p lacks from work, and its retraction status
// unless a service that may hold the notices failed (work.Partial, not
// retracted): then what is stored stands until one answers.
func applyWork(p *storedPaper, work *origin.Work) {
	if p.Title == "" {
		p.Title = work.Title
	}
	if len(p.Authors) == 0 && len(work.Authors) > 0 {
		p.Authors = work.Authors
	}
	if p.Year == 0 {
		p.Year = work.Year
	}
	if p.Journal == "" {
		p.Journal = work.Container
	}
	if p.Type == "" {
		p.Type = work.Type
	}
	p.OA = p.OA || work.OA
	if work.Partial && !work.Retracted {
		return
	}
	p.Retracted, p.Notices = work.Retracted, nil
	for _, n := range work.Notices {
		p.Notices = append(p.Notices, Notice{Type: n.Type, DOI: n.DOI, Date: n.Date})
	}
}

// runMetadata is the metadata job (jobs.go): it fills org's paper doi from
// its origins as applyWork does, without touching what the paper was
// stored with, marks it complete, and re-indexes it when it gains its
// title (its Paper node is its title and abstract), or when a run before
// this one (j.Attempts) may have filled the title and not re-indexed it
// (store.FillPaper). A paper deleted
// meanwhile is done with; a DOI no origin knows is complete as it is.
func (m *Memory) runMetadata(ctx context.Context, j store.Job) error {
	w := m.Workspace(j.Org)
	work, err := m.origins.work(ctx, j.Subject, j.Args == metadataFresh)
	p := &storedPaper{Paper: Paper{DOI: j.Subject, Metadata: store.MetadataComplete}}
	switch {
	case errors.Is(err, origin.ErrNotFound), errors.Is(err, origin.ErrInvalid):
	case err != nil:
		return err
	default:
		applyWork(p, work)
	}
	setRetraction := work != nil && (!work.Partial || work.Retracted)
	var reindex bool
	err = m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		var err error
		reindex, err = store.FillPaper(ctx, tx, j.Org, &store.Paper{DOI: p.DOI, Title: p.Title, Year: p.Year,
			Authors: p.Authors, OA: p.OA, Journal: p.Journal, Type: p.Type, Retracted: p.Retracted,
			Notices: convertNotices[store.Notice](p.Notices), Metadata: p.Metadata}, setRetraction, j.Attempts > 1)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	if reindex {
		if err := w.reindexPaper(ctx, j.Subject); err != nil && ErrorCode(err) != ENOTFOUND {
			return err
		}
	}
	return nil
}

// metadataFresh is a metadata job's Args when it bypasses the origins'
// cache (PaperInput.Refresh).
const metadataFresh = "fresh"

// jobArgs is the Args of a metadata or citations job: metadataFresh when
// it bypasses the origins' cache.
func jobArgs(fresh bool) string {
	if fresh {
		return metadataFresh
	}
	return ""
}

// metadataUnavailable records that the metadata job about org's paper doi
// gave up: the paper's metadata stays as it is, unavailable.
func (m *Memory) metadataUnavailable(ctx context.Context, tx *store.Tx, j store.Job) error {
	return store.SetPaperMetadata(ctx, tx, j.Org, j.Subject, store.MetadataUnavailable)
}

// reindexPaper stores paper doi again as it is, with its nodes indexed
// anew (its Paper node from its current title).
func (w *Workspace) reindexPaper(ctx context.Context, doi string) error {
	p, err := w.paper(ctx, w.m.db, doi)
	if err != nil {
		return err
	}
	if p.Metadata == store.MetadataPending {
		p.Metadata = store.MetadataComplete
	}
	sections := textSections(p.text)
	return w.storePaper(ctx, p, p.text, sections, &IngestReport{})
}

// fetchOpenAccess downloads an open-access copy of paper doi: Unpaywall's
// best location first, then OpenAlex's, then arXiv's. It returns the body
// and content type of the first that downloads; ENOTFOUND when the origins
// know of no copy, EUPSTREAM when they fail or every copy fails to
// download.
func (w *Workspace) fetchOpenAccess(ctx context.Context, doi string) ([]byte, string, error) {
	o := w.m.origins
	urls, err := o.client.FullText(ctx, doi)
	if err != nil && !errors.Is(err, origin.ErrNotFound) {
		return nil, "", originError(err, "doi:"+doi, fetchInstead)
	}
	if len(urls) == 0 {
		return nil, "", Errorf(ENOTFOUND, "No open-access copy of %s is known to its origins.", doi)
	}
	var errs []error
	for _, u := range urls {
		body, ctype, err := o.download.Fetch(ctx, u)
		if err == nil {
			return body, ctype, nil
		}
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		errs = append(errs, err)
	}
	return nil, "", &Error{Code: EUPSTREAM, Message: fmt.Sprintf("Downloading the open-access copies of %s failed.", doi), Err: errors.Join(errs...)}
}
