package papermem

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/papermem/papermem/internal/store"
)

// Error codes. Every error papermem returns maps to one of them through
// ErrorCode; the HTTP layer maps codes to statuses.
const (
	EINVALID      = "invalid"      // bad input
	EUNKNOWNPLAN  = "unknown_plan" // no plan or tier of that name
	ENOTFOUND     = "not_found"    // no such thing in this workspace
	ECONFLICT     = "conflict"     // a duplicate or an incompatible state
	EUNAUTHORIZED = "unauthorized" // missing or bad credentials
	EFORBIDDEN    = "forbidden"    // authenticated but not allowed
	ETOOLARGE     = "too_large"    // input over a size limit
	EUNSUPPORTED  = "unsupported"  // a format papermem cannot read
	EUPSTREAM     = "upstream"     // an outside service failed
	EUNAVAILABLE  = "unavailable"  // busy or shutting down: nothing was done, retry shortly
	ENOSPACE      = "no_space"     // the disk or database is full: nothing was stored
	EINTERNAL     = "internal"     // anything else
)

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

// dbError translates database errors: no rows becomes ENOTFOUND with the
// given message, a uniqueness failure ECONFLICT; others pass unchanged.
func dbError(err error, notFound string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return &Error{Code: ENOTFOUND, Message: notFound, Err: err}
	case store.IsUnique(err):
		return &Error{Code: ECONFLICT, Message: "Already exists.", Err: err}
	}
	return err
}
