// Package store is papermem's database: all of the library's SQL, on
// either of two engines, SQLite (a file, the embedded default) or
// PostgreSQL (a postgres:// URL, shared by several servers).
//
// Open sets each engine's connection options (sqlite.go, postgres.go) and
// applies the engine's embedded migrations; Writer runs the write queue
// and hands each write a Tx, and DB.Reader is the read pool (tx.go);
// IsUnique, IsFull, IsBusy and IsUnavailable classify the engines'
// errors, and ErrNotFound says that a row asked for is not there.
//
// The queries live in one file per concern (accounts.go, admin.go,
// auth.go, billing.go, export.go, graph.go, nodes.go, papers.go,
// recall.go, usage.go, usermem.go, workspaces.go), as functions that take
// a Querier (querier.go), so that the caller chooses the transaction or
// the read pool (a *sql.DB itself where a comment says why), and plain
// values, and return plain rows; the callers keep the rules. What is
// written in several statements — a paper, a document, an analysis or a
// memory with its nodes, every vector anew — is one method of Tx. The
// package owns how rows are encoded: times as Timestamp writes them,
// authors and notices as JSON arrays, vectors as vectors.go says, a
// node's parent as NULL or an id. search.go reads what the in-process search index
// (internal/nodeindex) holds and tells it what changed; vectors.go is the
// format vectors are stored in.
//
// The SQL is written once, as SQLite takes it, with ? for parameters; on
// PostgreSQL the connections rewrite the placeholders as $n (rebind.go).
// Where the engines' SQL differs beyond that, a function takes the Engine
// of its Querier and writes that engine's fragment (dialect.go).
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Memory is the path that selects a private in-memory SQLite database.
const Memory = ":memory:"

// Engine is a database engine papermem stores in.
type Engine string

// The engines.
const (
	// SQLite stores in one file, or in memory: one process writes.
	SQLite Engine = "sqlite"
	// Postgres stores in a PostgreSQL database that several papermem
	// servers may share.
	Postgres Engine = "postgres"
)

// EngineOf returns the engine path selects: Postgres for a postgres:// or
// postgresql:// URL, SQLite for anything else (a file path or ":memory:").
func EngineOf(path string) Engine {
	if strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://") {
		return Postgres
	}
	return SQLite
}

// Redact returns path fit for a log line or an error message: a
// PostgreSQL URL without its password. A URL net/url cannot parse (one
// with several IPv6 hosts, postgres://[::1]:5432,[::2]:5432/db, which pgx
// takes) has what stands between "://" and the last "@" of its hosts
// replaced.
func Redact(path string) string {
	if EngineOf(path) != Postgres {
		return path
	}
	u, err := url.Parse(path)
	if err == nil {
		return u.Redacted()
	}
	scheme, rest, _ := strings.Cut(path, "://")
	hosts, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hosts, tail = rest[:i], rest[i:]
	}
	user, hosts, ok := cutLast(hosts, "@")
	if !ok {
		return path
	}
	if name, _, pw := strings.Cut(user, ":"); pw {
		user = name + ":xxxxx"
	}
	return scheme + "://" + user + "@" + hosts + tail
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+len(sep):], true
}

// Synchronous settings: how hard a commit pushes to disk.
const (
	// SyncNormal: on SQLite (PRAGMA synchronous=NORMAL with the WAL) a
	// commit survives a crash of the process, but the last commits before a
	// power loss or an operating-system crash may be lost (the database
	// stays consistent). On PostgreSQL the server's synchronous_commit
	// applies.
	SyncNormal = "normal"
	// SyncFull: on SQLite the WAL is synced on every commit, on PostgreSQL
	// the write connection sets synchronous_commit=on: a commit survives
	// power loss.
	SyncFull = "full"
)

// DB is papermem's database: a pool of read connections and one write
// connection. For an in-memory SQLite database both are the same single
// connection.
type DB struct {
	// Engine is the database's engine.
	Engine Engine
	// Read serves queries. Its connections are read-only: a write through
	// it fails, so every write goes through Write (and the Writer). A read
	// transaction sees one snapshot of the database.
	Read *sql.DB
	// Write holds the one connection that writes.
	Write *sql.DB
}

