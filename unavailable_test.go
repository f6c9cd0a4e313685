package papermem_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
	"github.com/papermem/papermem"
)

// TestUnavailableErrors: losing the database is EUNAVAILABLE with a
// message that says to retry, never EINTERNAL; other database errors keep
// their codes.
func TestUnavailableErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"AdminShutdown":   {fmt.Errorf("take token: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}), papermem.EUNAVAILABLE},
		"StartingUp":      {&pgconn.PgError{Severity: "FATAL", Code: "57P03"}, papermem.EUNAVAILABLE},
		"ConnException":   {&pgconn.PgError{Code: "08006"}, papermem.EUNAVAILABLE},
		"StatementTimout": {&pgconn.PgError{Code: "57014"}, papermem.EUNAVAILABLE},
		"LockTimeout":     {&pgconn.PgError{Code: "55P03"}, papermem.EUNAVAILABLE},
		"Refused":         {&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, papermem.EUNAVAILABLE},
		"BadConn":         {fmt.Errorf("authenticate session: %w", driver.ErrBadConn), papermem.EUNAVAILABLE},
		"Deadline":        {context.DeadlineExceeded, papermem.EUNAVAILABLE},
		"SQLiteBusy":      {sqlite3.Error{Code: sqlite3.ErrBusy}, papermem.EUNAVAILABLE},
		"Syntax":          {&pgconn.PgError{Code: "42601"}, papermem.EINTERNAL},
		"NoRows":          {sql.ErrNoRows, papermem.EINTERNAL},
		"Classified":      {&papermem.Error{Code: papermem.ENOTFOUND, Message: "No.", Err: context.DeadlineExceeded}, papermem.ENOTFOUND},
	} {
		t.Run(name, func(t *testing.T) {
			if got := papermem.ErrorCode(tc.err); got != tc.want {
				t.Errorf("ErrorCode(%v) = %q, want %q", tc.err, got, tc.want)
			}
			if tc.want == papermem.EUNAVAILABLE {
				if got, want := papermem.ErrorMessage(tc.err), "The database is unavailable; retry shortly."; got != want {
					t.Errorf("ErrorMessage(%v) = %q, want %q", tc.err, got, want)
				}
			}
		})
	}
}
