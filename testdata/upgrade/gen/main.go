//go:build sqlite_fts5

// Command gen writes testdata/upgrade/v0-fts5.db, a database made by
// papermem as it was before migration 0008 (commit c97e6af, when the
// schema still held the FTS5 table nodes_fts), and v0-fts5.json, the facts
// the upgrade test checks against it: a workspace with a user, an API key,
// papers (one deleted again), a document, an analysis, user memories, a
// session with its links and export, and a second workspace.
//
// It must run on that commit, where FTS5 is still needed, so it carries
// the sqlite_fts5 tag and refuses to write a database without nodes_fts:
//
//	mkdir /tmp/v0 && git archive c97e6af | tar -x -C /tmp/v0
//	mkdir -p /tmp/v0/testdata/upgrade && cp -r testdata/upgrade/gen /tmp/v0/testdata/upgrade/
//	(cd /tmp/v0 && go run -tags sqlite_fts5 ./testdata/upgrade/gen -dir "$OLDPWD/testdata/upgrade")
//	rm -r /tmp/v0
//
// The user id, the API key and its id are random, so a new fixture comes
// with a new v0-fts5.json.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papermem/papermem"
)

// Fixture is what v0-fts5.json records.
type Fixture struct {
	Org       string   `json:"org"`
	OtherOrg  string   `json:"other_org"`
	Email     string   `json:"email"`
	Password  string   `json:"password"`
	UserID    string   `json:"user_id"`
	APIKey    string   `json:"api_key"`
	Papers    []string `json:"papers"`
	Deleted   string   `json:"deleted"`
	Document  string   `json:"document"`
	Analysis  string   `json:"analysis"`
	Memories  []string `json:"memories"`
	SessionID string   `json:"session_id"`
	OtherDOI  string   `json:"other_doi"`
	Nodes     int      `json:"nodes"`
}

var papers = []papermem.PaperInput{
	{DOI: "10.1000/vitd", Title: "Vitamin D supplementation and fracture risk in older adults", Year: 2021,
		Authors: []string{"A. Author"}, Domain: "medicine",
		Text: "Abstract\nVitamin D supplementation did not reduce fracture risk in adults over 70 years (hazard ratio 0.98).\n\n" +
			"Results\nSerum 25-hydroxyvitamin D rose by 40% compared with placebo. Falls were not reduced."},
	{DOI: "10.1000/sleep", Title: "Closed-loop auditory stimulation of slow oscillations", Year: 2020, Domain: "neuroscience",
		Text: "Abstract\nOvernight retention of word pairs was 18% higher after stimulation than after sham (p = 0.004).\n\n" +
			"Methods\nTwenty healthy adults slept two nights in the laboratory."},
	{DOI: "10.1000/glacier", Title: "Basal melt of outlet glaciers", Year: 2019, Domain: "glaciology",
		Text: "Abstract\nBasal melt rates increased threefold where warm ocean water reached the grounding line."},
}

func main() {
	dir := flag.String("dir", "testdata/upgrade", "directory to write v0-fts5.db and v0-fts5.json to")
	flag.Parse()
	if err := run(context.Background(), *dir); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, dir string) error {
	tmp, err := os.MkdirTemp("", "papermem-fixture")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "v0-fts5.db")
	clock := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	m, err := papermem.Open(ctx, path, &papermem.Options{Workspace: "lab", Now: func() time.Time { return clock }})
	if err != nil {
		return err
	}
	f, err := fill(ctx, m)
	if err != nil {
		m.Close()
		return err
	}
	if err := m.Close(); err != nil {
		return err
	}
	if err := compact(path, &f); err != nil {
		return err
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "v0-fts5.db"), body, 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(f, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "v0-fts5.json"), append(js, '\n'), 0o644)
}

// fill stores one of every kind of record.
func fill(ctx context.Context, m *papermem.Memory) (Fixture, error) {
	f := Fixture{Org: "lab", OtherOrg: "other", Email: "ada@example.org", Password: "correct horse battery",
		Deleted: "10.1000/glacier", Document: "notes.md", Analysis: "10.1000/vitd", SessionID: "sess-1",
		OtherDOI: "10.2000/other"}
	u, err := m.Signup(ctx, papermem.SignupInput{NewUser: papermem.NewUser{Email: f.Email, Password: f.Password, Name: "Ada"},
		OrgID: f.Org, WorkspaceName: "Lab"})
	if err != nil {
		return f, fmt.Errorf("signup: %w", err)
	}
	f.UserID = u.UserID
	w := m.Workspace(f.Org)
	key, err := w.CreateAPIKey(ctx, "agent", u.UserID)
	if err != nil {
		return f, fmt.Errorf("api key: %w", err)
	}
	f.APIKey = key.Key
	for _, p := range papers {
		if _, _, err := w.StorePaper(ctx, p); err != nil {
			return f, fmt.Errorf("store %s: %w", p.DOI, err)
		}
		if p.DOI != f.Deleted {
			f.Papers = append(f.Papers, p.DOI)
		}
	}
	if err := w.DeletePaper(ctx, f.Deleted); err != nil {
		return f, fmt.Errorf("delete paper: %w", err)
	}
	md := "# Field notes\n\n## Sea ice\n\nThe sea ice edge retreated 40 km northward during the August survey.\n"
	if _, err := w.IngestFile(ctx, f.Document, strings.NewReader(md), papermem.IngestOptions{Domain: "glaciology"}); err != nil {
		return f, fmt.Errorf("ingest: %w", err)
	}
	if _, err := w.StoreAnalysis(ctx, papermem.Analysis{DOI: f.Analysis, CoreClaim: "No fracture benefit",
		Markdown: "## Core claim\n\nVitamin D did not reduce fractures (hazard ratio 0.98)."}); err != nil {
		return f, fmt.Errorf("analysis: %w", err)
	}
	for i, text := range []string{"Ada prefers effect sizes with confidence intervals.", "Ada adopted a greyhound named Biscuit in May."} {
		r, err := w.Remember(ctx, u.UserID, papermem.MemoryInput{Text: text, OccurredAt: fmt.Sprintf("2026-05-0%d", i+1)})
		if err != nil {
			return f, fmt.Errorf("remember: %w", err)
		}
		f.Memories = append(f.Memories, r.Key)
	}
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: f.SessionID, UserID: u.UserID,
		Steps:          []papermem.Step{{Agent: "planner", Tool: "recall", Args: map[string]any{"q": "vitamin D"}}},
		RecalledPapers: []string{"10.1000/vitd", "10.1000/sleep"}}); err != nil {
		return f, fmt.Errorf("export session: %w", err)
	}
	if _, _, err := m.Workspace(f.OtherOrg).StorePaper(ctx, papermem.PaperInput{DOI: f.OtherDOI,
		Title: "Vitamin D in another workspace", Text: "Vitamin D and fracture risk, a workspace apart."}); err != nil {
		return f, fmt.Errorf("other workspace: %w", err)
	}
	return f, nil
}

// compact checks that the database is the FTS5 kind, counts its nodes and
// vacuums it into one small file.
func compact(path string, f *Fixture) error {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return err
	}
	defer db.Close()
	var fts int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'nodes_fts'`).Scan(&fts); err != nil {
		return err
	}
	if fts != 1 {
		return fmt.Errorf("%s has no nodes_fts: run gen on commit c97e6af (see its doc comment)", path)
	}
	if err := db.QueryRow(`SELECT count(*) FROM nodes`).Scan(&f.Nodes); err != nil {
		return err
	}
	_, err = db.Exec(`VACUUM; PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}
