package store

import (
	"errors"
	"fmt"

	"github.com/papermem/papermem/api"
)

// The errors of this package's functions are the database's; Translate
// and TranslateWrite turn them into the contract's (package api), the one
// place that does, so that the memory (package papermem) and the hosted
// service (package hosted) return the same *api.Error for the same
// failure, and a caller needs neither this package nor a driver to tell an
// outage (api.ErrUnavailable, with api.ErrDatabaseUnavailable in its
// chain) from a missing row (api.ErrNotFound).

// errText is the message of text the database refused (ErrText).
const errText = "Text must be valid UTF-8 without NUL characters (U+0000): this database cannot store them."

// Translate returns err in the contract's vocabulary: unchanged when its
// chain holds an *api.Error already; ENOTFOUND with the message notFound
// for a missing row (ErrNotFound); ECONFLICT for a uniqueness failure;
// EINVALID for text the database cannot hold (ErrText); EUNAVAILABLE for a
// database that cannot be used for now (IsUnavailable); any other error
// unchanged (api.ErrorCode reads it as EINTERNAL). Nil stays nil. The
// result wraps err.
func Translate(err error, notFound string) error {
	var e *api.Error
	switch {
	case err == nil || errors.As(err, &e):
		return err
	case errors.Is(err, ErrNotFound):
		return &api.Error{Code: api.ENOTFOUND, Message: notFound, Err: err}
	case IsUnique(err):
		return &api.Error{Code: api.ECONFLICT, Message: "Already exists.", Err: err}
	case errors.Is(err, ErrText):
		return &api.Error{Code: api.EINVALID, Message: errText, Err: err}
	case IsUnavailable(err):
		return unavailable("The database is unavailable; retry shortly.", err)
	}
	return err
}

// TranslateWrite is Translate for the errors of a write (Writer.Do, or a
// write made outside the queue), whose messages say that nothing was
// stored: EUNAVAILABLE when the queue is full (ErrQueueFull), the write did
// not get its turn in time (ErrWaitExpired), the database is closing
// (ErrClosed), the commit's outcome is unknown (ErrCommitUnknown) or the
// database cannot be used for now; ENOSPACE when it is full (IsFull).
func TranslateWrite(err error) error {
	var e *api.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	msg := ""
	switch {
	case errors.Is(err, ErrQueueFull):
		msg = "Too many writes are waiting; retry shortly."
	case errors.Is(err, ErrWaitExpired):
		msg = "The write did not get its turn in time; retry shortly."
	case errors.Is(err, ErrClosed):
		msg = "The database is closing."
	case errors.Is(err, ErrCommitUnknown):
		msg = "The database connection broke during the commit: the write may have been stored. Check before retrying."
	case IsBusy(err):
		msg = "The database is locked by another process; retry shortly."
	case IsUnavailable(err):
		msg = "The database is unavailable; nothing was stored. Retry shortly."
	case IsFull(err):
		return &api.Error{Code: api.ENOSPACE, Message: "The database has no room to store this; nothing was stored.", Err: err}
	default:
		return Translate(err, "Not found.")
	}
	return unavailable(msg, err)
}

// unavailable is an EUNAVAILABLE error wrapping err, whose chain also
// holds api.ErrDatabaseUnavailable when err is an outage (IsUnavailable).
func unavailable(msg string, err error) *api.Error {
	if IsUnavailable(err) {
		err = fmt.Errorf("%w: %w", api.ErrDatabaseUnavailable, err)
	}
	return &api.Error{Code: api.EUNAVAILABLE, Message: msg, Err: err}
}
