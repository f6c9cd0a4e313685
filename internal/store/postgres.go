package store

// PostgreSQL through github.com/jackc/pgx/v5, the driver the issue names:
// the most used and maintained pure-Go PostgreSQL driver, with a
// database/sql adapter (pgx/v5/stdlib) so that the code written for
// database/sql over SQLite runs unchanged, typed errors (pgconn.PgError)
// to classify, and a per-connection statement cache that prepares each
// query once.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"maps"
	"net"
	neturl "net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Connection settings of papermem's pools (PostgreSQL run-time parameters).
var (
	// pgWrite: a write waits at most 10 s for a row lock another server
	// holds, as SQLite's busy timeout waits for the file's write lock,
	// and then fails with lock_not_available (IsBusy).
	pgWrite = map[string]string{"lock_timeout": "10s"}
	// pgRead: the read pool cannot write (as SQLite's query_only), and a
	// read transaction sees one snapshot (as a SQLite read transaction
	// does): repeatable read, which a read-only transaction gets without
	// serialization failures.
	pgRead = map[string]string{
		"default_transaction_read_only": "on",
		"default_transaction_isolation": "repeatable read",
	}
)

// pgReadConns is the default bound of the read pool on PostgreSQL;
// pool_max_conns in the URL sets another. SQLite's read pool has no bound.
// A read is CPU work on the database server, which runs every server's
// reads on its own cores: connections beyond what those cores run at once
// only queue there, where the write connection's turn waits behind them.
// devtools/cmd/loadbench -servers 3 over a PostgreSQL sharing this 2-core machine
// served 46 requests/s with 16 connections a server (9 writes failed after
// 10 s waiting for a workspace lock) and 116/s with 4, none failing.
const pgReadConns = 4

// pgPoolParam is the URL parameter that bounds the read pool, named as
// pgxpool names its own.
const pgPoolParam = "pool_max_conns"

// openPostgres opens the PostgreSQL database at url: one write connection
// and a pool of read-only connections, each waiting at most timeout for
// the server (see postgresPool), after migrating the database on a
// connection of its own that waits as long as ctx allows (a migration may
// take long, or wait for another server's).
func openPostgres(ctx context.Context, url, sync string, timeout time.Duration) (*DB, error) {
	_, readConns, err := poolSize(url)
	if err != nil {
		return nil, err
	}
	migrate, err := postgresPool(url, pgWrite, 0)
	if err != nil {
		return nil, err
	}
	migrate.SetMaxOpenConns(1)
	err = migrate.PingContext(ctx)
	if err != nil {
		err = fmt.Errorf("open database %s: %w", Redact(url), err)
	} else {
		err = Migrate(ctx, migrate, Postgres)
	}
	migrate.Close()
	if err != nil {
		return nil, err
	}
	params := maps.Clone(pgWrite)
	if sync == SyncFull {
		params["synchronous_commit"] = "on"
	}
	write, err := postgresPool(url, params, timeout)
	if err != nil {
		return nil, err
	}
	// One writer per server, as on SQLite: the Writer's queue and shared
	// commits work unchanged, and the connection is the server's only
	// holder of row locks (see docs/operations.md, PostgreSQL).
	write.SetMaxOpenConns(1)
	read, err := postgresPool(url, pgRead, timeout)
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(readConns)
	read.SetMaxIdleConns(readConns)
	return &DB{Engine: Postgres, Read: read, Write: write}, nil
}

// poolSize returns raw without pool_max_conns (which pgx would send to the
// server as a setting) and the read pool's bound: its value, or
// pgReadConns when absent. It reads the query string alone, so that every
// URL pgx takes (several hosts, for one) is left as it is.
func poolSize(raw string) (string, int, error) {
	base, query, found := strings.Cut(raw, "?")
	if !found {
		return raw, pgReadConns, nil
	}
	q, err := neturl.ParseQuery(query)
	if err != nil || !q.Has(pgPoolParam) {
		return raw, pgReadConns, nil // pgx reports a bad query string
	}
	n, err := strconv.Atoi(q.Get(pgPoolParam))
	if err != nil || n < 1 || n > 1000 {
		return "", 0, fmt.Errorf("open database %s: %s must be a whole number from 1 to 1000", Redact(raw), pgPoolParam)
	}
	q.Del(pgPoolParam)
	if len(q) == 0 {
		return base, n, nil
	}
	return base + "?" + q.Encode(), n, nil
}

