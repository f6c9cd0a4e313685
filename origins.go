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

	// Timeout bounds each request. Zero means DefaultOriginTimeout.
	Timeout time.Duration

	// AllowPrivate lets downloads of open-access copies reach loopback
	// and private addresses on any host (tests only). False means only
	// the hosts of the base URLs above may.
	AllowPrivate bool
}

// DefaultOriginTimeout bounds a request to an origin (OriginOptions.Timeout).
const DefaultOriginTimeout = 10 * time.Second

// originTTL is how long an origin's answer is taken from the cache
// (origin_cache) instead of asking again; StorePaper with Refresh asks
// anyway.
const originTTL = 24 * time.Hour

// origins looks papers up at their origins; nil when Options.Origins is.
type origins struct {
	client   *origin.Client
	download Fetcher // downloads open-access copies (trusted hosts reachable)
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
		ArxivURL: o.ArxivURL, Contact: o.Contact, Timeout: timeout, Cache: originCache{m}, Logger: m.log, Observe: observe})
	return &origins{client: c, download: fetch.New(fetch.Options{MaxBytes: maxBytes, AllowPrivate: o.AllowPrivate, Trusted: c.Hosts(), Observe: observe})}
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

// originError is the library's error for an origin lookup that failed.
func originError(err error, what string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &Error{Code: EUPSTREAM, Message: fmt.Sprintf("No origin answered for %s.", what), Err: err}
}

// resolveAtOrigins returns the DOI of a paper that names none: the arXiv
// DOI of an arXiv sourceURL (10.48550/arxiv.<id>, without the version),
// else the DOI Crossref matches to title; "" when neither gives one, when
// no origin is configured, or when Crossref fails (the paper is then
// stored under a local id, as offline).
func (w *Workspace) resolveAtOrigins(ctx context.Context, sourceURL, title string) string {
	o := w.m.origins
	if o == nil {
		return ""
	}
	if id := origin.ArxivID(sourceURL); id != "" && !strings.Contains(id, "/") {
		// A new-style id (2101.00001) is its DOI's suffix; an old-style
		// one (math.GT/0309136) is not, so Crossref decides for those.
		return NormalizeDOI("10.48550/arXiv." + arxivVersion.ReplaceAllString(id, ""))
	}
	if title == "" {
		return ""
	}
	doi, err := o.client.Resolve(ctx, title)
	if err != nil {
		w.m.log.Warn("resolve a title at crossref", "err", err)
		return ""
	}
	return NormalizeDOI(doi)
}

// arxivVersion matches an arXiv id's version suffix ("v2"), which its DOI
// leaves out.
var arxivVersion = regexp.MustCompile(`v[0-9]+$`)

// fillFromOrigins completes paper p from its origins: the title, authors,
// year, journal and kind of work it lacks, open access, and whether it
// is retracted, with its notices. A paper with a local id is not looked
// up. need is true when p has nothing of its own to be stored with (a
// DOI alone): then an origin failure is the error EUPSTREAM; otherwise it
// is logged and p is stored as it is. A DOI no origin knows leaves p as
// it is.
func (w *Workspace) fillFromOrigins(ctx context.Context, p *storedPaper, refresh, need bool) error {
	o := w.m.origins
	if o == nil || isLocalID(p.DOI) {
		return nil
	}
	lookup := o.client.Work
	if refresh {
		lookup = o.client.WorkFresh
	}
	work, err := lookup(ctx, p.DOI)
	switch {
	case errors.Is(err, origin.ErrNotFound), errors.Is(err, origin.ErrInvalid):
		return nil
	case err != nil && need:
		return originError(err, "doi:"+p.DOI)
	case err != nil:
		w.m.log.Warn("look a paper up at its origins", "doi", p.DOI, "err", err)
		return nil
	}
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
		// A service that may hold the notices failed: what is stored
		// stands until one answers.
		return nil
	}
	p.Retracted, p.Notices = work.Retracted, nil
	for _, n := range work.Notices {
		p.Notices = append(p.Notices, Notice{Type: n.Type, DOI: n.DOI, Date: n.Date})
	}
	return nil
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
		return nil, "", originError(err, "doi:"+doi)
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
