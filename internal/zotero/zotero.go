// Package zotero reads a Zotero library through the Zotero web API v3
// (https://www.zotero.org/support/dev/web_api/v3/basics) or Zotero 7
// desktop's local API, which answers the same requests at
// http://localhost:23119/api/ for library users/0, without a key.
//
// Every request sends Zotero-API-Version: 3 and the key, when there is
// one, in the Zotero-API-Key header (never in a URL, so that it reaches no
// log); at most four requests are in flight; a Backoff header pauses every
// request for its seconds, and a 429 or 503 is retried after its
// Retry-After. Lists are read a page at a time (start and limit, the Link
// header's rel="next", Total-Results). Syncing follows the API's versions:
// Items with since answers only what changed, and Deleted the keys
// deleted, since a library version.
package zotero

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults.
const (
	DefaultURL      = "https://api.zotero.org"
	DefaultLocalURL = "http://localhost:23119/api"
	MaxInFlight     = 4   // requests in flight at once
	PageSize        = 100 // items a page (the API's most)
	DefaultRetries  = 5   // retries of a 429 or 503
	DefaultMaxWait  = 2 * time.Minute
)

// Options configure New.
type Options struct {
	URL     string // the API's base URL; "" means DefaultURL (DefaultLocalURL when Local)
	Library string // "users/<id>" or "groups/<id>"; "" means users/0 when Local
	Key     string // the API key; "" for the local API or a public library
	// Local reads Zotero desktop's local API: a file's location may be a
	// file:// URL, whose file is read from this machine's disk.
	Local bool
	// Client makes the requests. Its redirects are not followed: the
	// client follows a file's redirect itself, without the key. Nil means
	// http.DefaultClient's transport.
	Client *http.Client
	// MaxWait bounds one wait for Retry-After or Backoff; zero means
	// DefaultMaxWait. A longer Retry-After fails the request; a longer
	// Backoff is cut to MaxWait.
	MaxWait time.Duration
	// MaxFileBytes bounds a downloaded file; zero means no bound.
	MaxFileBytes int64
}

// Client reads one library. It is safe for concurrent use.
type Client struct {
	base    string // URL of the library: base/users/4242
	lib     string // users/4242
	key     string
	local   bool
	http    *http.Client
	sem     chan struct{}
	maxWait time.Duration
	maxFile int64

	mu        sync.Mutex
	notBefore time.Time // Backoff: no request starts before
}

// libraryPath matches users/<id> and groups/<id>.
var libraryPath = regexp.MustCompile(`^(users|groups)/[0-9]+$`)

// ErrChanged is a list whose library changed while its pages were read.
var ErrChanged = errors.New("zotero: the library changed while it was read; read it again")

// ErrLibrary is a library that is not users/<id> or groups/<id>.
var ErrLibrary = errors.New(`a Zotero library is "users/<id>" or "groups/<id>"`)

