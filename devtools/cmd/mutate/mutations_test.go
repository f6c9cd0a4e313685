package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMutations checks that every mutation still fits the source it
// breaks (a guard edited away would otherwise stop being checked), that
// each changes it, and that the store's predicates are all found.
func TestMutations(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := mutations(root)
	if err != nil {
		t.Fatal(err)
	}
	var store int
	seen := map[string]bool{}
	for _, m := range ms {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
		if err != nil {
			t.Fatal(err)
		}
		mutant, err := m.apply(src)
		if err != nil || string(mutant) == string(src) {
			t.Errorf("%s: %q → %q changes nothing (%v)", m.Name(), m.Old, m.New, err)
		}
		key := m.Name() + m.Old + m.New
		if seen[key] {
			t.Errorf("%s: %q listed twice", m.Name(), m.Old)
		}
		seen[key] = true
		if strings.HasPrefix(m.File, "internal/store/") {
			store++
		}
	}
	// Every "org_id = ?"-like text in internal/store's code, less the
	// upserts' assignments, is a mutation.
	var want int
	files, _ := filepath.Glob(filepath.Join(root, "internal", "store", "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, _ := os.ReadFile(f)
		for _, col := range []string{"org_id = ", "user_id = "} {
			want += strings.Count(string(src), col)
		}
		want -= strings.Count(string(src), "SET user_id = excluded.user_id")
		want -= strings.Count(string(src), "user_id = CASE")
		want -= strings.Count(string(src), "sessions.user_id = ''")
		want -= strings.Count(string(src), "u.user_id = substr(")
	}
	if store != want || store < 100 {
		t.Errorf("%d store predicates found, want %d", store, want)
	}
}

func TestAssignment(t *testing.T) {
	for before, want := range map[string]bool{
		"UPDATE x SET ":                     true,
		"DO UPDATE SET a = excluded.a,\n\t": true,
		"SELECT 1 FROM x WHERE ":            false,
		"JOIN y ON ":                        false,
		`[]string{"n.org_id = ?", "`:        false,
		"WHERE a = ? AND\n\t\t":             false,
	} {
		if got := assignment([]byte(before)); got != want {
			t.Errorf("assignment(%q) = %v, want %v", before, got, want)
		}
	}
}
