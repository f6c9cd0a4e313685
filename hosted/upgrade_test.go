package hosted_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestUpgradeAccounts opens a copy of the database the root package's
// TestUpgradeFTS5Database upgrades (../testdata/upgrade: written by an old
// papermem, before migration 0008) and checks that its account and API key
// still work.
func TestUpgradeAccounts(t *testing.T) {
	testdb.SQLiteOnly(t, "upgrades a SQLite file made by an old version")
	var f struct {
		Org      string `json:"org"`
		Email    string `json:"email"`
		Password string `json:"password"`
		UserID   string `json:"user_id"`
		APIKey   string `json:"api_key"`
	}
	js, err := os.ReadFile(filepath.Join("..", "testdata", "upgrade", "v0-fts5.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &f); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("..", "testdata", "upgrade", "v0-fts5.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v0.db")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := papermem.Open(ctx, path, &papermem.Options{Workspace: f.Org})
	if err != nil {
		t.Fatalf("open a database made with FTS5: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	svc := testutil.Hosted(t, m, nil)
	u, err := svc.Login(ctx, f.Email, f.Password)
	if err != nil || u.UserID != f.UserID || u.WorkspaceID != f.Org {
		t.Errorf("Login = %+v, %v", u, err)
	}
	k, err := svc.AuthenticateAPIKey(ctx, f.APIKey)
	if err != nil || k.WorkspaceID != f.Org {
		t.Errorf("AuthenticateAPIKey = %+v, %v", k, err)
	}
}