// New returns a client of o's library. Errors: ErrLibrary, a bad URL.
func New(o Options) (*Client, error) {
	lib := strings.Trim(strings.TrimSpace(o.Library), "/")
	if lib == "" && o.Local {
		lib = "users/0"
	}
	if !libraryPath.MatchString(lib) {
		return nil, ErrLibrary
	}
	base := cmp.Or(strings.TrimSpace(o.URL), DefaultURL)
	if o.Local && o.URL == "" {
		base = DefaultLocalURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("zotero: %q is not an http(s) URL", base)
	}
	hc := http.Client{}
	if o.Client != nil {
		hc = *o.Client
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{base: strings.TrimRight(base, "/") + "/" + lib, lib: lib, key: o.Key, local: o.Local, http: &hc,
		sem: make(chan struct{}, MaxInFlight), maxWait: cmp.Or(o.MaxWait, DefaultMaxWait), maxFile: o.MaxFileBytes}, nil
}

// Library returns the client's library, "users/<id>" or "groups/<id>".
func (c *Client) Library() string { return c.lib }

// URL returns the library's URL: the API's base URL and the library.
func (c *Client) URL() string { return c.base }

// StatusError is an answer of the API other than the one expected.
type StatusError struct {
	Status int
	Path   string // the request's path, without the base URL
	Body   string // the start of the answer's body
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("Zotero answered %d %s to %s", e.Status, http.StatusText(e.Status), e.Path)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Forbidden reports whether err is the API refusing the key (403), or
// asking for one (401).
func Forbidden(err error) bool {
	se, ok := errors.AsType[*StatusError](err)
	return ok && (se.Status == http.StatusForbidden || se.Status == http.StatusUnauthorized)
}

// NotFound reports whether err is a 404 of the API.
func NotFound(err error) bool {
	se, ok := errors.AsType[*StatusError](err)
	return ok && se.Status == http.StatusNotFound
}

// get sends GET rawURL with header hdr (and the API's version and key
// when withKey), retrying a 429 or 503 after its Retry-After, and returns
// the answer (the caller closes its body). Statuses other than 2xx, a
// redirect (301, 302, 303, 307) and 304 are *StatusError.
func (c *Client) get(ctx context.Context, rawURL string, hdr map[string]string, withKey bool) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return nil, err
		}
		if withKey {
			req.Header.Set("Zotero-API-Version", "3")
			if c.key != "" {
				req.Header.Set("Zotero-API-Key", c.key)
			}
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// A Backoff answered while this request waited for its turn holds it too.
		if err := c.wait(ctx); err != nil {
			<-c.sem
			return nil, err
		}
		res, err := c.http.Do(req)
		<-c.sem
		if err != nil {
			return nil, fmt.Errorf("zotero: GET %s: %w", c.shortPath(rawURL), errors.Unwrap(err))
		}
		if s := res.Header.Get("Backoff"); s != "" {
			c.backoff(s)
		}
		switch {
		case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable:
			drain(res)
			d, ok := retryAfter(res.Header.Get("Retry-After"))
			if !ok {
				d = time.Duration(1<<min(attempt, 5)) * time.Second
			}
			if attempt >= DefaultRetries || d > c.maxWait {
				return nil, &StatusError{Status: res.StatusCode, Path: c.shortPath(rawURL), Body: "retried too often"}
			}
			// The server asked this client, not this request alone, to
			// slow down: every request waits (wait, above).
			c.hold(d)
			continue
		case res.StatusCode >= 200 && res.StatusCode < 300, res.StatusCode == http.StatusFound,
			res.StatusCode == http.StatusNotModified, res.StatusCode == http.StatusSeeOther,
			res.StatusCode == http.StatusTemporaryRedirect, res.StatusCode == http.StatusMovedPermanently:
			return res, nil
		}
		b, _ := io.ReadAll(io.LimitReader(res.Body, 200))
		res.Body.Close()
		return nil, &StatusError{Status: res.StatusCode, Path: c.shortPath(rawURL), Body: strings.TrimSpace(string(b))}
	}
}

// shortPath is a URL as errors name it: its path and query, neither of
// which holds the key.
func (c *Client) shortPath(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "?"
	}
	return u.RequestURI() // never the userinfo
}

// wait waits for the end of a Backoff, or of a Retry-After (hold).
func (c *Client) wait(ctx context.Context) error {
	c.mu.Lock()
	d := time.Until(c.notBefore)
	c.mu.Unlock()
	if d <= 0 {
		return nil
	}
	return sleep(ctx, d)
}

// backoff records a Backoff of s seconds.
func (c *Client) backoff(s string) {
	if d, ok := retryAfter(s); ok {
		c.hold(min(d, c.maxWait))
	}
}

// hold makes every request wait until d from now (wait).
func (c *Client) hold(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := time.Now().Add(d); t.After(c.notBefore) {
		c.notBefore = t
	}
}

// retryAfter reads seconds, or an HTTP date.
func retryAfter(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(s); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func drain(res *http.Response) {
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
}

// nextLink returns the Link header's rel="next" URL, or "".
func nextLink(h http.Header) string {
	for _, v := range h.Values("Link") {
		for part := range strings.SplitSeq(v, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
			if ok && strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
				return strings.Trim(strings.TrimSpace(target), "<>")
			}
		}
	}
	return ""
}

// version reads the Last-Modified-Version header; 0 when absent.
func version(h http.Header) int64 {
	v, _ := strconv.ParseInt(h.Get("Last-Modified-Version"), 10, 64)
	return v
}

// maxListBytes bounds one page of a list.
const maxListBytes = 64 << 20

// decode reads a JSON answer into v.
func decode(res *http.Response, v any) error {
	defer res.Body.Close()
	if err := json.NewDecoder(io.LimitReader(res.Body, maxListBytes)).Decode(v); err != nil {
		return fmt.Errorf("zotero: the answer to %s is not the expected JSON: %w", res.Request.URL.Path, err)
	}
	return nil
}

