package api

import (
	"errors"

	"github.com/papermem/papermem"
)

// Codes of the API's error bodies, {"error":{"code","message"}}, fixed by
// the contract. Those the library has are its codes, spelled the same
// (CodeNotFound is papermem.ENOTFOUND); the others refine one of its codes
// or, method_not_allowed, are the router's own.
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

// vocabulary is the one map between the API's codes and the library's:
// each API code with the library code it stands for and, when it refines
// that code, the sentinel its errors wrap. Code reads it from the library
// to the API, ErrorOf from the API back. papermem.ECONFLICT is the one
// library code the API lacks: a conflict is sent as invalid_input, unless
// it is a taken email (duplicate_email) or workspace id
// (invalid_workspace), so ErrorOf gives ECONFLICT only for duplicate_email.
var vocabulary = []struct {
	api, lib string
	refines  error // the sentinel of an API code that refines lib; nil when the code is lib
}{
	{CodeInvalidInput, papermem.EINVALID, nil},
	{CodeUnknownPlan, papermem.EUNKNOWNPLAN, nil},
	{CodeNotFound, papermem.ENOTFOUND, nil},
	{CodeUnauthorized, papermem.EUNAUTHORIZED, nil},
	{CodeForbidden, papermem.EFORBIDDEN, nil},
	{CodePayloadTooLarge, papermem.ETOOLARGE, nil},
	{CodeUnsupportedFormat, papermem.EUNSUPPORTED, nil},
	{CodeUpstreamFailed, papermem.EUPSTREAM, nil},
	{CodeUnavailable, papermem.EUNAVAILABLE, nil},
	{CodeInsufficientStorage, papermem.ENOSPACE, nil},
	{CodeRateLimited, papermem.ERATELIMITED, nil},
	{CodeInternal, papermem.EINTERNAL, nil},
	{CodeMethodNotAllowed, CodeMethodNotAllowed, nil}, // the router's; no library code
	{CodeDuplicateEmail, papermem.ECONFLICT, papermem.ErrDuplicateEmail},
	{CodeInvalidWorkspace, papermem.EINVALID, papermem.ErrWorkspaceID},
	{CodeMissingUserID, papermem.EINVALID, ErrMissingUser},
}

var errNoUser = errors.New("no user id")

// ErrMissingUser is the error of an operation on per-user memory without a
// user id: EINVALID, API code missing_user_id.
var ErrMissingUser = &papermem.Error{Code: papermem.EINVALID, Err: errNoUser,
	Message: "This operation needs a user id: use a session token, or send X-User-Id with an API key."}

// Code returns the API code of err: the code of the sentinel it wraps
// (duplicate_email, invalid_workspace, missing_user_id), else its
// papermem code, which is the API's (ECONFLICT is invalid_input, a code
// the API lacks internal). Nil is "".
func Code(err error) string {
	if err == nil {
		return ""
	}
	for _, v := range vocabulary {
		if v.refines != nil && errors.Is(err, v.refines) {
			return v.api
		}
	}
	code := papermem.ErrorCode(err)
	if code == papermem.ECONFLICT {
		return CodeInvalidInput
	}
	for _, v := range vocabulary {
		if v.refines == nil && v.lib == code {
			return v.api
		}
	}
	return CodeInternal
}

// ErrorOf returns the error an error body stands for, in the library's
// vocabulary: a *papermem.Error with the library's code for d.Code and
// d.Message, wrapping the sentinel d.Code refines (papermem.ErrDuplicateEmail
// for duplicate_email, papermem.ErrWorkspaceID for invalid_workspace,
// ErrMissingUser for missing_user_id). papermem.ErrorCode, errors.Is and
// Code then read it as they read the error the server answered with, a
// conflict sent as invalid_input apart (EINVALID). A code this version
// does not know is kept as sent.
func ErrorOf(d ErrorDetail) *papermem.Error {
	for _, v := range vocabulary {
		if v.api == d.Code {
			return &papermem.Error{Code: v.lib, Message: d.Message, Err: v.refines}
		}
	}
	return &papermem.Error{Code: d.Code, Message: d.Message}
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