// postgresPool returns a pool of connections to url that take SQLite's
// placeholders, with params set on each connection (after the URL's own).
//
// A timeout above zero bounds every wait for the server: making a
// connection (to each of the URL's hosts in turn, unless the URL sets
// connect_timeout), and each wait for its answer once a statement is sent
// (the connection is closed when the server has sent nothing for that
// long; a long result that keeps coming is not cut). A stalled server (a
// frozen process, a network that drops packets without resetting the
// connection) so fails a statement in timeout, where without it the wait
// would last until the server came back.
//
// A multi-host URL (postgres://a,b/db?target_session_attrs=read-write)
// connects to the first host that takes writes, so a pool follows a
// promoted standby: a connection to the old primary breaks (ErrConnLost,
// see pgConn) and is dropped, and the next is made to the new one. The
// read-only pool's settings are set after that check (which asks the
// session whether it is read-only) rather than at connection.
func postgresPool(url string, params map[string]string, timeout time.Duration) (*sql.DB, error) {
	url, _, err := poolSize(url)
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", Redact(url), err)
	}
	readOnly := params["default_transaction_read_only"] == "on"
	if readOnly {
		var set []string
		for k, v := range params {
			set = append(set, "SET "+k+" = '"+v+"'")
		}
		after := cfg.AfterConnect
		cfg.AfterConnect = func(ctx context.Context, c *pgconn.PgConn) error {
			if after != nil {
				if err := after(ctx, c); err != nil {
					return err
				}
			}
			_, err := c.Exec(ctx, strings.Join(set, "; ")).ReadAll()
			return err
		}
	} else {
		for k, v := range params {
			cfg.RuntimeParams[k] = v
		}
	}
	var st *stall
	if timeout > 0 {
		if cfg.ConnectTimeout == 0 {
			cfg.ConnectTimeout = timeout
		}
		st = &stall{wait: timeout}
		dial := cfg.DialFunc
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &answerConn{Conn: c, wait: timeout, stall: st}, nil
		}
	}
	// No ping when a pooled connection is taken again: a connection that
	// broke meanwhile fails its statement with ErrConnLost, which
	// database/sql runs again where that is safe (see pgConn), and a ping
	// would cost each reuse a round trip, and a stalled server's timeout.
	noPing := stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false })
	return sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg, noPing), readOnly, st}), nil
}

// ErrStalled: the server did not answer a connection of the pool in time
// a moment ago, and no new connection is tried until the pool's timeout
// has passed since (see stall).
var ErrStalled = errors.New("database not answering")

// stall keeps a pool from making connections to a server that has just
// failed to answer in time: the requests waiting for a connection then
// fail at once rather than each waiting for an attempt of its own (a pool
// hands a failed attempt's error to one waiting request, chosen at
// random, and a request may so wait for many). Once the timeout has
// passed since the last failure, connections are tried again.
type stall struct {
	wait time.Duration

	mu    sync.Mutex
	until time.Time // no connection is tried before
}

// check returns ErrStalled while connections are not tried.
func (s *stall) check() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if left := time.Until(s.until); left > 0 {
		return fmt.Errorf("%w within %v: no new connection for %v", ErrStalled, s.wait, left.Round(time.Millisecond))
	}
	return nil
}

// failed records that the server did not answer in time when err is a
// timeout.
func (s *stall) failed(err error) {
	var ne net.Error
	if s == nil || err == nil || !(pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) {
		return
	}
	s.mu.Lock()
	s.until = time.Now().Add(s.wait)
	s.mu.Unlock()
}

// answerConn is a connection to PostgreSQL on which each read waits at
// most wait (or until the deadline pgx sets, when that is sooner): pgx
// reads only when it expects the server's answer, so a read that times
// out is a server that stopped answering. pgx then closes the connection.
type answerConn struct {
	net.Conn
	wait  time.Duration
	stall *stall // told when the server did not answer in wait

	mu       sync.Mutex
	deadline time.Time // the read deadline pgx set; zero for none
}

// Read reads with a deadline of wait from now, or pgx's own if sooner.
func (c *answerConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	d, ours := time.Now().Add(c.wait), true
	if !c.deadline.IsZero() && c.deadline.Before(d) {
		d, ours = c.deadline, false
	}
	err := c.Conn.SetReadDeadline(d)
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	if ours {
		c.stall.failed(err)
	}
	return n, err
}

// SetDeadline sets the read and write deadlines.
func (c *answerConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	if t.IsZero() { // a read under way keeps its own
		return c.Conn.SetWriteDeadline(t)
	}
	return c.Conn.SetDeadline(t)
}

// SetReadDeadline sets the read deadline.
func (c *answerConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	if t.IsZero() {
		return nil
	}
	return c.Conn.SetReadDeadline(t)
}

// pgConnector makes pgx's database/sql connections, wrapped to take ?.
// Those of a read-only pool retry a statement that lost its connection.
type pgConnector struct {
	driver.Connector
	readOnly bool
	stall    *stall // nil without a timeout
}

// Connect opens a connection, unless the server has just failed to
// answer in time (ErrStalled).
func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.stall.check(); err != nil {
		return nil, err
	}
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		c.stall.failed(err)
		return nil, err
	}
	return &pgConn{conn.(*stdlib.Conn), c.readOnly}, nil
}

