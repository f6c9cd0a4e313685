package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/internal/testdb"
)

// TestSchemasMatch checks that PostgreSQL's migrations make the schema
// that SQLite's make together: the same tables, columns, NOT NULL
// constraints, defaults, indexes and triggers, by name.
func TestSchemasMatch(t *testing.T) {
	if !testdb.Postgres() {
		t.Skip("PostgreSQL only: compares its schema with SQLite's (set " + testdb.Env + ")")
	}
	ctx := context.Background()
	lite, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := Open(ctx, testdb.Path(t), SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()

	want := texts(t, lite.Read, `SELECT 'column ' || m.name || '.' || p.name ||
			CASE WHEN p."notnull" OR p.pk > 0 THEN ' not null' ELSE '' END ||
			coalesce(' default ' || p.dflt_value, '')
		FROM sqlite_schema m JOIN pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
		UNION ALL SELECT type || ' ' || name FROM sqlite_schema
		WHERE type IN ('index', 'trigger') AND name NOT LIKE 'sqlite_autoindex_%'
		ORDER BY 1`)
	got := texts(t, pg.Read, `SELECT 'column ' || table_name || '.' || column_name ||
			CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END ||
			coalesce(' default ' || column_default, '')
		FROM information_schema.columns WHERE table_schema = current_schema()
		UNION ALL SELECT 'index ' || indexname FROM pg_indexes
		WHERE schemaname = current_schema() AND indexname NOT LIKE '%\_pkey' AND indexname NOT LIKE '%\_key'
		UNION ALL SELECT DISTINCT 'trigger ' || trigger_name FROM information_schema.triggers
		WHERE trigger_schema = current_schema()
		ORDER BY 1`)
	cast := regexp.MustCompile(`::[a-z ]+$`) // PostgreSQL's '[]'::text is SQLite's '[]'
	for i, s := range got {
		got[i] = cast.ReplaceAllString(s, "")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema (-sqlite +postgres):\n%s", diff)
	}
}

// texts returns the one text column of query's rows.
func texts(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
