package fetch

import (
	"context"
	"net/http"
)

// Observe is told of each request a client sends to server (the URL's
// host, without port): it returns the request's context and the function
// called as the answer's headers arrive, with its status (0 without an
// answer) and error.
type Observe func(ctx context.Context, server string) (context.Context, func(status int, err error))

// Observed returns rt with each request told to observe; rt itself when
// observe is nil.
func Observed(rt http.RoundTripper, observe Observe) http.RoundTripper {
	if observe == nil {
		return rt
	}
	return observed{rt, observe}
}

type observed struct {
	base    http.RoundTripper
	observe Observe
}

func (o observed) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, end := o.observe(req.Context(), req.URL.Hostname())
	resp, err := o.base.RoundTrip(req.WithContext(ctx))
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	end(status, err)
	return resp, err
}
