package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
	"github.com/papermem/papermem/api"
)

// TestTranslate: losing the database is EUNAVAILABLE with a message that
// says to retry, never EINTERNAL, and errors.Is finds api.ErrUnavailable
// and api.ErrDatabaseUnavailable in it; other database errors keep their
// codes, and an error that is an *api.Error already passes unchanged.
func TestTranslate(t *testing.T) {
	classified := &api.Error{Code: api.ENOTFOUND, Message: "No.", Err: context.DeadlineExceeded}
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"AdminShutdown":   {fmt.Errorf("take token: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}), api.EUNAVAILABLE},
		"StartingUp":      {&pgconn.PgError{Severity: "FATAL", Code: "57P03"}, api.EUNAVAILABLE},
		"ConnException":   {&pgconn.PgError{Code: "08006"}, api.EUNAVAILABLE},
		"StatementTimout": {&pgconn.PgError{Code: "57014"}, api.EUNAVAILABLE},
		"LockTimeout":     {&pgconn.PgError{Code: "55P03"}, api.EUNAVAILABLE},
		"Refused":         {&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, api.EUNAVAILABLE},
		"BadConn":         {fmt.Errorf("authenticate session: %w", driver.ErrBadConn), api.EUNAVAILABLE},
		"Deadline":        {context.DeadlineExceeded, api.EUNAVAILABLE},
		"SQLiteBusy":      {sqlite3.Error{Code: sqlite3.ErrBusy}, api.EUNAVAILABLE},
		"Syntax":          {&pgconn.PgError{Code: "42601"}, api.EINTERNAL},
		"NoRows":          {sql.ErrNoRows, api.EINTERNAL},
		"NotFound":        {fmt.Errorf("paper: %w", ErrNotFound), api.ENOTFOUND},
		"Text":            {fmt.Errorf("store: %w", ErrText), api.EINVALID},
		"Classified":      {classified, api.ENOTFOUND},
	} {
		t.Run(name, func(t *testing.T) {
			err := Translate(tc.err, "No such thing.")
			if got := api.ErrorCode(err); got != tc.want {
				t.Errorf("ErrorCode(Translate(%v)) = %q, want %q", tc.err, got, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("Translate(%v) does not wrap it", tc.err)
			}
			if tc.want == api.EUNAVAILABLE {
				if got, want := api.ErrorMessage(err), "The database is unavailable; retry shortly."; got != want {
					t.Errorf("ErrorMessage = %q, want %q", got, want)
				}
				if !errors.Is(err, api.ErrUnavailable) || !errors.Is(err, api.ErrDatabaseUnavailable) {
					t.Errorf("errors.Is(%v, ErrUnavailable, ErrDatabaseUnavailable) is false", err)
				}
			}
		})
	}
	if Translate(nil, "") != nil || TranslateWrite(nil) != nil {
		t.Error("nil is translated into an error")
	}
	if err := Translate(classified, ""); err != classified {
		t.Errorf("an *api.Error became %v", err)
	}
}

// TestTranslateWrite: the write path's failures are EUNAVAILABLE (an
// outage among them with api.ErrDatabaseUnavailable, a full queue without)
// or ENOSPACE.
func TestTranslateWrite(t *testing.T) {
	for name, tc := range map[string]struct {
		err    error
		want   string
		outage bool
	}{
		"QueueFull":     {ErrQueueFull, api.EUNAVAILABLE, false},
		"WaitExpired":   {ErrWaitExpired, api.EUNAVAILABLE, false},
		"Closed":        {ErrClosed, api.EUNAVAILABLE, false},
		"CommitUnknown": {ErrCommitUnknown, api.EUNAVAILABLE, true},
		"Busy":          {sqlite3.Error{Code: sqlite3.ErrBusy}, api.EUNAVAILABLE, true},
		"Refused":       {&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, api.EUNAVAILABLE, true},
		"Full":          {sqlite3.Error{Code: sqlite3.ErrFull}, api.ENOSPACE, false},
		"Text":          {ErrText, api.EINVALID, false},
		"Syntax":        {&pgconn.PgError{Code: "42601"}, api.EINTERNAL, false},
	} {
		t.Run(name, func(t *testing.T) {
			err := TranslateWrite(tc.err)
			if got := api.ErrorCode(err); got != tc.want {
				t.Errorf("ErrorCode(TranslateWrite(%v)) = %q, want %q", tc.err, got, tc.want)
			}
			if got := errors.Is(err, api.ErrDatabaseUnavailable); got != tc.outage {
				t.Errorf("errors.Is(%v, ErrDatabaseUnavailable) = %v, want %v", err, got, tc.outage)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("TranslateWrite(%v) does not wrap it", tc.err)
			}
		})
	}
}