// Page is one page of a list: its items, the library's version and the
// list's total (Total-Results; -1 when not sent).
type Page struct {
	Items   []Item
	Version int64
	Total   int
}

// Items reads the library's items (notes and attachments among them),
// those changed since version since (0: every one), a page at a time,
// calling fn with each. notModified is true, and fn never called, when
// the library has not changed since since (304). The version returned is
// the library's, as the first page reported it.
func (c *Client) Items(ctx context.Context, since int64, fn func(Page) error) (ver int64, notModified bool, err error) {
	q := url.Values{"format": {"json"}}
	hdr := map[string]string{}
	if since > 0 {
		q.Set("since", strconv.FormatInt(since, 10))
		hdr["If-Modified-Since-Version"] = strconv.FormatInt(since, 10)
	}
	err = c.list(ctx, "/items", q, hdr, func(res *http.Response) (int, error) {
		if res.StatusCode == http.StatusNotModified {
			drain(res)
			notModified = true
			return 0, nil
		}
		p := Page{Version: version(res.Header), Total: -1}
		if n, err := strconv.Atoi(res.Header.Get("Total-Results")); err == nil {
			p.Total = n
		}
		if err := decode(res, &p.Items); err != nil {
			return 0, err
		}
		if ver == 0 {
			ver = p.Version
		}
		return len(p.Items), fn(p)
	})
	if err != nil {
		return 0, false, err
	}
	if notModified {
		return since, true, nil
	}
	return ver, false, nil
}

// list reads the list at path (the query q, PageSize entries a page), a
// page at a time: page decodes each answer and returns how many entries
// it held. The next page is the Link header's rel="next" or, when an
// answer has none (Zotero's local API pages only when asked), the next
// start while Total-Results says more remain. hdr is sent with the first
// request only. A later page of another library version than the first
// is ErrChanged: entries may have moved across the pages read, so the
// list is read again (Zotero's syncing asks clients to start over).
func (c *Client) list(ctx context.Context, path string, q url.Values, hdr map[string]string, page func(*http.Response) (int, error)) error {
	q.Set("limit", strconv.Itoa(PageSize))
	q.Set("start", "0")
	next := c.base + path + "?" + q.Encode()
	start := 0
	var ver int64 // the library's version as the first page gave it
	for page1 := true; next != ""; page1 = false {
		res, err := c.get(ctx, next, hdr, true)
		if err != nil {
			return err
		}
		hdr = nil
		if v := version(res.Header); page1 {
			ver = v
		} else if v != ver {
			drain(res)
			return fmt.Errorf("%w (version %d, then %d)", ErrChanged, ver, v)
		}
		link := nextLink(res.Header)
		total, err := strconv.Atoi(res.Header.Get("Total-Results"))
		if err != nil {
			total = -1
		}
		n, err := page(res)
		if err != nil {
			return err
		}
		start += n
		switch {
		case link != "":
			if next, err = c.resolve(link); err != nil {
				return err
			}
		case total > start && n > 0:
			q.Set("start", strconv.Itoa(start))
			next = c.base + path + "?" + q.Encode()
		default:
			next = ""
		}
	}
	return nil
}

// resolve makes a Link target absolute and checks that it is of the API's
// host: a page elsewhere would get the key.
func (c *Client) resolve(link string) (string, error) {
	b, _ := url.Parse(c.base)
	u, err := b.Parse(link)
	if err != nil || u.Host != b.Host || u.Scheme != b.Scheme {
		return "", fmt.Errorf("zotero: the next page's link %q is not of %s", link, b.Host)
	}
	return u.String(), nil
}

