package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/papermem/papermem"
)

// This file is the only one that knows HTTP status codes of errors.

// apiCode is what an error becomes on the wire.
type apiCode struct {
	status int
	code   string
}

// Error codes that exist only at the HTTP layer.
const (
	codeRateLimited      = "rate_limited"
	codeMethodNotAllowed = "method_not_allowed"
)

// codes maps papermem error codes (and the HTTP layer's own) to a status
// and the API's snake_case code.
var codes = map[string]apiCode{
	papermem.EINVALID:      {http.StatusBadRequest, "invalid_input"},
	papermem.EUNKNOWNPLAN:  {http.StatusBadRequest, "unknown_plan"},
	papermem.ECONFLICT:     {http.StatusBadRequest, "invalid_input"},
	papermem.ENOTFOUND:     {http.StatusNotFound, "not_found"},
	papermem.EUNAUTHORIZED: {http.StatusUnauthorized, "unauthorized"},
	papermem.EFORBIDDEN:    {http.StatusForbidden, "forbidden"},
	papermem.ETOOLARGE:     {http.StatusRequestEntityTooLarge, "payload_too_large"},
	papermem.EUNSUPPORTED:  {http.StatusUnsupportedMediaType, "unsupported_format"},
	papermem.EUPSTREAM:     {http.StatusBadGateway, "upstream_failed"},
	papermem.EUNAVAILABLE:  {http.StatusServiceUnavailable, "unavailable"},
	papermem.ENOSPACE:      {http.StatusInsufficientStorage, "insufficient_storage"},
	papermem.EINTERNAL:     {http.StatusInternalServerError, "internal"},
	codeRateLimited:        {http.StatusTooManyRequests, "rate_limited"},
	codeMethodNotAllowed:   {http.StatusMethodNotAllowed, "method_not_allowed"},
}

// refinements give errors that carry a sentinel their own API code, with
// the status of their papermem code.
var refinements = []struct {
	target error
	code   string
}{
	{papermem.ErrDuplicateEmail, "duplicate_email"},
	{papermem.ErrWorkspaceID, "invalid_workspace"},
	{errNoUser, "missing_user_id"},
}

// retryAfterUnavailable is the Retry-After (seconds) of a 503: the write
// queue drains in well under a second, and a restarting server is back in
// a few.
const retryAfterUnavailable = 1

// rateLimitError is a refused request: wait retryAfter before retrying.
type rateLimitError struct{ retryAfter time.Duration }

func (e *rateLimitError) Error() string { return "rate limit exceeded" }

var (
	errMethodNotAllowed = &papermem.Error{Code: codeMethodNotAllowed, Message: "This method is not allowed on this route."}
	errDraining         = &papermem.Error{Code: papermem.EUNAVAILABLE, Message: "The server is shutting down; retry shortly."}
	errNoUser           = errors.New("no user id")
	errMissingUser      = &papermem.Error{Code: papermem.EINVALID, Err: errNoUser,
		Message: "This operation needs a user id: use a session token, or send X-User-Id with an API key."}
)

// errorBody is the body of every error response.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code" doc:"snake_case error code, e.g. invalid_input, unauthorized, not_found, rate_limited"`
	Message string `json:"message" doc:"a human sentence saying what went wrong"`
}

// statusOf returns the status and API code of err.
func statusOf(err error) (int, string) {
	var rl *rateLimitError
	var tooBig *http.MaxBytesError
	code := papermem.ErrorCode(err)
	switch {
	case errors.As(err, &rl):
		code = codeRateLimited
	case errors.As(err, &tooBig):
		code = papermem.ETOOLARGE
	}
	c, ok := codes[code]
	if !ok {
		c = codes[papermem.EINTERNAL]
	}
	for _, rf := range refinements {
		if errors.Is(err, rf.target) {
			c.code = rf.code
			break
		}
	}
	return c.status, c.code
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
	case status == http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
	case status == http.StatusInsufficientStorage:
		s.log.WarnContext(r.Context(), "storage full", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyErr, err)
	case status >= 500 && status != http.StatusBadGateway:
		s.log.ErrorContext(r.Context(), "request failed", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyErr, err)
		msg = "Internal error."
	case status == http.StatusBadGateway:
		s.log.WarnContext(r.Context(), "upstream failed", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyErr, err)
	}
	writeJSON(w, status, errorBody{errorDetail{Code: code, Message: msg}})
}
