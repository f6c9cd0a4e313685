package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	"github.com/mattn/go-sqlite3" // database/sql driver "sqlite3"
)

func init() { vec.Auto() }

// openSQLite opens the SQLite database at path: one write connection, and
// a pool of query-only connections (the write connection itself for an
// in-memory database).
func openSQLite(ctx context.Context, path, sync string) (*DB, error) {
	write, err := openPool(ctx, path, sync, false)
	if err != nil {
		return nil, err
	}
	// One writer: every write transaction runs on this connection.
	write.SetMaxOpenConns(1)
	if err := Migrate(ctx, write, SQLite); err != nil {
		write.Close()
		return nil, err
	}
	if path == Memory {
		return &DB{Engine: SQLite, Read: write, Write: write}, nil
	}
	read, err := openPool(ctx, path, sync, true)
	if err != nil {
		write.Close()
		return nil, err
	}
	return &DB{Engine: SQLite, Read: read, Write: write}, nil
}

// openPool opens a connection pool on path and checks that sqlite-vec is
// loaded.
func openPool(ctx context.Context, path, sync string, queryOnly bool) (*sql.DB, error) {
	dsn, err := dsnFor(path, sync, queryOnly)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if path == Memory {
		// Every connection to a private in-memory database is its own
		// database: keep exactly one.
		db.SetMaxOpenConns(1)
	}
	// Keep connections open: opening one costs a file open, the pragmas and
	// sqlite-vec's registration, and database/sql keeps only 2 idle ones by
	// default, so concurrent requests would keep reopening them.
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	if err := pingFirst(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	var vecVersion string
	if err := db.QueryRowContext(ctx, "SELECT vec_version()").Scan(&vecVersion); err != nil {
		db.Close()
		return nil, fmt.Errorf("load sqlite-vec: %w", err)
	}
	return db, nil
}

// openBusyFor is how long opening a connection waits out other processes
// opening or migrating the same file: the busy timeout of the DSN.
const openBusyFor = 10 * time.Second

// pingFirst opens db's first connection. Its pragmas (WAL mode on a new
// file) need a lock that SQLite refuses at once, without the busy
// handler, while another process opens or migrates the file; so a busy
// open is tried again, with backoff, for up to openBusyFor.
func pingFirst(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(openBusyFor)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || !sqliteBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

func dsnFor(path, sync string, queryOnly bool) (string, error) {
	q := url.Values{}
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "1")
	if queryOnly {
		// Read snapshots never take the write lock.
		q.Set("_query_only", "1")
		q.Set("_txlock", "deferred")
	} else {
		q.Set("_txlock", "immediate")
	}
	// Keep each connection's last 64 prepared statements: preparing costs
	// more than running a point query (go-sqlite3 resets and reuses them,
	// and re-prepares one whose schema changed).
	q.Set("_stmt_cache_size", "64")
	if path == Memory {
		return "file::memory:?" + q.Encode(), nil
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("create database directory: %w", err)
		}
	}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", strings.ToUpper(sync))
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode(), nil
}

// retired holds, by migration, statements that a later migration undoes,
// each as its exact text in the file. Migrations are append-only and apply
// in order, so a database applying the earlier file has not applied the
// later one, and will within the same Migrate: skipping such a statement
// there ends in the schema that running it and undoing it would, without
// needing what the statement needs. Databases that ran it keep their
// history and are changed by the later migration only.
//
// 0001 made nodes_fts, an FTS5 table, which go-sqlite3 compiles only under
// the build tag sqlite_fts5 (a plain build fails "no such module: fts5");
// 0008 drops it, so a database created now never has it.
var retired = map[string][]string{
	"0001_memory.sql": {
		`CREATE VIRTUAL TABLE nodes_fts USING fts5 (
	text, scope,
	content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);`,
		`INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');`,
	},
}

// sqliteFull reports whether err is SQLite's "database or disk is full".
func sqliteFull(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrFull
}

// sqliteBusy reports whether err is SQLite's "database is locked".
func sqliteBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// sqliteIO reports whether err is SQLite's disk I/O error.
func sqliteIO(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrIoErr
}

// VacuumInto writes a consistent snapshot of a SQLite database to path (a
// missing or empty file) from a read connection, so that writes go on
// meanwhile. The connection is query-only: it may write for the VACUUM
// only, and is discarded if it cannot be made query-only again. A
// PostgreSQL database has no file to copy (pg_dump backs it up): the caller
// checks Engine first.
func (d *DB) VacuumInto(ctx context.Context, path string) error {
	conn, err := d.Read.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if d.Read != d.Write {
		if _, err := conn.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
			return err
		}
		defer func() {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA query_only = 1"); err != nil {
				conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}()
	}
	_, err = conn.ExecContext(ctx, "VACUUM INTO ?", path)
	return err
}