// ItemsByKey reads the items with the keys (at most 50 a request).
func (c *Client) ItemsByKey(ctx context.Context, keys []string) ([]Item, error) {
	var out []Item
	for len(keys) > 0 {
		n := min(len(keys), 50)
		q := url.Values{"format": {"json"}, "itemKey": {strings.Join(keys[:n], ",")}, "limit": {"50"}}
		keys = keys[n:]
		res, err := c.get(ctx, c.base+"/items?"+q.Encode(), nil, true)
		if err != nil {
			return nil, err
		}
		var items []Item
		if err := decode(res, &items); err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// Children reads the child items (attachments and notes) of item key.
func (c *Client) Children(ctx context.Context, key string) ([]Item, error) {
	var out []Item
	err := c.list(ctx, "/items/"+url.PathEscape(key)+"/children", url.Values{"format": {"json"}}, nil, func(res *http.Response) (int, error) {
		var items []Item
		if err := decode(res, &items); err != nil {
			return 0, err
		}
		out = append(out, items...)
		return len(items), nil
	})
	return out, err
}

// Collections reads the names of the library's collections, by key.
func (c *Client) Collections(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	err := c.list(ctx, "/collections", url.Values{"format": {"json"}}, nil, func(res *http.Response) (int, error) {
		var cs []struct {
			Key  string `json:"key"`
			Data struct {
				Name string `json:"name"`
			} `json:"data"`
		}
		if err := decode(res, &cs); err != nil {
			return 0, err
		}
		for _, col := range cs {
			out[col.Key] = col.Data.Name
		}
		return len(cs), nil
	})
	return out, err
}

// Deleted returns the keys of the items deleted since version since.
func (c *Client) Deleted(ctx context.Context, since int64) ([]string, error) {
	res, err := c.get(ctx, c.base+"/deleted?since="+strconv.FormatInt(since, 10), nil, true)
	if err != nil {
		return nil, err
	}
	var d struct {
		Items []string `json:"items"`
	}
	if err := decode(res, &d); err != nil {
		return nil, err
	}
	return d.Items, nil
}

// File opens the file of attachment key: the API answers a redirect to it
// (a download URL, followed without the key; from the local API a
// file:// location, read from disk) or the file itself. Errors:
// *StatusError (404: the attachment has no file there).
func (c *Client) File(ctx context.Context, key string) (io.ReadCloser, error) {
	res, err := c.get(ctx, c.base+"/items/"+url.PathEscape(key)+"/file", nil, true)
	if err != nil {
		return nil, err
	}
	for hops := 0; res.StatusCode/100 == 3; hops++ {
		loc := res.Header.Get("Location")
		drain(res)
		if hops >= 5 || loc == "" {
			return nil, fmt.Errorf("zotero: the file of %s redirects too often, or nowhere", key)
		}
		base := res.Request.URL
		u, err := base.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("zotero: the file of %s is at a bad location: %w", key, err)
		}
		switch {
		case u.Scheme == "file" && c.local:
			f, err := os.Open(u.Path)
			if err != nil {
				return nil, fmt.Errorf("zotero: the file of %s: %w", key, err)
			}
			return c.limit(f), nil
		case u.Scheme != "http" && u.Scheme != "https":
			return nil, fmt.Errorf("zotero: the file of %s is at a %s: location, which is not read", key, u.Scheme)
		}
		// The key is not sent on: the location is signed for the download
		// (a storage service's, on the web).
		if res, err = c.get(ctx, u.String(), nil, false); err != nil {
			return nil, err
		}
	}
	return c.limit(res.Body), nil
}

// limit caps a file's reader at the client's MaxFileBytes, failing past it.
func (c *Client) limit(rc io.ReadCloser) io.ReadCloser {
	if c.maxFile <= 0 {
		return rc
	}
	return &capped{rc: rc, left: c.maxFile}
}

// ErrFileTooLarge is a file over Options.MaxFileBytes.
var ErrFileTooLarge = errors.New("zotero: the file is larger than the maximum file size")

type capped struct {
	rc   io.ReadCloser
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, ErrFileTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, ErrFileTooLarge
	}
	return n, err
}

func (c *capped) Close() error { return c.rc.Close() }

// Check asks the library once, as an import's first request would (with
// since as its If-Modified-Since-Version when not 0), so that a wrong key
// or library fails before anything is read. notModified is true when the
// library has not changed since since (304). Errors: *StatusError
// (Forbidden, NotFound), transport errors.
func (c *Client) Check(ctx context.Context, since int64) (notModified bool, err error) {
	q := url.Values{"format": {"json"}, "limit": {"1"}}
	var hdr map[string]string
	if since > 0 {
		q.Set("since", strconv.FormatInt(since, 10))
		hdr = map[string]string{"If-Modified-Since-Version": strconv.FormatInt(since, 10)}
	}
	res, err := c.get(ctx, c.base+"/items?"+q.Encode(), hdr, true)
	if err != nil {
		return false, err
	}
	drain(res)
	return res.StatusCode == http.StatusNotModified, nil
}
