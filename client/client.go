// Package client is a typed Go client of papermem's /v1 HTTP API: one
// method per route, taking ctx first, with the request and response types
// of the server, all of package api. It imports nothing of the server
// but api, so a program that only calls a remote papermem builds without
// cgo and links neither the database drivers nor the library.
//
// Errors the server answers come back as *Error: the HTTP status, the
// API's code and the server's message, wrapping the same error in the
// library's codes (api.ErrorOf). So api.ErrorCode (which papermem.ErrorCode
// is) gives the code the library itself would (EINVALID for a bad label on
// recall), errors.Is matches the library's sentinels (api.ErrNotFound,
// api.ErrDuplicateEmail, api.ErrMissingUser, …, the very values of
// papermem.ErrNotFound and the others), and api.Code gives back the API's
// code:
//
//	_, err := c.Recall(ctx, req)
//	if errors.Is(err, api.ErrInvalid) { … }
//	var ce *client.Error
//	if errors.As(err, &ce) { log.Print(ce.StatusCode, ce.Code) }
//
// The API has no code for a conflict: a taken email comes back as
// ECONFLICT (with api.ErrDuplicateEmail), other conflicts as
// EINVALID.
//
// A request refused with 429 (rate limited) or 503 (unavailable: the
// server's write queue is full or it is shutting down; nothing was
// changed) is retried after its Retry-After, a bounded number of times.
//
// A *Client is safe for concurrent use.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/papermem/papermem/api"
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultMaxRetries   = 3                // retries of a request refused with 429 or 503
	DefaultMaxRetryWait = 30 * time.Second // longest Retry-After waited for
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// Options configures a Client. The zero Options sends no credential.
type Options struct {
	// Token is sent as Authorization: Bearer: an API key (pm_…) or a
	// session token from Signup or Login. Empty means no credential (the
	// public routes only).
	Token string

	// UserID is sent as X-User-Id: with an API key, the workspace user to
	// act for (per-user memory needs one). Empty sends none.
	UserID string

	// HTTPClient sends the requests. Nil means http.DefaultClient.
	HTTPClient *http.Client

	// MaxRetries is how often a request refused with 429 or 503 (with
	// Retry-After) is retried. Zero means DefaultMaxRetries; negative means
	// never.
	MaxRetries int

	// MaxRetryWait is the longest Retry-After waited for; a longer one
	// returns the 429 or 503 error at once. Zero means DefaultMaxRetryWait.
	MaxRetryWait time.Duration
}

// Client calls a papermem server.
type Client struct {
	base string
	opts Options
}

// New returns a client of the server at baseURL (e.g.
// "http://127.0.0.1:8080"). Nil options means the zero Options.
func New(baseURL string, opts *Options) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/")}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.HTTPClient == nil {
		c.opts.HTTPClient = http.DefaultClient
	}
	if c.opts.MaxRetries == 0 {
		c.opts.MaxRetries = DefaultMaxRetries
	}
	if c.opts.MaxRetryWait <= 0 {
		c.opts.MaxRetryWait = DefaultMaxRetryWait
	}
	return c
}

// WithToken returns a copy of c that sends token (an API key or a session
// token) instead of c's.
func (c *Client) WithToken(token string) *Client {
	cp := *c
	cp.opts.Token = token
	return &cp
}

// WithUser returns a copy of c that acts for user (X-User-Id); "" sends
// none.
func (c *Client) WithUser(user string) *Client {
	cp := *c
	cp.opts.UserID = user
	return &cp
}

// body is a request body that can be sent again on a retry.
type body struct {
	data        []byte
	contentType string
}

// jsonBody encodes v as a JSON request body.
func jsonBody(v any) (*body, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return &body{data: b, contentType: "application/json"}, nil
}

// do sends method path (already escaped, with its query) with in as its
// JSON body (nil: none) and decodes the response into out (nil: discarded).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var b *body
	if in != nil {
		var err error
		if b, err = jsonBody(in); err != nil {
			return err
		}
	}
	res, err := c.send(ctx, method, path, b)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, res.Body)
		return err
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode response: %w", method, path, err)
	}
	return nil
}

