// Package fetch downloads papers from their origin: bounded in time and
// size, over HTTP(S) only, and refusing loopback, private, link-local,
// unspecified and multicast addresses after DNS resolution (so that a
// source_url cannot reach the server's own network) unless told otherwise.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Defaults used when the corresponding Fetcher field is zero.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBytes     = 25 << 20
	DefaultMaxRedirects = 5
)

// Errors in the chain of Fetch's errors for what the fetcher refuses.
var (
	// ErrForbiddenAddress: the origin, or a redirect, resolves to an
	// address outside the public internet.
	ErrForbiddenAddress = errors.New("origin address not allowed")
	// ErrScheme: the URL, or a redirect, is not http or https with a host.
	ErrScheme = errors.New("only http and https URLs can be fetched")
	// ErrRedirects: the origin redirects more than DefaultMaxRedirects times.
	ErrRedirects = errors.New("too many redirects")
)

// Fetcher implements papermem.Fetcher. The zero value is not usable; call
// New. A *Fetcher is safe for concurrent use.
type Fetcher struct {
	client   *http.Client
	maxBytes int64
}

// Options configure New. The zero value means the defaults.
type Options struct {
	Timeout time.Duration // whole download; zero means DefaultTimeout
	// HeaderTimeout bounds the wait for an answer's headers, so that a
	// server that accepts a connection and never answers fails long
	// before a large download's Timeout; zero means Timeout.
	HeaderTimeout time.Duration
	MaxBytes      int64 // largest body; zero means DefaultMaxBytes
	AllowPrivate  bool  // reach loopback and private addresses (tests only)
	// Trusted lists hosts, as host:port, that may be reached whatever
	// address they resolve to: origins the operator configured (a
	// Crossref or arXiv stand-in on the local network). Every other
	// host, a redirect's included, is guarded as usual.
	Trusted []string
	// Observe, when not nil, is told of each request (metrics, traces).
	Observe Observe
}

// New returns a fetcher.
func New(o Options) *Fetcher {
	if o.AllowPrivate {
		return newFetcher(o, nil)
	}
	return newFetcher(o, guard)
}

// newFetcher returns a fetcher whose dialer runs control, when not nil, on
// every address it is about to connect to, the redirects' included.
func newFetcher(o Options, control func(network, address string, c syscall.RawConn) error) *Fetcher {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.HeaderTimeout <= 0 || o.HeaderTimeout > o.Timeout {
		o.HeaderTimeout = o.Timeout
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: control}
	dial := dialer.DialContext
	if len(o.Trusted) > 0 && control != nil {
		trusted := map[string]bool{}
		for _, h := range o.Trusted {
			trusted[strings.ToLower(h)] = true
		}
		open := &net.Dialer{Timeout: dialer.Timeout}
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if trusted[strings.ToLower(addr)] {
				return open.DialContext(ctx, network, addr)
			}
			return dialer.DialContext(ctx, network, addr)
		}
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf, past the guard
		DialContext:           dial,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: o.HeaderTimeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
	}
	return &Fetcher{
		maxBytes: o.MaxBytes,
		client: &http.Client{
			Transport: Observed(transport, o.Observe),
			Timeout:   o.Timeout,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= DefaultMaxRedirects {
					return fmt.Errorf("%w: more than %d", ErrRedirects, DefaultMaxRedirects)
				}
				return checkURL(req.URL)
			},
		},
	}
}

// Client returns the fetcher's HTTP client: its transport guarded as
// Fetch's is, its redirects checked. Callers may copy it to change its
// CheckRedirect or Timeout; the transport is shared.
func (f *Fetcher) Client() *http.Client { return f.client }

// guard refuses connections to addresses outside the public internet. It
// runs after DNS resolution, on the address actually dialled.
func guard(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || !Public(ip) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
	}
	return nil
}

// Public reports whether ip is a public unicast address: not loopback,
// private, link-local, unspecified, multicast, or in the shared (CGNAT)
// or IPv4-mapped forms of those.
func Public(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
		if v4[0] == 100 && v4[1]&0xc0 == 64 { // 100.64.0.0/10, shared address space
			return false
		}
		if v4[0] == 0 { // 0.0.0.0/8, "this network"
			return false
		}
	}
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified())
}

// checkURL accepts http and https URLs with a host.
func checkURL(u *url.URL) error {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w, not %q", ErrScheme, u.Redacted())
	}
	return nil
}

// Fetch downloads rawURL and returns its body and content type. Errors for
// a bad URL, a refused address, a non-2xx status, a timeout or a body over
// the size cap.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) ([]byte, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("fetch: bad url: %w", err)
	}
	if err := checkURL(u); err != nil {
		return nil, "", fmt.Errorf("fetch: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("fetch: %w", err)
	}
	req.Header.Set("User-Agent", "papermem-fetch/1")
	req.Header.Set("Accept", "application/pdf, text/markdown, text/plain;q=0.9, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", fmt.Errorf("fetch %s: origin answered %s", u.Redacted(), resp.Status)
	}
	if resp.ContentLength > f.maxBytes {
		return nil, "", fmt.Errorf("fetch %s: body of %d bytes is over the %d-byte cap", u.Redacted(), resp.ContentLength, f.maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	if int64(len(body)) > f.maxBytes {
		return nil, "", fmt.Errorf("fetch %s: body is over the %d-byte cap", u.Redacted(), f.maxBytes)
	}
	return body, resp.Header.Get("Content-Type"), nil
}
