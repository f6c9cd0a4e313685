package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/papermem/papermem/internal/testdb"
)

// TestOpenSync checks that the synchronous setting reaches the write
// connection and the read pool (SQLite's PRAGMA synchronous: 1 normal, 2
// full; on PostgreSQL full sets synchronous_commit on the write
// connection), that reads cannot write, and that another setting is
// refused.
func TestOpenSync(t *testing.T) {
	ctx := context.Background()
	for sync, want := range map[string]string{SyncNormal: "1", SyncFull: "2"} {
		t.Run(sync, func(t *testing.T) {
			db, err := Open(ctx, testdb.Path(t), sync)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			pools := map[string]*sql.DB{"write": db.Write, "read": db.Read}
			query := "PRAGMA synchronous"
			if db.Engine == Postgres {
				pools, query = map[string]*sql.DB{"write": db.Write}, "SHOW synchronous_commit"
				if want = "on"; sync == SyncNormal {
					// The test cluster's own setting (.ci/postgres: off).
					if err := db.Read.QueryRowContext(ctx, query).Scan(&want); err != nil {
						t.Fatal(err)
					}
				}
			}
			for name, pool := range pools {
				var got string
				if err := pool.QueryRowContext(ctx, query).Scan(&got); err != nil || got != want {
					t.Errorf("%s: synchronous %s (%v), want %s", name, got, err, want)
				}
			}
			if _, err := db.Read.ExecContext(ctx, "INSERT INTO schema_migrations VALUES ('x', 'y')"); err == nil {
				t.Error("the read pool wrote")
			}
		})
	}
	if _, err := Open(ctx, testdb.Path(t), "off"); err == nil {
		t.Error("synchronous off accepted")
	}
}

// TestOpenFresh checks that a new database migrates (on SQLite without
// FTS5: a plain build has no fts5 module), records every migration of its
// engine, and never gets the table the retired statements made.
func TestOpenFresh(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	tables := `SELECT count(*) FROM sqlite_schema WHERE name LIKE 'nodes_fts%'`
	if db.Engine == Postgres {
		tables = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'nodes_fts%'`
	}
	var applied, fts int
	if err := db.Read.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM schema_migrations), (`+tables+`)`).Scan(&applied, &fts); err != nil {
		t.Fatal(err)
	}
	names, err := migrations.ReadDir("migrations/" + string(db.Engine))
	if err != nil {
		t.Fatal(err)
	}
	if applied != len(names) || fts != 0 {
		t.Errorf("%d of %d migrations recorded, %d nodes_fts objects", applied, len(names), fts)
	}
}

// TestOpenConcurrent checks that servers starting together over one new
// database migrate it once between them: every Open succeeds and each
// migration is recorded once.
func TestOpenConcurrent(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	const servers = 4
	var wg sync.WaitGroup
	dbs := make([]*DB, servers)
	errs := make([]error, servers)
	for i := range servers {
		wg.Go(func() { dbs[i], errs[i] = Open(ctx, path, SyncNormal) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("server %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
	var applied, names int
	if err := dbs[0].Read.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT name) FROM schema_migrations`).Scan(&applied, &names); err != nil {
		t.Fatal(err)
	}
	if applied != names {
		t.Errorf("%d migrations recorded for %d names", applied, names)
	}
}

// TestRetiredStatementMissing checks that a retired statement that is not
// in its migration, word for word, stops the migration rather than letting
// the statement run.
func TestRetiredStatementMissing(t *testing.T) {
	testdb.SQLiteOnly(t, "retired statements are SQLite's (FTS5)")
	saved := retired["0001_memory.sql"]
	t.Cleanup(func() { retired["0001_memory.sql"] = saved })
	retired["0001_memory.sql"] = append([]string{"CREATE TABLE gone (x);"}, saved...)
	_, err := Open(context.Background(), testdb.Path(t), SyncNormal)
	if err == nil || !strings.Contains(err.Error(), "0001_memory.sql: retired statement not found") {
		t.Fatalf("Open = %v", err)
	}
}

// TestErrors checks the classification of each engine's errors: a real
// UNIQUE failure of the test's engine, and PostgreSQL's codes.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	_, err := db.Write.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('k', 'a'), ('k', 'b')`)
	if !IsUnique(err) || IsBusy(err) || IsFull(err) {
		t.Errorf("duplicate key: %v: unique %v, busy %v, full %v", err, IsUnique(err), IsBusy(err), IsFull(err))
	}
	for code, want := range map[string]string{
		"23505": "unique", "40001": "busy", "40P01": "busy", "55P03": "busy", "57014": "busy", "53100": "full",
		"23503": "", "42P01": "",
	} {
		err := fmt.Errorf("write: %w", &pgconn.PgError{Code: code})
		var got []string
		for name, is := range map[string]func(error) bool{"unique": IsUnique, "busy": IsBusy, "full": IsFull} {
			if is(err) {
				got = append(got, name)
			}
		}
		if strings.Join(got, ",") != want {
			t.Errorf("code %s: %v, want %q", code, got, want)
		}
	}
	if IsUnique(nil) || IsBusy(nil) || IsFull(nil) || IsUnique(errors.New("other")) {
		t.Error("nil or another error classified")
	}
}

// TestText checks text PostgreSQL cannot hold, a NUL character and
// invalid UTF-8: there the statement fails with ErrText before it is sent,
// so its transaction goes on; SQLite keeps the text as it is.
func TestText(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	for _, text := range []string{"a\x00b", "a\xffb"} {
		tx, err := db.Write.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)`, "text", text)
		if db.Engine == Postgres {
			if !errors.Is(err, ErrText) {
				t.Fatalf("%q: %v, want ErrText", text, err)
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)`, "text", "valid")
		}
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := db.Read.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, "text").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := map[Engine]string{SQLite: text, Postgres: "valid"}[db.Engine]; got != want {
			t.Fatalf("%q: stored %q, want %q", text, got, want)
		}
		if _, err := db.Write.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, "text"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenSQL checks that the plain pool opens the database papermem made