// send sends the request, retrying after 429 and 503, and returns a 2xx response
// whose body the caller closes; any other status is returned as an error.
func (c *Client) send(ctx context.Context, method, path string, b *body) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		var rd io.Reader
		if b != nil {
			rd = bytes.NewReader(b.data)
		}
		req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
		if err != nil {
			return nil, err
		}
		if b != nil {
			req.Header.Set("Content-Type", b.contentType)
		}
		req.Header.Set("Accept", "application/json")
		if c.opts.Token != "" {
			req.Header.Set("Authorization", "Bearer "+c.opts.Token)
		}
		if c.opts.UserID != "" {
			req.Header.Set("X-User-Id", c.opts.UserID)
		}
		res, err := c.opts.HTTPClient.Do(req)
		if err != nil {
			return nil, err
		}
		if res.StatusCode >= 200 && res.StatusCode < 300 {
			return res, nil
		}
		apiErr := decodeError(res)
		res.Body.Close()
		wait, ok := retryAfter(res)
		if !retried[res.StatusCode] || !ok || attempt >= c.opts.MaxRetries || wait > c.opts.MaxRetryWait {
			return nil, apiErr
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// retried are the statuses of refusals that changed nothing and are
// retried after their Retry-After.
var retried = map[int]bool{http.StatusTooManyRequests: true, http.StatusServiceUnavailable: true}

// retryAfter reads the Retry-After header in seconds.
func retryAfter(res *http.Response) (time.Duration, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(res.Header.Get("Retry-After")))
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// statusCodes name the statuses of error responses that carry no error
// body (a proxy's, say).
var statusCodes = map[int]string{
	http.StatusBadRequest:            api.CodeInvalidInput,
	http.StatusUnauthorized:          api.CodeUnauthorized,
	http.StatusForbidden:             api.CodeForbidden,
	http.StatusNotFound:              api.CodeNotFound,
	http.StatusMethodNotAllowed:      api.CodeMethodNotAllowed,
	http.StatusRequestEntityTooLarge: api.CodePayloadTooLarge,
	http.StatusUnsupportedMediaType:  api.CodeUnsupportedFormat,
	http.StatusTooManyRequests:       api.CodeRateLimited,
	http.StatusBadGateway:            api.CodeUpstreamFailed,
	http.StatusServiceUnavailable:    api.CodeUnavailable,
	http.StatusInsufficientStorage:   api.CodeInsufficientStorage,
}

// Error is an error response of the server. It wraps the same error in
// the library's vocabulary, a *api.Error, for api.ErrorCode,
// api.ErrorMessage and errors.Is.
type Error struct {
	StatusCode int    // the response's HTTP status, e.g. 404
	Code       string // the API's code as sent, e.g. "not_found", "duplicate_email" (api.Code…)
	Message    string // the server's message, for a person to read

	err *api.Error // the same error in the library's codes (api.ErrorOf)
}

// Error returns the server's message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the *api.Error the response stands for: its Code is
// the library's (api.ENOTFOUND, …), its Message the server's.
func (e *Error) Unwrap() error { return e.err }

// decodeError turns an error response into an *Error. A response with no
// error body (a proxy's, say) gets the code of its status.
func decodeError(res *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	var eb api.ErrorBody
	if json.Unmarshal(data, &eb) != nil || eb.Error.Code == "" {
		code, ok := statusCodes[res.StatusCode]
		if !ok {
			code = api.CodeInternal
		}
		eb.Error = api.ErrorDetail{Code: code, Message: fmt.Sprintf("The server answered %s.", res.Status)}
	}
	return &Error{StatusCode: res.StatusCode, Code: eb.Error.Code, Message: eb.Error.Message, err: api.ErrorOf(eb.Error)}
}

// pathf formats a path, escaping each argument as one path segment.
func pathf(format string, args ...string) string {
	esc := make([]any, len(args))
	for i, a := range args {
		esc[i] = url.PathEscape(a)
	}
	return fmt.Sprintf(format, esc...)
}

// withQuery appends the non-empty values of q to path.
func withQuery(path string, q url.Values) string {
	for k, v := range q {
		if len(v) == 0 || v[0] == "" {
			delete(q, k)
		}
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}