// Close closes the read pool, then the write connection. On SQLite the
// last connection to close checkpoints the WAL and removes it.
func (d *DB) Close() error {
	if d.Read == d.Write {
		return d.Write.Close()
	}
	rerr := d.Read.Close()
	var cerr error
	if d.Engine == SQLite {
		_, cerr = d.Write.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return errors.Join(rerr, cerr, d.Write.Close())
}

// Open opens the database path selects (see EngineOf), creating a SQLite
// file and its directory when missing, and migrates it, with synchronous
// set to sync (SyncNormal or SyncFull). Path ":memory:" opens a private
// in-memory SQLite database on one connection. On PostgreSQL no wait for
// the server is bounded but by ctx (see OpenTimeout).
func Open(ctx context.Context, path, sync string) (*DB, error) {
	return OpenTimeout(ctx, path, sync, 0)
}

// OpenTimeout is Open where, on PostgreSQL, a timeout above zero bounds
// each wait for the server once the database is migrated (see
// postgresPool); zero means none.
func OpenTimeout(ctx context.Context, path, sync string, timeout time.Duration) (*DB, error) {
	if sync != SyncNormal && sync != SyncFull {
		return nil, fmt.Errorf("synchronous %q: want %q or %q", sync, SyncNormal, SyncFull)
	}
	if EngineOf(path) == Postgres {
		return openPostgres(ctx, path, sync, timeout)
	}
	return openSQLite(ctx, path, sync)
}

// OpenSQL opens a plain connection pool on the database path selects, with
// neither migrations nor papermem's connection settings: a tool's or a
// test's view of the tables (on PostgreSQL it takes ? placeholders too).
// SQLite opens the file read-only unless writable is set.
func OpenSQL(path string, writable bool) (*sql.DB, error) {
	if EngineOf(path) == Postgres {
		return postgresPool(path, nil, 0)
	}
	mode := "ro"
	if writable {
		mode = "rw"
	}
	return sql.Open("sqlite3", "file:"+path+"?mode="+mode+"&_busy_timeout=10000")
}

// createMigrations makes the table of applied migrations. SQLite keeps the
// statement's text as the table's schema, which the upgrade test compares
// between databases made at different times: its bytes stay as they are.
const createMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations(
		name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`

// Migrate applies, in name order, every embedded migration of engine not
// yet recorded in schema_migrations, each in its own transaction, with
// their steps in Go (goSteps). On SQLite a
// migration's retired statements are left out; on PostgreSQL a
// transaction-scoped advisory lock on the schema makes concurrent
// migrators (servers starting together) take turns, each finding what the
// one before it applied.
func Migrate(ctx context.Context, db *sql.DB, engine Engine) error {
	return migrateBefore(ctx, db, engine, "")
}

// migrateBefore is Migrate applying only the migrations named before stop,
// all of them when stop is "": the schema of an earlier build, for tests.
func migrateBefore(ctx context.Context, db *sql.DB, engine Engine, stop string) error {
	if err := inMigration(ctx, db, engine, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, createMigrations)
		return err
	}); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/"+string(engine)+"/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	known := map[string]bool{}
	for _, name := range names {
		if stop != "" && path.Base(name) >= stop {
			break
		}
		if err := inMigration(ctx, db, engine, func(tx *sql.Tx) error { return apply(ctx, tx, engine, name) }); err != nil {
			return fmt.Errorf("migrate %s: %w", path.Base(name), err)
		}
		known[path.Base(name)] = true
	}
	if err := inMigration(ctx, db, engine, func(tx *sql.Tx) error { return newerSchema(ctx, tx, known) }); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// newerSchema refuses a database that a newer papermem has migrated: a
// build does not know what a later migration changed (a column it does not
// write, a table whose rows it would leave behind), so it does not serve
// such a database, as an older server would during a rolling upgrade once
// a newer one has started. known are this build's migrations.
func newerSchema(ctx context.Context, q Querier, known map[string]bool) error {
	applied, err := scanStrings(q.QueryContext(ctx, `SELECT name FROM schema_migrations ORDER BY name`))
	if err != nil {
		return err
	}
	for _, name := range applied {
		if !known[name] {
			return fmt.Errorf("the database was migrated by a newer papermem (migration %s, which this build does not have): run that version or a later one", name)
		}
	}
	return nil
}

// inMigration runs fn in a transaction and commits it; on PostgreSQL the
// transaction first waits for the schema's migration lock.
func inMigration(ctx context.Context, db *sql.DB, engine Engine, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if engine == Postgres {
		// Migrations wait for each other as long as ctx allows, not for
		// the write connection's lock_timeout.
		if _, err := tx.ExecContext(ctx, `SET LOCAL lock_timeout = 0`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('papermem migrate ' || current_schema(), 0))`); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// goSteps are the steps of migrations that Go code takes, by name: a
// line "-- go: name" of a migration runs the step there, between the
// statements before and after it, in the migration's transaction. They
// rewrite rows in a way the engines' SQL cannot.
var goSteps = map[string]func(context.Context, *sql.Tx, Engine) error{
	"compactVectors": compactVectors,
}

// goStep matches a line that runs a Go step (goSteps).
var goStep = regexp.MustCompile(`(?m)^-- go: (\w+)\n`)

// apply runs migration name in tx unless it is recorded, with its Go
// steps, and records it.
func apply(ctx context.Context, tx *sql.Tx, engine Engine, name string) error {
	base := path.Base(name)
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
	if engine == SQLite {
		for _, stmt := range retired[base] {
			if !strings.Contains(script, stmt) {
				return fmt.Errorf("retired statement not found: %.60s", stmt)
			}
			script = strings.Replace(script, stmt, "", 1)
		}
	}
	for _, m := range goStep.FindAllStringSubmatchIndex(script, -1) {
		step := goSteps[script[m[2]:m[3]]]
		if step == nil {
			return fmt.Errorf("no Go step %s", script[m[2]:m[3]])
		}
		if _, err := tx.ExecContext(ctx, script[:m[0]]); err != nil {
			return err
		}
		if err := step(ctx, tx, engine); err != nil {
			return err
		}
		script = script[m[1]:]
	}
	if _, err := tx.ExecContext(ctx, script); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO schema_migrations(name, applied_at) VALUES(?, ?)",
		base, time.Now().UTC().Format(time.RFC3339))
	return err
}

