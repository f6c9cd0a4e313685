package origin

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/papermem/papermem/internal/buildinfo"
	"github.com/papermem/papermem/internal/fetch"
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultCrossrefURL  = "https://api.crossref.org"
	DefaultUnpaywallURL = "https://api.unpaywall.org"
	DefaultOpenAlexURL  = "https://api.openalex.org"
	DefaultArxivURL     = "https://arxiv.org"

	DefaultTimeout = 10 * time.Second
	// DefaultMaxBytes bounds one metadata answer; a Crossref record with a
	// long reference list is a few hundred kilobytes.
	DefaultMaxBytes = 4 << 20
	// DefaultConcurrency is Crossref's concurrency limit for its polite pool
	// (since December 2025: 3 requests at a time).
	DefaultConcurrency = 3
	// DefaultPublicConcurrency is Crossref's concurrency limit for its public
	// pool, used for Crossref when Contact is empty and Concurrency zero.
	DefaultPublicConcurrency = 1
	DefaultRetries           = 3
	// DefaultBackoff is the wait before the first retry; it doubles with
	// every further retry and is jittered into [d/2, d).
	DefaultBackoff = 500 * time.Millisecond
	// DefaultMaxRetryWait caps a backoff; a service asking with
	// Retry-After for a longer wait is not retried.
	DefaultMaxRetryWait = 30 * time.Second

	// DefaultMinScore is the Crossref relevance score a search hit must
	// reach for Resolve to consider it. Crossref's scores are not
	// normalised (longer queries score higher), so the floor is low and the
	// title comparison does the real work.
	DefaultMinScore = 20.0
	// DefaultMinSimilarity is the Dice coefficient of the normalised title
	// tokens (lower-cased, markup and punctuation removed) that a search
	// hit's title must reach, against the title asked for, for Resolve to
	// accept it.
	DefaultMinSimilarity = 0.8
)

// resolveRows is how many Crossref search hits Resolve compares.
const resolveRows = 5

// Errors in the chain of the Client's errors. A cancelled or expired
// caller's context is reported as the context's error instead, which
// matches none of them.
var (
	// ErrNotFound: every service asked answered that it does not know
	// the DOI.
	ErrNotFound = errors.New("origin: not found")
	// ErrUpstream: a service failed and no other one answered: a 5xx, 429
	// or transport failure after the retries, a timeout, another 4xx, a
	// malformed or oversized answer.
	ErrUpstream = errors.New("origin: upstream service failed")
	// ErrInvalid: the DOI or title given cannot be looked up (not a DOI, an
	// empty title). Nothing was sent.
	ErrInvalid = errors.New("origin: invalid input")
)

// Cache keeps the services' answers. The Client asks it before a request
// and stores every 200 answer that decoded; 404s and failures are not
// stored, so a DOI registered later is found. Keys are the request's URL
// without the contact address and API key, such as
// "https://api.crossref.org/works/10.1000/xyz"; bodies are the services'
// JSON as received. A Get error is treated as a miss and a Put error is
// logged and ignored: a failing cache slows lookups down but does not fail
// them. Implementations must be safe for concurrent use.
type Cache interface {
	Get(ctx context.Context, key string) (body []byte, ok bool, err error)
	Put(ctx context.Context, key string, body []byte) error
}

