package api

import (
	"errors"
	"fmt"
)

// Error codes. Every error papermem returns maps to one of them through
// ErrorCode. They are the codes of the HTTP API's error bodies, spelled the
// same (EINVALID is invalid_input, ENOTFOUND not_found), with one
// exception: the API has no code for a conflict and sends ECONFLICT as
// invalid_input, a taken email as duplicate_email and a taken workspace id
// as invalid_workspace. Package api holds that map, both ways; package
// client turns the API's codes back into these, so that ErrorCode and the
// sentinels answer the same for a failure met in process and through the
// client, conflicts apart: through the client only a taken email is
// ECONFLICT (with ErrDuplicateEmail), other conflicts read as EINVALID.
const (
	EINVALID      = "invalid_input"        // bad input
	EUNKNOWNPLAN  = "unknown_plan"         // no plan or tier of that name
	ENOTFOUND     = "not_found"            // no such thing in this workspace
	ECONFLICT     = "conflict"             // a duplicate or an incompatible state (on the wire: invalid_input)
	EUNAUTHORIZED = "unauthorized"         // missing or bad credentials
	EFORBIDDEN    = "forbidden"            // authenticated but not allowed
	ETOOLARGE     = "payload_too_large"    // input over a size limit
	EUNSUPPORTED  = "unsupported_format"   // a format papermem cannot read
	EUPSTREAM     = "upstream_failed"      // an outside service failed
	EUNAVAILABLE  = "unavailable"          // busy or shutting down: nothing was done, retry shortly
	ENOSPACE      = "insufficient_storage" // the disk or database is full: nothing was stored
	ERATELIMITED  = "rate_limited"         // over a rate limit: retry later (the hosted service's limits)
	EINTERNAL     = "internal"             // anything else
)

// Sentinels, one per code: errors.Is(err, ErrNotFound) reports whether
// err's chain holds an *Error of code ENOTFOUND, whoever made it (the
// library, or package client from an API error). The library and the client return
// every failure they can name as an *Error, so that a sentinel matches it.
var (
	ErrInvalid      = &Error{Code: EINVALID, Message: "Invalid input."}
	ErrUnknownPlan  = &Error{Code: EUNKNOWNPLAN, Message: "Unknown plan."}
	ErrNotFound     = &Error{Code: ENOTFOUND, Message: "Not found."}
	ErrConflict     = &Error{Code: ECONFLICT, Message: "Already exists."}
	ErrUnauthorized = &Error{Code: EUNAUTHORIZED, Message: "Missing or invalid credentials."}
	ErrForbidden    = &Error{Code: EFORBIDDEN, Message: "Not allowed."}
	ErrTooLarge     = &Error{Code: ETOOLARGE, Message: "Too large."}
	ErrUnsupported  = &Error{Code: EUNSUPPORTED, Message: "Unsupported format."}
	ErrUpstream     = &Error{Code: EUPSTREAM, Message: "An outside service failed."}
	ErrUnavailable  = &Error{Code: EUNAVAILABLE, Message: "Unavailable; retry shortly."}
	ErrNoSpace      = &Error{Code: ENOSPACE, Message: "No room to store this."}
	ErrRateLimited  = &Error{Code: ERATELIMITED, Message: "Rate limit exceeded."}
	ErrInternal     = &Error{Code: EINTERNAL, Message: "Internal error."}
)

// Sentinels in the chain of some errors, for callers that tell them apart
// (errors.Is): the HTTP layer gives them their own API codes.
var (
	// ErrWorkspaceID: a workspace id is malformed or already taken.
	ErrWorkspaceID = errors.New("invalid or taken workspace id")
	// ErrDuplicateEmail: an account with the email exists (package hosted).
	ErrDuplicateEmail = errors.New("duplicate email")
	// ErrDatabaseUnavailable: the database cannot be used for now
	// (unreachable, restarting, locked or out of time: see the README's
	// PostgreSQL section). It is in the chain of an EUNAVAILABLE error, so
	// that a server can tell an outage from a full write queue.
	ErrDatabaseUnavailable = errors.New("the database cannot be used for now")
)