// IsUnique reports whether err is a UNIQUE or PRIMARY KEY constraint
// failure (PostgreSQL: unique_violation, 23505).
func IsUnique(err error) bool {
	if code, ok := pgCode(err); ok {
		return code == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// IsFull reports whether the database has no room: SQLite's "database or
// disk is full" (the disk, or the database's max_page_count), PostgreSQL's
// disk_full (53100).
func IsFull(err error) bool {
	if code, ok := pgCode(err); ok {
		return code == "53100"
	}
	return sqliteFull(err)
}

// isTransient reports whether PostgreSQL rolled err's statement back only
// because of what ran beside it: a deadlock it chose this transaction to
// break (40P01), or a serialization failure (40001). Run again, the same
// work may succeed.
func isTransient(err error) bool {
	code, ok := pgCode(err)
	return ok && (code == "40P01" || code == "40001")
}

// IsBusy reports whether err says that another writer was in the way:
// SQLite's "database is locked" (another process held the write lock past
// the busy timeout); on PostgreSQL a serialization failure (40001), a
// deadlock (40P01), a lock not had within lock_timeout (55P03) or a
// statement cancelled by its timeout (57014). Retrying may succeed.
func IsBusy(err error) bool {
	if code, ok := pgCode(err); ok {
		switch code {
		case "40001", "40P01", "55P03", "57014":
			return true
		}
		return false
	}
	return sqliteBusy(err)
}

// IsUnavailable reports whether err says that the database cannot be used
// for now, rather than that the operation was wrong: retrying later may
// succeed. It is IsBusy's errors, and the ways of losing the database: on
// PostgreSQL a connection refused, reset or broken (ErrConnLost,
// ErrCommitUnknown, driver.ErrBadConn, a connection not made, any net
// error), the server shutting down or starting up (57P01, 57P02, 57P03),
// a connection exception (class 08), too many connections (53300); on
// SQLite an I/O error; on either, a context deadline (a pool that had no
// connection in time, a statement not done in time).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if IsBusy(err) {
		return true
	}
	if down, known := pgUnavailable(err); known {
		return down
	}
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.As(err, &ne) ||
		errors.Is(err, context.DeadlineExceeded) || sqliteIO(err)
}
