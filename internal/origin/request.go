package origin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// request is one GET to a service.
type request struct {
	svc   *service
	path  string     // escaped, after the base URL, starting with "/"
	query url.Values // the parameters but the contact address and key
	fresh bool       // skip the cache read (the answer is still stored)
	// keep, when not nil, is asked after an answer decoded whether to
	// store it in the cache.
	keep func() bool
}

// getJSON gets r's answer (as get does) decoded as a T that check
// accepts: an answer that does not decode, or that check refuses, is
// malformed.
func getJSON[T any](ctx context.Context, c *Client, r request, check func(*T) error) (*T, error) {
	var out *T
	err := c.get(ctx, r, func(b []byte) error {
		v := new(T)
		if err := json.Unmarshal(b, v); err != nil {
			return err
		}
		if err := check(v); err != nil {
			return err
		}
		out = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// crossrefMessage is the envelope of a Crossref answer.
type crossrefMessage[T any] struct {
	Message *T `json:"message"`
}

// get fetches r's answer, from the cache when it holds one, and hands it
// to decode, which must accept it (nil) or reject it as malformed; decode
// may be called more than once. get returns nil once decode accepted an
// answer, an error matching ErrNotFound for a 404, ErrUpstream for a
// failure, or, when ctx ended, ctx's error.
func (c *Client) get(ctx context.Context, r request, decode func([]byte) error) error {
	key := r.svc.base + r.path
	if q := r.query.Encode(); q != "" {
		key += "?" + q
	}
	if c.cache != nil && !r.fresh {
		body, ok, err := c.cache.Get(ctx, key)
		switch {
		case err != nil && ctx.Err() == nil:
			c.log.Warn("origin cache read failed", "key", key, "err", err)
		case err != nil:
		case ok:
			if err := decode(body); err == nil {
				return nil
			}
			c.log.Warn("origin cache holds an unreadable answer", "key", key)
		}
	}
	q := url.Values{}
	for k, v := range r.query {
		q[k] = v
	}
	if c.contact != "" {
		switch r.svc {
		case c.unpaywall:
			q.Set("email", c.contact)
		default:
			q.Set("mailto", c.contact)
		}
	}
	if r.svc == c.openalex && c.openalexKey != "" {
		q.Set("api_key", c.openalexKey)
	}
	raw := r.svc.base + r.path
	if len(q) > 0 {
		raw += "?" + q.Encode()
	}
	body, err := c.fetch(ctx, r.svc, raw, key)
	if err != nil {
		return err
	}
	if err := decode(body); err != nil {
		return fmt.Errorf("%w: %s answered malformed JSON for %s: %v", ErrUpstream, r.svc.name, key, err)
	}
	if c.cache != nil && (r.keep == nil || r.keep()) {
		if err := c.cache.Put(ctx, key, body); err != nil && ctx.Err() == nil {
			c.log.Warn("origin cache write failed", "key", key, "err", err)
		}
	}
	return nil
}

// fetch GETs raw from svc, retrying as Options describe, and returns the
// 200 answer's body. key names the request in errors and logs, which never
// show the contact address.
func (c *Client) fetch(ctx context.Context, svc *service, raw, key string) ([]byte, error) {
	for n := 0; ; n++ {
		body, retry, wait, err := c.attempt(ctx, svc, raw, key)
		if err == nil {
			return body, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("origin: %s %s: %w", svc.name, key, ctx.Err())
		}
		if !retry || n >= c.retries {
			if retry && n > 0 {
				err = fmt.Errorf("%w (after %d attempts)", err, n+1)
			}
			return nil, err
		}
		if wait < 0 {
			wait = c.backoffAfter(n)
		} else if wait > c.maxWait {
			return nil, fmt.Errorf("%w (Retry-After asks for %s, more than the %s allowed)", err, wait, c.maxWait)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, fmt.Errorf("%w (no time left for a retry)", err)
		}
		c.log.Debug("origin retry", "service", svc.name, "key", key, "wait", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("origin: %s %s: %w", svc.name, key, ctx.Err())
		case <-t.C:
		}
	}
}

// attempt makes one request. It reports whether a failure may be retried
// and, for a 429 or 5xx with a Retry-After header, how long to wait (-1:
// not said).
func (c *Client) attempt(ctx context.Context, svc *service, raw, key string) (body []byte, retry bool, wait time.Duration, err error) {
	ok, probe := svc.breaker.allow()
	if !ok {
		return nil, false, 0, &DownError{Service: svc.name, Key: key, State: svc.breaker.state()}
	}
	var failed, cancelled bool
	defer func() { svc.breaker.done(probe, failed, cancelled, err) }()
	select {
	case svc.sem <- struct{}{}:
	case <-ctx.Done():
		cancelled = true
		return nil, false, 0, ctx.Err()
	}
	defer func() { <-svc.sem }()
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, false, 0, fmt.Errorf("%w: %s %s: %v", ErrUpstream, svc.name, key, unwrapURL(err))
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		// A host that cannot be reached at all (no such name, connection
		// refused: an offline machine) is not retried, so that a store
		// without network does not wait out the backoff.
		var op *net.OpError
		unreachable := errors.As(err, &op) && op.Op == "dial" && actx.Err() == nil
		// The caller giving up is not the service's failure; its
		// deadline passing, as the attempt's timeout, is.
		cancelled = errors.Is(ctx.Err(), context.Canceled)
		failed = !cancelled
		return nil, !unreachable, -1, fmt.Errorf("%w: %s %s: %v", ErrUpstream, svc.name, key, unwrapURL(err))
	}
	defer resp.Body.Close()
	switch s := resp.StatusCode; {
	case s == http.StatusOK:
		if resp.ContentLength > c.maxBytes {
			return nil, false, 0, fmt.Errorf("%w: %s %s: answer of %d bytes is over the %d-byte cap", ErrUpstream, svc.name, key, resp.ContentLength, c.maxBytes)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
		if err != nil {
			cancelled = errors.Is(ctx.Err(), context.Canceled)
			failed = !cancelled
			return nil, true, -1, fmt.Errorf("%w: %s %s: reading the answer: %v", ErrUpstream, svc.name, key, err)
		}
		if int64(len(body)) > c.maxBytes {
			return nil, false, 0, fmt.Errorf("%w: %s %s: answer is over the %d-byte cap", ErrUpstream, svc.name, key, c.maxBytes)
		}
		return body, false, 0, nil
	case s == http.StatusNotFound:
		drain(resp.Body)
		return nil, false, 0, fmt.Errorf("%w: %s %s", ErrNotFound, svc.name, key)
	case s == http.StatusTooManyRequests || s >= 500:
		failed = s >= 500 // a 429 is an answer: the service is up
		drain(resp.Body)
		return nil, true, retryAfter(resp.Header.Get("Retry-After"), time.Now()), fmt.Errorf("%w: %s %s: %s", ErrUpstream, svc.name, key, resp.Status)
	default:
		drain(resp.Body)
		return nil, false, 0, fmt.Errorf("%w: %s %s: %s", ErrUpstream, svc.name, key, resp.Status)
	}
}

// drain reads a little of an unwanted body so that the connection can be
// reused.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, io.LimitReader(r, 64<<10)) }

// unwrapURL strips the *url.Error around a transport error, whose text
// would repeat the URL and with it the contact address.
func unwrapURL(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// backoffAfter is the jittered wait after the n-th failed attempt
// (counting from 0): Backoff·2ⁿ, capped at MaxRetryWait, drawn from
// [d/2, d].
func (c *Client) backoffAfter(n int) time.Duration {
	d := c.maxWait
	if n < 30 && c.backoff<<n > 0 && c.backoff<<n < d {
		d = c.backoff << n
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// retryAfter is the wait a Retry-After header value v asks for, in
// seconds or as an HTTP date (a past date is no wait), or -1 when v says
// nothing usable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return -1
		}
		const most = 1 << 20 // seconds; far over any cap, and no overflow
		return time.Duration(min(n, most)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}