// pgConn is a pgx connection that rewrites each query's placeholders
// (rebind) before pgx sees it, and binds booleans as SQLite does. Every
// other method, and with them the optional interfaces of database/sql/driver
// that pgx implements (checked below), is pgx's own.
//
// A statement or BEGIN that fails because the connection broke (the
// server shut down, restarted or went away: pgx has closed the connection)
// fails with ErrConnLost in its chain. database/sql runs it again on
// another connection, a new one at the last try, when the error is also
// driver.ErrBadConn, which these connections say only where nothing can
// have been done: for a BEGIN, and for any statement of a read-only pool
// (it cannot write) that failed before a row came back (pgx reads the first
// row before it answers). A statement of a transaction is never run again
// (database/sql returns the error), nor is a commit: one whose connection
// broke fails with ErrCommitUnknown.
type pgConn struct {
	*stdlib.Conn
	readOnly bool
}

var (
	_ driver.Conn               = (*pgConn)(nil)
	_ driver.ConnPrepareContext = (*pgConn)(nil)
	_ driver.ConnBeginTx        = (*pgConn)(nil)
	_ driver.ExecerContext      = (*pgConn)(nil)
	_ driver.QueryerContext     = (*pgConn)(nil)
	_ driver.NamedValueChecker  = (*pgConn)(nil)
	_ driver.Pinger             = (*pgConn)(nil)
	_ driver.SessionResetter    = (*pgConn)(nil)
)

// Prepare prepares query.
func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

// PrepareContext prepares query.
func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

// ExecContext runs query.
func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.Conn.ExecContext(ctx, rebind(query), args)
	return res, c.lost(err, c.readOnly)
}

// QueryContext runs query and returns its rows.
func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.QueryContext(ctx, rebind(query), args)
	return rows, c.lost(err, c.readOnly)
}

// BeginTx begins a transaction.
func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, c.lost(err, true)
	}
	return pgTx{tx, c}, nil
}

// lost returns err with ErrConnLost in its chain when the connection
// broke, and with driver.ErrBadConn too when retry says that running the
// statement again is safe and the server did not time out (a stalled
// server would only make the next connection wait as long).
func (c *pgConn) lost(err error, retry bool) error {
	switch {
	case err == nil || errors.Is(err, driver.ErrBadConn) || !c.Conn.Conn().IsClosed():
		return err
	case retry && !pgconn.Timeout(err):
		return fmt.Errorf("%w: %w: %w", driver.ErrBadConn, ErrConnLost, err)
	}
	return fmt.Errorf("%w: %w", ErrConnLost, err)
}

// pgTx is a transaction of a pgConn.
type pgTx struct {
	driver.Tx
	c *pgConn
}

// Commit commits the transaction. When the connection broke meanwhile, the
// commit may have happened or not: the error says ErrCommitUnknown.
func (t pgTx) Commit() error {
	err := t.Tx.Commit()
	if err != nil && t.c.Conn.Conn().IsClosed() {
		return fmt.Errorf("%w: %w: %w", ErrCommitUnknown, ErrConnLost, err)
	}
	return err
}

// Errors of a broken connection to PostgreSQL (see pgConn).
var (
	// ErrConnLost: the connection broke during the statement.
	ErrConnLost = errors.New("database connection lost")
	// ErrCommitUnknown: the connection broke during a commit, which may
	// or may not have happened.
	ErrCommitUnknown = errors.New("commit outcome unknown")
)

// ErrText is a string argument PostgreSQL cannot hold: one with a NUL
// character or that is not valid UTF-8 (its text types refuse both;
// SQLite keeps such text as it is). The statement is not sent, so the
// transaction it was to run in stays usable.
var ErrText = errors.New("text with a NUL character or invalid UTF-8")

// CheckNamedValue binds a bool as the integer 1 or 0, as go-sqlite3 does:
// papermem's flags are integer columns on both engines. A string
// PostgreSQL cannot hold fails with ErrText. Other values go to pgx as
// they are.
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	switch v := nv.Value.(type) {
	case bool:
		nv.Value = int64(0)
		if v {
			nv.Value = int64(1)
		}
	case string:
		if strings.IndexByte(v, 0) >= 0 || !utf8.ValidString(v) {
			return ErrText
		}
	}
	return c.Conn.CheckNamedValue(nv)
}

// pgUnavailable reports whether err says that PostgreSQL cannot be used
// for now (see IsUnavailable); known is false when err is not one of
// PostgreSQL's or pgx's.
func pgUnavailable(err error) (unavailable, known bool) {
	if errors.Is(err, ErrConnLost) || errors.Is(err, ErrCommitUnknown) || errors.Is(err, ErrStalled) {
		return true, true
	}
	if code, ok := pgCode(err); ok {
		switch code {
		case "57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
			"53300": // too_many_connections
			return true, true
		}
		return strings.HasPrefix(code, "08"), true // connection_exception
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) {
		return true, true
	}
	return false, false
}

// pgCode returns the SQLSTATE of a PostgreSQL error in err's chain.
func pgCode(err error) (string, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code, true
	}
	return "", false
}
