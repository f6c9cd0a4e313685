package papermem

import (
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
)

// Error codes (package api defines them, for the library and the Go client
// alike). Every error papermem returns maps to one of them through
// ErrorCode. They are the codes of the HTTP API's error bodies, spelled the
// same (EINVALID is invalid_input, ENOTFOUND not_found), with one exception:
// the API has no code for a conflict and sends ECONFLICT as invalid_input, a
// taken email as duplicate_email and a taken workspace id as
// invalid_workspace.
const (
	EINVALID      = api.EINVALID      // bad input
	EUNKNOWNPLAN  = api.EUNKNOWNPLAN  // no plan or tier of that name
	ENOTFOUND     = api.ENOTFOUND     // no such thing in this workspace
	ECONFLICT     = api.ECONFLICT     // a duplicate or an incompatible state (on the wire: invalid_input)
	EUNAUTHORIZED = api.EUNAUTHORIZED // missing or bad credentials
	EFORBIDDEN    = api.EFORBIDDEN    // authenticated but not allowed
	ETOOLARGE     = api.ETOOLARGE     // input over a size limit
	EUNSUPPORTED  = api.EUNSUPPORTED  // a format papermem cannot read
	EUPSTREAM     = api.EUPSTREAM     // an outside service failed
	EUNAVAILABLE  = api.EUNAVAILABLE  // busy or shutting down: nothing was done, retry shortly
	ENOSPACE      = api.ENOSPACE      // the disk or database is full: nothing was stored
	ERATELIMITED  = api.ERATELIMITED  // over a rate limit: retry later (the hosted service's limits)
	EINTERNAL     = api.EINTERNAL     // anything else
)

// Sentinels, one per code (api's, the same values): errors.Is(err,
// ErrNotFound) reports whether err's chain holds an *Error of code
// ENOTFOUND, whoever made it (the library, or package client from an API
// error). Every exported method returns the failures it can name as an
// *Error: a database that cannot be used for now is ErrUnavailable, text it
// cannot hold ErrInvalid.
var (
	ErrInvalid      = api.ErrInvalid
	ErrUnknownPlan  = api.ErrUnknownPlan
	ErrNotFound     = api.ErrNotFound
	ErrConflict     = api.ErrConflict
	ErrUnauthorized = api.ErrUnauthorized
	ErrForbidden    = api.ErrForbidden
	ErrTooLarge     = api.ErrTooLarge
	ErrUnsupported  = api.ErrUnsupported
	ErrUpstream     = api.ErrUpstream
	ErrUnavailable  = api.ErrUnavailable
	ErrNoSpace      = api.ErrNoSpace
	ErrRateLimited  = api.ErrRateLimited
	ErrInternal     = api.ErrInternal
)

// Sentinels in the chain of some errors, for callers that tell them apart
// (errors.Is): the HTTP layer gives them their own API codes.
var (
	// ErrWorkspaceID: a workspace id is malformed or already taken.
	ErrWorkspaceID = api.ErrWorkspaceID
	// ErrDuplicateEmail: an account with the email exists (package hosted).
	ErrDuplicateEmail = api.ErrDuplicateEmail
	// ErrDatabaseUnavailable: the database cannot be used for now
	// (unreachable, restarting, locked or out of time: see the README's
	// PostgreSQL section); in the chain of an EUNAVAILABLE error.
	ErrDatabaseUnavailable = api.ErrDatabaseUnavailable
)

// Error is papermem's error: a code, a message safe to show a user, and an
// optional underlying error (api.Error).
type Error = api.Error

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error { return api.Errorf(code, format, args...) }

// ErrorCode returns the code of the first *Error in err's chain, "" for nil
// and EINTERNAL for any other error (api.ErrorCode).
func ErrorCode(err error) string { return api.ErrorCode(err) }

// ErrorMessage returns the user-facing message of the first *Error in err's
// chain, or a generic message that reveals nothing of an internal error
// (api.ErrorMessage).
func ErrorMessage(err error) string { return api.ErrorMessage(err) }

// dbError translates the store's errors (store.Translate): no such row
// becomes ENOTFOUND with the given message, a uniqueness failure ECONFLICT,
// an outage EUNAVAILABLE; an *Error passes unchanged.
func dbError(err error, notFound string) error { return store.Translate(err, notFound) }

// translate turns an error of the store that reached an exported method
// untranslated into the contract's (store.Translate): every exported
// method that can fail defers it, so that callers meet only *Error values
// for what papermem can name (an outage is ErrUnavailable).
func translate(err *error) { *err = store.Translate(*err, "Not found.") }