// sentinels are the code sentinels by code.
var sentinels = map[string]*Error{
	EINVALID: ErrInvalid, EUNKNOWNPLAN: ErrUnknownPlan, ENOTFOUND: ErrNotFound, ECONFLICT: ErrConflict,
	EUNAUTHORIZED: ErrUnauthorized, EFORBIDDEN: ErrForbidden, ETOOLARGE: ErrTooLarge,
	EUNSUPPORTED: ErrUnsupported, EUPSTREAM: ErrUpstream, EUNAVAILABLE: ErrUnavailable,
	ENOSPACE: ErrNoSpace, ERATELIMITED: ErrRateLimited, EINTERNAL: ErrInternal,
}

// KnownCode reports whether code is one of the library's codes above
// (EINVALID … EINTERNAL).
func KnownCode(code string) bool { return sentinels[code] != nil }

// Error is papermem's error: a code, a message safe to show a user, and an
// optional underlying error.
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's code (ErrNotFound for
// ENOTFOUND, …). Any other target, an *Error or not, matches only itself.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && t == sentinels[e.Code]
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, "" for nil
// and EINTERNAL for an error that holds none. Every exported method of
// package papermem and of package hosted returns an *Error for every failure
// it can name (a database that cannot be used for now is EUNAVAILABLE, text
// the database cannot hold EINVALID), so EINTERNAL means a failure nobody
// expected.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of the first *Error in err's
// chain, or a generic message that reveals nothing of an internal error.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// Codes of the API's error bodies, {"error":{"code","message"}}, fixed by
// the contract. Those the library has are its codes, spelled the same
// (CodeNotFound is ENOTFOUND); the others refine one of its codes
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
// to the API, ErrorOf from the API back. ECONFLICT is the one
// library code the API lacks: a conflict is sent as invalid_input, unless
// it is a taken email (duplicate_email) or workspace id
// (invalid_workspace), so ErrorOf gives ECONFLICT only for duplicate_email.
var vocabulary = []struct {
	api, lib string
	refines  error // the sentinel of an API code that refines lib; nil when the code is lib
}{
	{CodeInvalidInput, EINVALID, nil},
	{CodeUnknownPlan, EUNKNOWNPLAN, nil},
	{CodeNotFound, ENOTFOUND, nil},
	{CodeUnauthorized, EUNAUTHORIZED, nil},
	{CodeForbidden, EFORBIDDEN, nil},
	{CodePayloadTooLarge, ETOOLARGE, nil},
	{CodeUnsupportedFormat, EUNSUPPORTED, nil},
	{CodeUpstreamFailed, EUPSTREAM, nil},
	{CodeUnavailable, EUNAVAILABLE, nil},
	{CodeInsufficientStorage, ENOSPACE, nil},
	{CodeRateLimited, ERATELIMITED, nil},
	{CodeInternal, EINTERNAL, nil},
	{CodeMethodNotAllowed, CodeMethodNotAllowed, nil}, // the router's; no library code
	{CodeDuplicateEmail, ECONFLICT, ErrDuplicateEmail},
	{CodeInvalidWorkspace, EINVALID, ErrWorkspaceID},
	{CodeMissingUserID, EINVALID, ErrMissingUser},
}

var errNoUser = errors.New("no user id")

// ErrMissingUser is the error of an operation on per-user memory without a
// user id: EINVALID, API code missing_user_id.
var ErrMissingUser = &Error{Code: EINVALID, Err: errNoUser,
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
	code := ErrorCode(err)
	if code == ECONFLICT {
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
// vocabulary: a *Error with the library's code for d.Code and
// d.Message, wrapping the sentinel d.Code refines (ErrDuplicateEmail
// for duplicate_email, ErrWorkspaceID for invalid_workspace,
// ErrMissingUser for missing_user_id). ErrorCode, errors.Is and
// Code then read it as they read the error the server answered with, a
// conflict sent as invalid_input apart (EINVALID). A code this version
// does not know is kept as sent.
func ErrorOf(d ErrorDetail) *Error {
	for _, v := range vocabulary {
		if v.api == d.Code {
			return &Error{Code: v.lib, Message: d.Message, Err: v.refines}
		}
	}
	return &Error{Code: d.Code, Message: d.Message}
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
