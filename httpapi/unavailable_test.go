package httpapi

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testutil"
)

// unavailableServer serves the real handler over m (and a hosted service
// over it), with one more route,
// GET /v1/test/fail, whose handler fails with *fail, the way a handler
// whose Memory call failed does (with the store's error translated, as
// every exported method of the memory and the service translates it).
func unavailableServer(t *testing.T, m *papermem.Memory, fail *error) (*httptest.Server, *testutil.Buffer) {
	t.Helper()
	log := &testutil.Buffer{}
	h := New(testutil.Hosted(t, m, nil), Config{Logger: slog.New(slog.NewTextHandler(log, nil))})
	h.s.router.Handle("/v1/test/fail", h.s.adapt(func(w http.ResponseWriter, r *http.Request) error { return *fail })).Methods(http.MethodGet)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, log
}

// get returns the status, Retry-After and body of GET url.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return r.StatusCode, r.Header.Get("Retry-After"), string(b)
}

// TestUnavailableStatus: every way of losing the database, and SQLite's
// busy and I/O errors, is 503 unavailable with Retry-After and the error
// body, never 500; an outage is logged once, and again only after the
// database has answered in between.
func TestUnavailableStatus(t *testing.T) {
	m := testutil.Open(t, nil)
	var fail error
	srv, log := unavailableServer(t, m, &fail)
	for name, err := range map[string]error{
		"AdminShutdown57P01":    fmt.Errorf("take token: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}),
		"CrashShutdown57P02":    &pgconn.PgError{Severity: "FATAL", Code: "57P02"},
		"CannotConnectNow57P03": &pgconn.PgError{Severity: "FATAL", Code: "57P03"},
		"ConnException08006":    &pgconn.PgError{Code: "08006"},
		"StatementTimeout57014": &pgconn.PgError{Code: "57014"},
		"LockTimeout55P03":      &pgconn.PgError{Code: "55P03"},
		"Refused":               &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)},
		"Reset":                 &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)},
		"ConnLost":              fmt.Errorf("%w: %w", store.ErrConnLost, io.ErrUnexpectedEOF),
		"BadConn":               fmt.Errorf("authenticate session: %w", driver.ErrBadConn),
		"PoolTimeout":           fmt.Errorf("recall: %w", context.DeadlineExceeded),
		"SQLiteBusy":            sqlite3.Error{Code: sqlite3.ErrBusy},
		"SQLiteIO":              sqlite3.Error{Code: sqlite3.ErrIoErr},
	} {
		t.Run(name, func(t *testing.T) {
			fail = store.Translate(err, "")
			status, retry, body := get(t, srv.URL+"/v1/test/fail")
			if status != http.StatusServiceUnavailable || retry != "1" {
				t.Errorf("status %d, Retry-After %q; want 503, 1: %s", status, retry, body)
			}
			var eb api.ErrorBody
			if err := json.Unmarshal([]byte(body), &eb); err != nil || eb.Error.Code != api.CodeUnavailable || eb.Error.Message == "" {
				t.Errorf("body %s: want an unavailable error", body)
			}
			if strings.Contains(body, "SQLSTATE") || strings.Contains(body, "sqlite") {
				t.Errorf("body %s tells internals", body)
			}
		})
	}
	if n := strings.Count(log.String(), "database unavailable"); n != 1 {
		t.Errorf("the outage was logged %d times, want once:\n%s", n, log)
	}
	if strings.Contains(log.String(), "request failed") {
		t.Errorf("an unavailable database was logged as an internal error:\n%s", log)
	}

	// A request that succeeds checks the database, which answers: the
	// outage is over, and the next failure starts another.
	if status, _, body := get(t, srv.URL+"/"); status != http.StatusOK {
		t.Fatalf("GET /: %d %s", status, body)
	}
	if !strings.Contains(log.String(), "database available again") {
		t.Errorf("the end of the outage is not logged:\n%s", log)
	}
	fail = store.Translate(&pgconn.PgError{Severity: "FATAL", Code: "57P01"}, "")
	get(t, srv.URL+"/v1/test/fail")
	if n := strings.Count(log.String(), "database unavailable"); n != 2 {
		t.Errorf("two outages were logged %d times, want twice:\n%s", n, log)
	}

	// A full write queue is 503 too, but is not an outage.
	fail = &papermem.Error{Code: papermem.EUNAVAILABLE, Message: "Too many writes are waiting; retry shortly.", Err: store.ErrQueueFull}
	get(t, srv.URL+"/")
	get(t, srv.URL+"/v1/test/fail")
	if n := strings.Count(log.String(), "database unavailable"); n != 2 {
		t.Errorf("a full queue was logged as an outage:\n%s", log)
	}
}

// TestHealthDatabaseDown: /v1/health is 503 with the database reported
// down while it cannot be reached, /v1/status 200 and degraded.
func TestHealthDatabaseDown(t *testing.T) {
	m := testutil.Open(t, nil)
	var fail error = errors.New("unused")
	srv, log := unavailableServer(t, m, &fail)
	m.Close() // every ping fails from now on

	status, retry, body := get(t, srv.URL+"/v1/health")
	var h api.HealthResponse
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatal(err)
	}
	if status != http.StatusServiceUnavailable || retry != "1" || h.Status != "unavailable" || h.Components["database"] != "down" {
		t.Errorf("health: %d, Retry-After %q, %s; want 503, 1, unavailable with the database down", status, retry, body)
	}
	status, _, body = get(t, srv.URL+"/v1/status")
	var s api.StatusResponse
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK || s.Status != "degraded" || s.Components["database"] != "down" {
		t.Errorf("status: %d %s; want 200, degraded with the database down", status, body)
	}
	if n := strings.Count(log.String(), "database unavailable"); n != 1 {
		t.Errorf("the outage was logged %d times, want once:\n%s", n, log)
	}
}
