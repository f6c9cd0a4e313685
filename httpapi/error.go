package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// This file is the only one that knows HTTP status codes of errors.

// statuses maps the API's error codes to HTTP statuses; an unknown code is
// 500.
var statuses = map[string]int{
	api.CodeInvalidInput:        http.StatusBadRequest,
	api.CodeUnknownPlan:         http.StatusBadRequest,
	api.CodeDuplicateEmail:      http.StatusBadRequest,
	api.CodeInvalidWorkspace:    http.StatusBadRequest,
	api.CodeMissingUserID:       http.StatusBadRequest,
	api.CodeNotFound:            http.StatusNotFound,
	api.CodeUnauthorized:        http.StatusUnauthorized,
	api.CodeForbidden:           http.StatusForbidden,
	api.CodePayloadTooLarge:     http.StatusRequestEntityTooLarge,
	api.CodeUnsupportedFormat:   http.StatusUnsupportedMediaType,
	api.CodeUpstreamFailed:      http.StatusBadGateway,
	api.CodeUnavailable:         http.StatusServiceUnavailable,
	api.CodeInsufficientStorage: http.StatusInsufficientStorage,
	api.CodeInternal:            http.StatusInternalServerError,
	api.CodeRateLimited:         http.StatusTooManyRequests,
	api.CodeMethodNotAllowed:    http.StatusMethodNotAllowed,
}

// retryAfterUnavailable is the Retry-After (seconds) of a 503: the write
// queue drains in well under a second, and a restarting server or database
// is back in a few.
const retryAfterUnavailable = 1

// rateLimitError is a refused request: wait retryAfter before retrying.
type rateLimitError struct{ retryAfter time.Duration }

func (e *rateLimitError) Error() string { return "rate limit exceeded" }

var (
	errMethodNotAllowed = &papermem.Error{Code: api.CodeMethodNotAllowed, Message: "This method is not allowed on this route."}
	errDraining         = &papermem.Error{Code: papermem.EUNAVAILABLE, Message: "The server is shutting down; retry shortly."}
)

// statusOf returns the status and API code of err.
func statusOf(err error) (int, string) {
	var rl *rateLimitError
	var tooBig *http.MaxBytesError
	code := api.Code(err)
	switch {
	case errors.As(err, &rl):
		code = api.CodeRateLimited
	case errors.As(err, &tooBig):
		code = api.CodePayloadTooLarge
	}
	status, ok := statuses[code]
	if !ok {
		status, code = http.StatusInternalServerError, api.CodeInternal
	}
	return status, code
}

// writeError writes err as {"error":{"code","message"}} with its status.
// Internal errors are logged and their details withheld.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, code := statusOf(err)
	msg := papermem.ErrorMessage(err)
	var rl *rateLimitError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &rl):
		secs := int((rl.retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		msg = "Rate limit exceeded; retry after the number of seconds in Retry-After."
	case errors.As(err, &tooBig):
		msg = "The request body is larger than " + strconv.FormatInt(tooBig.Limit, 10) + " bytes."
	case status == http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", challenge(r))
	case status == http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
		if errors.Is(err, papermem.ErrDatabaseUnavailable) {
			s.db.failed(r.Context(), err) // logged once per outage
		}
	case status == http.StatusInsufficientStorage:
		s.log.WarnContext(r.Context(), "storage full", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyErr, err)
	case status >= 500 && status != http.StatusBadGateway:
		s.log.ErrorContext(r.Context(), "request failed", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyErr, err)
		msg = "Internal error."
	case status == http.StatusBadGateway:
		s.log.WarnContext(r.Context(), "upstream failed", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyErr, err)
	}
	writeJSON(w, status, api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: msg}})
}

// challenge is the WWW-Authenticate of a 401 (RFC 9110 requires one): the
// Bearer scheme of RFC 6750, with error="invalid_token" when the request
// sent a credential. There is no resource_metadata parameter: papermem
// runs no OAuth authorization server for MCP clients to discover.
func challenge(r *http.Request) string {
	c := `Bearer realm="` + ServiceName + `"`
	if r.Header.Get("Authorization") != "" {
		c += `, error="invalid_token"`
	}
	return c
}

// codeOfStatus is the API code of an error another component wrote with
// status and no code (the MCP transport's plain-text refusals): 400 is
// invalid_input, another status the code it is the status of, and one of
// no code internal.
func codeOfStatus(status int) string {
	if status == http.StatusBadRequest {
		return api.CodeInvalidInput
	}
	for code, s := range statuses {
		if s == status {
			return code
		}
	}
	return api.CodeInternal
}