// and takes ? placeholders on either engine.
func TestOpenSQL(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	db, err := Open(ctx, path, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, err := OpenSQL(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name <> ? AND '?' = '?'`, "x").Scan(&n); err != nil || n == 0 {
		t.Fatalf("count %d, err %v", n, err)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"./papermem.db": "./papermem.db",
		":memory:":      ":memory:",
		"postgres://u:secret@db:5432/pm?sslmode=disable": "postgres://u:xxxxx@db:5432/pm?sslmode=disable",
		"postgresql://db/pm":                             "postgresql://db/pm",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPoolSize checks pool_max_conns: taken out of the URL with the rest
// kept, the default when absent, and a bad value refused without the
// password in the error.
func TestPoolSize(t *testing.T) {
	for _, c := range []struct {
		in, url string
		n       int
	}{
		{"postgres://u:secret@db/pm?sslmode=disable", "postgres://u:secret@db/pm?sslmode=disable", pgReadConns},
		{"postgres://u:secret@db/pm?pool_max_conns=12&sslmode=disable", "postgres://u:secret@db/pm?sslmode=disable", 12},
		{"postgresql://db/pm?pool_max_conns=1", "postgresql://db/pm", 1},
	} {
		url, n, err := poolSize(c.in)
		if err != nil || url != c.url || n != c.n {
			t.Errorf("poolSize(%q) = %q, %d, %v; want %q, %d", c.in, url, n, err, c.url, c.n)
		}
	}
	for _, bad := range []string{"0", "-1", "1001", "x", ""} {
		_, _, err := poolSize("postgres://u:secret@db/pm?pool_max_conns=" + bad)
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("pool_max_conns=%q: %v", bad, err)
		}
	}
	const multi = "postgres://u:secret@h1:5432,h2:5432/pm?target_session_attrs=read-write"
	if url, n, err := poolSize(multi); url != multi || n != pgReadConns || err != nil {
		t.Errorf("several hosts: %q, %d, %v", url, n, err)
	}
	if url, n, err := poolSize("postgres://h1:5432,h2:5432/pm?pool_max_conns=3"); url != "postgres://h1:5432,h2:5432/pm" || n != 3 || err != nil {
		t.Errorf("several hosts with a bound: %q, %d, %v", url, n, err)
	}
}

// TestOpenPoolSize checks that pool_max_conns bounds the read pool on
// PostgreSQL (the server never sees it).
func TestOpenPoolSize(t *testing.T) {
	path := testdb.Path(t)
	if EngineOf(path) != Postgres {
		t.Skip("pool_max_conns is a PostgreSQL URL's parameter")
	}
	db, err := Open(context.Background(), path+"&pool_max_conns=2", SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Read.Ping(); err != nil {
		t.Fatal(err)
	}
	if got := db.Read.Stats().MaxOpenConnections; got != 2 {
		t.Errorf("read pool bound %d, want 2", got)
	}
}

// TestOpenNewerSchema: a database with a migration this build does not
// have (a newer papermem's) is refused, naming it.
func TestOpenNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	db, err := Open(ctx, path, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future.sql', 'now')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = Open(ctx, path, SyncNormal); err == nil {
		db.Close()
		t.Fatal("a newer schema was opened")
	}
	if !strings.Contains(err.Error(), "9999_future.sql") {
		t.Errorf("error %q does not name the migration", err)
	}
}
