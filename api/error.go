package api

import (
	"errors"

	"github.com/papermem/papermem"
)

// Codes of the API's error bodies, {"error":{"code","message"}}.
const (
	CodeInvalidInput        = "invalid_input"
	CodeUnknownPlan         = "unknown_plan"
	CodeNotFound            = "not_found"
	CodeUnauthorized        = "unauthorized"
	CodeForbidden           = "forbidden"
	CodePayloadTooLarge     = "payload_too_large"
	CodeUnsupportedFormat   = "unsupported_format"
	CodeUpstreamFailed      = "upstream_failed"
	CodeUnavailable         = "unavailable"
	CodeInsufficientStorage = "insufficient_storage"
	CodeInternal            = "internal"
	CodeRateLimited         = "rate_limited"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodeDuplicateEmail      = "duplicate_email"
	CodeInvalidWorkspace    = "invalid_workspace"
	CodeMissingUserID       = "missing_user_id"
)

// codes maps papermem's error codes to the API's.
var codes = map[string]string{
	papermem.EINVALID:      CodeInvalidInput,
	papermem.EUNKNOWNPLAN:  CodeUnknownPlan,
	papermem.ECONFLICT:     CodeInvalidInput,
	papermem.ENOTFOUND:     CodeNotFound,
	papermem.EUNAUTHORIZED: CodeUnauthorized,
	papermem.EFORBIDDEN:    CodeForbidden,
	papermem.ETOOLARGE:     CodePayloadTooLarge,
	papermem.EUNSUPPORTED:  CodeUnsupportedFormat,
	papermem.EUPSTREAM:     CodeUpstreamFailed,
	papermem.EUNAVAILABLE:  CodeUnavailable,
	papermem.ENOSPACE:      CodeInsufficientStorage,
	papermem.EINTERNAL:     CodeInternal,
}

// apiCodes are the codes an error may carry already, as errors decoded
// from a response do (package client).
var apiCodes = map[string]bool{
	CodeInvalidInput: true, CodeUnknownPlan: true, CodeNotFound: true, CodeUnauthorized: true,
	CodeForbidden: true, CodePayloadTooLarge: true, CodeUnsupportedFormat: true, CodeUpstreamFailed: true,
	CodeInternal: true, CodeRateLimited: true, CodeMethodNotAllowed: true, CodeDuplicateEmail: true,
	CodeInvalidWorkspace: true, CodeMissingUserID: true, CodeUnavailable: true, CodeInsufficientStorage: true,
}

// refinements give errors that carry a sentinel their own API code.
var refinements = []struct {
	target error
	code   string
}{
	{papermem.ErrDuplicateEmail, CodeDuplicateEmail},
	{papermem.ErrWorkspaceID, CodeInvalidWorkspace},
	{errNoUser, CodeMissingUserID},
}

var errNoUser = errors.New("no user id")

// ErrMissingUser is the error of an operation on per-user memory without a
// user id: EINVALID, API code missing_user_id.
var ErrMissingUser = &papermem.Error{Code: papermem.EINVALID, Err: errNoUser,
	Message: "This operation needs a user id: use a session token, or send X-User-Id with an API key."}

// Code returns the API code of err: its papermem code translated (an
// unknown one is internal), refined by the sentinels it wraps; an error
// already carrying an API code keeps it. Nil is "".
func Code(err error) string {
	if err == nil {
		return ""
	}
	code := papermem.ErrorCode(err)
	if !apiCodes[code] {
		var ok bool
		if code, ok = codes[code]; !ok {
			code = CodeInternal
		}
	}
	for _, rf := range refinements {
		if errors.Is(err, rf.target) {
			return rf.code
		}
	}
	return code
}

// ErrorBody is the body of every error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is an error's code and message.
type ErrorDetail struct {
	Code    string `json:"code" doc:"snake_case error code, e.g. invalid_input, unauthorized, not_found, rate_limited"`
	Message string `json:"message" doc:"a human sentence saying what went wrong"`
}