// Options configure New. The zero value means the defaults; each field
// says what its zero value means.
type Options struct {
	// Base URLs of the services, without a trailing slash (one is
	// trimmed); zero means DefaultCrossrefURL, DefaultUnpaywallURL,
	// DefaultOpenAlexURL and DefaultArxivURL. Requests go to
	// {CrossrefURL}/works/{doi} and {CrossrefURL}/works?query.bibliographic=…,
	// {UnpaywallURL}/v2/{doi}?email=…, {OpenAlexURL}/works/doi:{doi}; PDFs
	// are proposed at {ArxivURL}/pdf/{id}.
	CrossrefURL  string
	UnpaywallURL string
	OpenAlexURL  string
	ArxivURL     string

	// Contact is the operator's e-mail address, sent to Crossref and
	// OpenAlex as mailto (parameter and User-Agent) and to Unpaywall as
	// email. Empty means none is sent (none is invented): Unpaywall is
	// asked without one, which the public service refuses (a failure, not
	// retried), and Crossref gets DefaultPublicConcurrency unless
	// Concurrency is set.
	Contact string
	// OpenAlexKey is an OpenAlex API key, sent as api_key; empty means
	// none (lookups by DOI are free without one).
	OpenAlexKey string
	// UserAgent is a product token put before papermem's own in the
	// User-Agent header, such as "mytool/1.2"; empty means only
	// "papermem/<version>".
	UserAgent string

	// Timeout bounds one attempt, from sending the request to reading the
	// last byte of the answer; zero means DefaultTimeout. The caller's
	// context bounds the whole call, retries included.
	Timeout time.Duration
	// MaxBytes is the largest answer read; a larger one fails the request
	// (ErrUpstream) rather than being cut and parsed. Zero means
	// DefaultMaxBytes.
	MaxBytes int64
	// Concurrency is the largest number of requests in flight to each
	// service; zero means DefaultConcurrency (DefaultPublicConcurrency for
	// Crossref without a Contact).
	Concurrency int
	// Retries is how many times a request is retried after a 429, a 5xx
	// or a transport failure (a timeout included); no other answer is
	// retried. Zero means DefaultRetries, a negative number none.
	Retries int
	// Backoff is the wait before the first retry, doubled for each next
	// one and jittered; zero means DefaultBackoff. A Retry-After header
	// (seconds or an HTTP date) replaces it.
	Backoff time.Duration
	// MaxRetryWait is the longest wait before a retry; a Retry-After
	// asking for more ends the retries at once. Zero means
	// DefaultMaxRetryWait.
	MaxRetryWait time.Duration

	// MinScore and MinSimilarity are Resolve's acceptance thresholds;
	// zero means DefaultMinScore and DefaultMinSimilarity.
	MinScore      float64
	MinSimilarity float64

	// Observe, when not nil, is told of each request (metrics, traces).
	Observe fetch.Observe

	// BreakerFailures is how many failed attempts in a row (no
	// connection, no such host, a timeout, a 5xx) take a service down:
	// its requests then fail at once with ErrDown for BreakerCooldown,
	// after which one request probes it; each failed probe doubles the
	// cool-down, up to BreakerMaxCooldown, and an answer brings the
	// service back. One line is logged when a service goes down and one
	// when it comes back. Zero means DefaultBreakerFailures,
	// DefaultBreakerCooldown and DefaultBreakerMaxCooldown.
	BreakerFailures    int
	BreakerCooldown    time.Duration
	BreakerMaxCooldown time.Duration

	// Cache keeps answers between calls; nil means none.
	Cache Cache
	// Logger receives cache failures and retries; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Client asks the metadata services. The zero value is not usable; call
// New. A *Client is safe for concurrent use.
type Client struct {
	crossref, unpaywall, openalex *service
	arxivURL                      string
	trusted                       []origin

	contact, openalexKey string
	userAgent            string
	timeout              time.Duration
	maxBytes             int64
	retries              int
	backoff, maxWait     time.Duration
	minScore, minSim     float64
	http                 *http.Client
	cache                Cache
	log                  *slog.Logger
	// A failure that may recur for every paper while it lasts (OpenAlex
	// refusing cursor pages without a key) is logged once, then at debug
	// level until it stops.
	pagingFails, namingFails warning
}

// warning is a failure that is logged once while it lasts.
type warning struct{ on atomic.Bool }

// warn logs msg at warning level when the failure begins, at debug level
// while it lasts.
func (w *warning) warn(log *slog.Logger, msg string, args ...any) {
	if w.on.Swap(true) {
		log.Debug(msg, args...)
		return
	}
	log.Warn(msg, args...)
}

// clear ends the failure: the next one is logged again.
func (w *warning) clear() { w.on.Store(false) }

// service is one metadata service: its base URL, the semaphore bounding
// the requests in flight to it, and its circuit.
type service struct {
	name    string
	base    string
	sem     chan struct{}
	breaker *breaker
}

// New returns a client configured by o.
func New(o Options) *Client {
	conc := o.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	crossrefConc := conc
	if o.Concurrency <= 0 && o.Contact == "" {
		crossrefConc = DefaultPublicConcurrency
	}
	c := &Client{
		crossref:    newService("crossref", o.CrossrefURL, DefaultCrossrefURL, crossrefConc),
		unpaywall:   newService("unpaywall", o.UnpaywallURL, DefaultUnpaywallURL, conc),
		openalex:    newService("openalex", o.OpenAlexURL, DefaultOpenAlexURL, conc),
		arxivURL:    base(o.ArxivURL, DefaultArxivURL),
		contact:     strings.TrimSpace(o.Contact),
		openalexKey: o.OpenAlexKey,
		timeout:     cmp.Or(o.Timeout, DefaultTimeout),
		maxBytes:    cmp.Or(o.MaxBytes, DefaultMaxBytes),
		retries:     cmp.Or(o.Retries, DefaultRetries),
		backoff:     cmp.Or(o.Backoff, DefaultBackoff),
		maxWait:     cmp.Or(o.MaxRetryWait, DefaultMaxRetryWait),
		minScore:    cmp.Or(o.MinScore, DefaultMinScore),
		minSim:      cmp.Or(o.MinSimilarity, DefaultMinSimilarity),
		cache:       o.Cache,
		log:         o.Logger,
	}
	if c.retries < 0 {
		c.retries = 0
	}
	c.http = &http.Client{Transport: fetch.Observed(http.DefaultTransport, o.Observe)}
	if c.log == nil {
		c.log = slog.Default()
	}
	for _, s := range []*service{c.crossref, c.unpaywall, c.openalex} {
		s.breaker = newBreaker(s.name, cmp.Or(o.BreakerFailures, DefaultBreakerFailures),
			cmp.Or(o.BreakerCooldown, DefaultBreakerCooldown), cmp.Or(o.BreakerMaxCooldown, DefaultBreakerMaxCooldown), c.log)
	}
	c.userAgent = "papermem/" + buildinfo.Version()
	if o.UserAgent != "" {
		c.userAgent = o.UserAgent + " " + c.userAgent
	}
	if c.contact != "" {
		c.userAgent += " (mailto:" + c.contact + ")"
	}
	for _, b := range []string{c.crossref.base, c.unpaywall.base, c.openalex.base, c.arxivURL} {
		if t, ok := parseOrigin(b); ok {
			c.trusted = append(c.trusted, t)
		}
	}
	return c
}

func newService(name, url, def string, conc int) *service {
	return &service{name: name, base: base(url, def), sem: make(chan struct{}, conc)}
}

// base is u without its trailing slash, or def when u is empty.
func base(u, def string) string {
	if u = strings.TrimSpace(u); u == "" {
		u = def
	}
	return strings.TrimSuffix(u, "/")
}

// origin is a URL's scheme, host and port, the port made explicit.
type origin struct{ scheme, host, port string }

func parseOrigin(raw string) (origin, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return origin{}, false
	}
	o := origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Hostname()), port: u.Port()}
	if o.port == "" {
		switch o.scheme {
		case "http":
			o.port = "80"
		case "https":
			o.port = "443"
		default:
			return origin{}, false
		}
	}
	if o.scheme != "http" && o.scheme != "https" {
		return origin{}, false
	}
	o.host = strings.TrimSuffix(o.host, ".")
	if ip := net.ParseIP(o.host); ip != nil {
		o.host = ip.String()
	}
	return o, true
}

