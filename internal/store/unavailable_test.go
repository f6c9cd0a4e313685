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
)

// TestIsUnavailable classifies every way of losing the database as
// unavailable, and nothing that says the operation itself was wrong.
func TestIsUnavailable(t *testing.T) {
	pg := func(code string) error {
		return fmt.Errorf("take token: %w", &pgconn.PgError{Severity: "FATAL", Code: code})
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"AdminShutdown57P01":      {pg("57P01"), true},
		"CrashShutdown57P02":      {pg("57P02"), true},
		"CannotConnectNow57P03":   {pg("57P03"), true},
		"ConnectionException08":   {pg("08006"), true},
		"ConnectionFailure08001":  {pg("08001"), true},
		"TooManyConnections53300": {pg("53300"), true},
		"StatementTimeout57014":   {pg("57014"), true},
		"LockTimeout55P03":        {pg("55P03"), true},
		"Deadlock40P01":           {pg("40P01"), true},
		"Serialization40001":      {pg("40001"), true},
		"Refused":                 {fmt.Errorf("ping: %w", refused), true},
		"Reset":                   {&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		"ConnectError":            {&pgconn.ConnectError{}, true},
		"ConnLost":                {fmt.Errorf("%w: %w", ErrConnLost, errors.New("unexpected EOF")), true},
		"CommitUnknown":           {fmt.Errorf("%w: %w", ErrCommitUnknown, errors.New("unexpected EOF")), true},
		"BadConn":                 {driver.ErrBadConn, true},
		"PoolTimeout":             {fmt.Errorf("read: %w", context.DeadlineExceeded), true},
		"SQLiteBusy":              {sqlite3.Error{Code: sqlite3.ErrBusy}, true},
		"SQLiteLocked":            {sqlite3.Error{Code: sqlite3.ErrLocked}, true},
		"SQLiteIO":                {sqlite3.Error{Code: sqlite3.ErrIoErr}, true},
		"Nil":                     {nil, false},
		"Unique23505":             {pg("23505"), false},
		"UndefinedTable42P01":     {pg("42P01"), false},
		"SQLiteFull":              {sqlite3.Error{Code: sqlite3.ErrFull}, false},
		"SQLiteConstraint":        {sqlite3.Error{Code: sqlite3.ErrConstraint}, false},
		"NoRows":                  {sql.ErrNoRows, false},
		"Canceled":                {context.Canceled, false},
		"Other":                   {errors.New("boom"), false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := IsUnavailable(tc.err); got != tc.want {
				t.Errorf("IsUnavailable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestRedactMultiHost: a URL of several hosts, which net/url parses or not
// (IPv6 literals), loses its password and keeps its hosts.
func TestRedactMultiHost(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@10.0.0.1:5432,10.0.0.2:5432/db?target_session_attrs=read-write": "postgres://u:xxxxx@10.0.0.1:5432,10.0.0.2:5432/db?target_session_attrs=read-write",
		"postgres://u:secret@[::1]:5432,[::2]:5432/db?target_session_attrs=read-write":       "postgres://u:xxxxx@[::1]:5432,[::2]:5432/db?target_session_attrs=read-write",
		"postgresql://u@[::1],[::2]/db": "postgresql://u@[::1],[::2]/db",
		"postgres://[::1],[::2]/db":     "postgres://[::1],[::2]/db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
