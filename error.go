package papermem

import (
	"errors"
	"fmt"

	"github.com/papermem/papermem/internal/store"
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
// library, or package client from an API error). ErrorCode also classifies
// a database error that reaches the caller without an *Error (on a read: a
// database that cannot be reached is EUNAVAILABLE, text it cannot hold
// EINVALID, anything else EINTERNAL), which no sentinel matches; compare
// ErrorCode with a code to cover those too.
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
)

// sentinels are the code sentinels by code.
var sentinels = map[string]*Error{
	EINVALID: ErrInvalid, EUNKNOWNPLAN: ErrUnknownPlan, ENOTFOUND: ErrNotFound, ECONFLICT: ErrConflict,
	EUNAUTHORIZED: ErrUnauthorized, EFORBIDDEN: ErrForbidden, ETOOLARGE: ErrTooLarge,
	EUNSUPPORTED: ErrUnsupported, EUPSTREAM: ErrUpstream, EUNAVAILABLE: ErrUnavailable,
	ENOSPACE: ErrNoSpace, ERATELIMITED: ErrRateLimited, EINTERNAL: ErrInternal,
}

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

// ErrorCode returns the code of the first *Error in err's chain, "" for nil,
// EINVALID for text the database cannot hold (on PostgreSQL, a NUL
// character or invalid UTF-8, in any input), EUNAVAILABLE for a database
// that cannot be used for now (unreachable, restarting, locked or out of
// time: see the README's PostgreSQL section) and EINTERNAL for any other
// error.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	if e := asError(err); e != nil {
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
	if e := asError(err); e != nil {
		return e.Message
	}
	return "Internal error."
}

// errText stands for store.ErrText.
var errText = &Error{Code: EINVALID, Message: "Text must be valid UTF-8 without NUL characters (U+0000): this database cannot store them."}

// errUnavailable stands for the errors of a database that cannot be used
// for now (store.IsUnavailable).
var errUnavailable = &Error{Code: EUNAVAILABLE, Message: "The database is unavailable; retry shortly."}

// asError returns the first *Error in err's chain, errText for a text the
// database refused, errUnavailable for a database that cannot be used for
// now, or nil.
func asError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, store.ErrText):
		return errText
	case store.IsUnavailable(err):
		return errUnavailable
	}
	return nil
}

// dbError translates the store's errors: no such row (store.ErrNotFound)
// becomes ENOTFOUND with the given message, a uniqueness failure ECONFLICT;
// others pass unchanged.
func dbError(err error, notFound string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return &Error{Code: ENOTFOUND, Message: notFound, Err: err}
	case store.IsUnique(err):
		return &Error{Code: ECONFLICT, Message: "Already exists.", Err: err}
	}
	return err
}