// Hosts returns the configured services' hosts as host:port, the form in
// which an HTTP client dials them, for a downloader that lets Trusted URLs
// reach private addresses (internal/fetch's Options.Trusted).
func (c *Client) Hosts() []string {
	out := make([]string, 0, len(c.trusted))
	for _, t := range c.trusted {
		out = append(out, net.JoinHostPort(t.host, t.port))
	}
	return out
}

// States reports the circuit of each service, Crossref, Unpaywall and
// OpenAlex in that order.
func (c *Client) States() []ServiceState {
	return []ServiceState{c.crossref.breaker.state(), c.unpaywall.breaker.state(), c.openalex.breaker.state()}
}

// WorkReady reports whether Work may ask a service now: Crossref or
// OpenAlex, which give a work's metadata, is up or due for a probe. When
// neither is, retry is when the first is due.
func (c *Client) WorkReady() (ready bool, retry time.Time) {
	crOK, crRetry := c.crossref.breaker.ready()
	oaOK, oaRetry := c.openalex.breaker.ready()
	switch {
	case crOK || oaOK:
		return true, time.Time{}
	case oaRetry.Before(crRetry):
		return false, oaRetry
	}
	return false, crRetry
}

// Trusted reports whether u is an http or https URL on one of the
// configured services (Crossref, Unpaywall, OpenAlex, arXiv): the same
// scheme, host and port as a base URL, whatever the path. A URL with user
// information is never trusted. The caller may let such URLs through
// checks meant for URLs from elsewhere (such as a guard against private
// addresses), since the operator chose these hosts; what a trusted host
// redirects to is not covered.
func (c *Client) Trusted(u string) bool {
	o, ok := parseOrigin(u)
	if !ok {
		return false
	}
	for _, t := range c.trusted {
		if o == t {
			return true
		}
	}
	return false
}
