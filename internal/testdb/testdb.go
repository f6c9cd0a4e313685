// Package testdb gives each test a database of its own on the engine the
// test run chose: a SQLite file by default, or, when the environment
// variable PAPERMEM_TEST_POSTGRES holds the URL of a PostgreSQL database
// (such as the one `.ci/postgres start` prints), a schema of that database
// made for the test and dropped when it ends:
//
//	PAPERMEM_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres go test ./...
//
// It imports no papermem package, so that every package's tests can use it.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// Env names the variable that selects PostgreSQL.
const Env = "PAPERMEM_TEST_POSTGRES"

// Postgres reports whether the tests run on PostgreSQL.
func Postgres() bool { return os.Getenv(Env) != "" }

// Engine names the test run's engine as papermem's StorageMode does for a
// database file or URL: "sqlite" or "postgres".
func Engine() string {
	if Postgres() {
		return "postgres"
	}
	return "sqlite"
}

// SQLiteOnly skips the test on PostgreSQL, saying why: the test is about
// SQLite itself.
func SQLiteOnly(tb testing.TB, why string) {
	tb.Helper()
	if Postgres() {
		tb.Skip("SQLite only: " + why)
	}
}

// Path returns the path of a fresh database for the test, to pass to
// papermem.Open: a file in a temporary directory of the test, or on
// PostgreSQL the URL of a new empty schema (search_path set to it), which
// is dropped with everything in it when the test ends. Cleanups run last
// first, so that one registered after Path (closing the Memory) runs
// before the schema goes.
func Path(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(Env)
	if base == "" {
		return filepath.Join(tb.TempDir(), "papermem.db")
	}
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("%s: %v", Env, err)
	}
	db, err := admin(base)
	if err != nil {
		tb.Fatalf("%s: %v", Env, err)
	}
	schema := "papermem_test_" + strings.ToLower(rand.Text()[:12])
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		tb.Fatalf("create schema for the test: %v", err)
	}
	tb.Cleanup(func() {
		if _, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			tb.Errorf("drop the test's schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

var (
	adminOnce sync.Once
	adminDB   *sql.DB
	adminErr  error
)

// admin returns the pool that makes and drops the tests' schemas, opened
// once for the test binary.
func admin(base string) (*sql.DB, error) {
	adminOnce.Do(func() {
		adminDB, adminErr = sql.Open("pgx", base)
		if adminErr == nil {
			adminErr = adminDB.Ping()
		}
	})
	return adminDB, adminErr
}
