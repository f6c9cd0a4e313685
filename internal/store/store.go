// Package store opens papermem's SQLite database: it sets the connection
// pragmas, registers sqlite-vec and applies the embedded migrations.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	"github.com/mattn/go-sqlite3" // database/sql driver "sqlite3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Memory is the path that selects a private in-memory database.
const Memory = ":memory:"

func init() { vec.Auto() }

// Synchronous settings: how hard a commit pushes to disk (PRAGMA
// synchronous, with the WAL journal).
const (
	// SyncNormal syncs the WAL at checkpoints only: a commit survives a
	// crash of the process, but the last commits before a power loss or an
	// operating-system crash may be lost (the database stays consistent).
	SyncNormal = "normal"
	// SyncFull syncs the WAL on every commit: a commit survives power loss.
	SyncFull = "full"
)

// DB is papermem's database: a pool of read connections and one write
// connection. For an in-memory database both are the same single
// connection.
type DB struct {
	// Read serves queries. Its connections are query-only: a write through
	// it fails, so every write goes through Write (and the Writer).
	Read *sql.DB
	// Write holds the one connection that writes.
	Write *sql.DB
}

// Close closes the read pool, then the write connection. The last
// connection to close checkpoints the WAL and removes it.
func (d *DB) Close() error {
	if d.Read == d.Write {
		return d.Write.Close()
	}
	rerr := d.Read.Close()
	_, cerr := d.Write.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return errors.Join(rerr, cerr, d.Write.Close())
}

// Open opens (creating when missing) the database at path and migrates it,
// with synchronous set to sync (SyncNormal or SyncFull). Path ":memory:"
// opens a private in-memory database on one connection.
func Open(ctx context.Context, path, sync string) (*DB, error) {
	if sync != SyncNormal && sync != SyncFull {
		return nil, fmt.Errorf("synchronous %q: want %q or %q", sync, SyncNormal, SyncFull)
	}
	write, err := openPool(ctx, path, sync, false)
	if err != nil {
		return nil, err
	}
	// One writer: every write transaction runs on this connection.
	write.SetMaxOpenConns(1)
	if err := Migrate(ctx, write); err != nil {
		write.Close()
		return nil, err
	}
	if path == Memory {
		return &DB{Read: write, Write: write}, nil
	}
	read, err := openPool(ctx, path, sync, true)
	if err != nil {
		write.Close()
		return nil, err
	}
	return &DB{Read: read, Write: write}, nil
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
	if err := db.PingContext(ctx); err != nil {
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

// Migrate applies, in name order, every embedded migration not yet recorded
// in schema_migrations, each in its own transaction, less its retired
// statements.
func Migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations(
		name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := apply(ctx, db, name); err != nil {
			return fmt.Errorf("migrate %s: %w", filepath.Base(name), err)
		}
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, name string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	base := filepath.Base(name)
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE name = ?", base).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	script := string(body)
	for _, stmt := range retired[base] {
		if !strings.Contains(script, stmt) {
			return fmt.Errorf("retired statement not found: %.60s", stmt)
		}
		script = strings.Replace(script, stmt, "", 1)
	}
	if _, err := tx.ExecContext(ctx, script); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations(name, applied_at) VALUES(?, ?)",
		base, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return err
	}
	return tx.Commit()
}

// IsUnique reports whether err is a UNIQUE or PRIMARY KEY constraint failure.
func IsUnique(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// IsFull reports whether err is SQLite's "database or disk is full": the
// disk has no room, or the database reached its max_page_count.
func IsFull(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrFull
}

// IsBusy reports whether err is SQLite's "database is locked": another
// process held the write lock past the busy timeout.
func IsBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// VacuumInto writes a consistent snapshot of the database to path (a
// missing or empty file) from a read connection, so that writes go on
// meanwhile. The connection is query-only: it may write for the VACUUM
// only, and is discarded if it cannot be made query-only again.
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
