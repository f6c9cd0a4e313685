package hosted_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// TestTwinWorkspaces runs one workspace's history twice: in a database of
// its own, and in a database it shares with a twin that then goes through
// the same history — the same DOIs, session ids, note keys and user
// names — and deletes, forgets, relinks, re-exports, revokes and bills
// on top. Every read of the first workspace must answer the same in both
// databases: a query that lost its workspace predicate would count, list
// or rank the twin's rows, or apply the twin's changes to it.
func TestTwinWorkspaces(t *testing.T) {
	solo, soloClock := openBilling(t)
	shared, sharedClock := openBilling(t)
	history(t, solo, soloClock, "lab-a")
	history(t, shared, sharedClock, "lab-a")
	history(t, shared, sharedClock, "lab-b")
	sharedClock.set(time.Date(2026, 3, 14, 18, 0, 0, 0, time.UTC))
	twinOnly(t, shared, sharedClock, "lab-b")
	readAt := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	soloClock.set(readAt)
	sharedClock.set(readAt)

	// Within one workspace, each account's activity is its own: the owner
	// has notes (the first as it was made) and a session, the member,
	// made a second later, nothing.
	users, err := solo.Workspace("lab-a").Users(ctx)
	if err != nil || len(users) != 2 {
		t.Fatalf("users = %+v, %v", users, err)
	}
	for _, u := range users {
		active := u.Role == "owner"
		if (u.LastSeen > u.CreatedAt) != active || u.FirstSeen != u.CreatedAt || (len(u.Domains) > 0) != active {
			t.Errorf("%s (%s): created %s, seen %s to %s, domains %v", u.Email, u.Role, u.CreatedAt, u.FirstSeen, u.LastSeen, u.Domains)
		}
	}

	// The twin's own deletions took: its analysis went with its paper.
	if _, err := shared.Memory().Workspace("lab-b").Analysis(ctx, vitaminD.DOI); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("lab-b's analysis of its deleted paper: err = %v, want not found", err)
	}

	want := reads(t, solo, "lab-a")
	got := reads(t, shared, "lab-a")
	for name := range want {
		if diff := cmp.Diff(want[name], got[name]); diff != "" {
			t.Errorf("%s differs beside a twin (-alone +shared):\n%s", name, diff)
		}
	}
}

// twinPaper shares a DOI with a paper of the history but not its text.
var twinPaper = papermem.PaperInput{DOI: "10.1/x", Title: "Calcium and falls",
	Text: "Calcium supplements reduced falls in older adults by 12% in a cohort of 4,000."}

// history gives workspace one of every write, in an order both
// databases repeat exactly. Its users are made a second apart, so that
// they list in one order.
func history(t *testing.T, svc *hosted.Service, c *clock, org string) {
	t.Helper()
	c.set(time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC))
	u, err := svc.Signup(ctx, hosted.SignupInput{WorkspaceID: org, WorkspaceName: "Lab",
		NewUser: hosted.NewUser{Email: "ada@" + org + ".example.org", Password: "correct horse", Name: "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	w, hw := svc.Memory().Workspace(org), svc.Workspace(org)
	if _, err := w.Remember(ctx, u.UserID, papermem.NoteInput{Key: "pref", Text: "The owner prefers meta-analyses.", Domain: "medicine"}); err != nil {
		t.Fatal(err) // the account's first note, as it is made
	}
	c.set(c.now().Add(time.Second))
	if _, err := svc.CreateUser(ctx, org, hosted.NewUser{Email: "bob@" + org + ".example.org", Password: "battery staple", Name: "Bob"}); err != nil {
		t.Fatal(err)
	}
	c.set(c.now().Add(time.Hour)) // what follows is the owner's activity
	mustStore(t, w, vitaminD)
	mustStore(t, w, papermem.PaperInput{DOI: "10.1/x", Title: "Vitamin D and falls",
		Text: "Vitamin D supplements did not reduce falls in older adults (hazard ratio 0.98)."})
	if _, err := w.IngestFile(ctx, "notes.md", strings.NewReader("# Lab notes\n\nVitamin D assays drifted by 4% in March."), papermem.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.StoreAnalysis(ctx, papermem.Analysis{DOI: vitaminD.DOI, Markdown: "# Verdict\nNo effect of vitamin D on fractures."}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct{ user, key, text string }{
		{"ada", "pref", "Ada prefers randomised trials of vitamin D."},
		{"ada", "", "Ada met the falls group on Monday."},
		{"bob", "pref", "Bob prefers cohort studies."},
		{u.UserID, "", "The owner met the falls group."},
	} {
		if _, err := w.Remember(ctx, n.user, papermem.NoteInput{Key: n.key, Text: n.text}); err != nil {
			t.Fatal(err)
		}
	}
	claim := claimID(t, w, "does vitamin D reduce fracture risk")
	if _, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: "s1", UserID: u.UserID, Papers: []string{vitaminD.DOI, "10.1/x"}, Claims: []int64{claim}}); err != nil {
		t.Fatal(err)
	}
	link(t, w, "s2", []string{"10.1/x", "10.1/y"})
	if _, err := w.Materialize(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: "run-1", UserID: "ada", CreatedAt: "2026-03-01T10:00:00Z",
		Steps: []papermem.Step{{Agent: "planner", Tool: "recall"}}, RecalledPapers: []string{vitaminD.DOI}, RecalledClaims: []int64{claim}}); err != nil {
		t.Fatal(err)
	}
	if _, err := hw.CreateAPIKey(ctx, "ci", hosted.CreatorUser(u.UserID)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.UpdateAccount(ctx, papermem.AccountUpdate{Profile: json.RawMessage(`{"company":"Lab"}`)}); err != nil {
		t.Fatal(err)
	}
	hw.CountAPIRequest()
	if err := hw.SetTokenTTL(ctx, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
}

// twinOnly is what the twin does after the shared history: the same keys,
// changed.
func twinOnly(t *testing.T, svc *hosted.Service, c *clock, org string) {
	t.Helper()
	w, hw := svc.Memory().Workspace(org), svc.Workspace(org)
	if err := w.DeletePaper(ctx, vitaminD.DOI); err != nil {
		t.Fatal(err)
	}
	mustStore(t, w, twinPaper)
	mustStore(t, w, papermem.PaperInput{DOI: "10.1/z", Title: "Vitamin D in the twin", Domain: "oncology",
		Text: "Vitamin D lowered fracture risk by 30% in the twin's trial."})
	if _, err := w.IngestFile(ctx, "twin.md", strings.NewReader("# Twin notes\n\nThe twin's assay drifted."), papermem.IngestOptions{Domain: "oncology"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.StoreAnalysis(ctx, papermem.Analysis{DOI: "10.1/z", Markdown: "# Verdict\nThe twin's trial is small."}); err != nil {
		t.Fatal(err)
	}
	if err := w.Forget(ctx, "ada", "pref"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remember(ctx, "bob", papermem.NoteInput{Key: "pref", Text: "Bob now prefers vitamin D meta-analyses."}); err != nil {
		t.Fatal(err)
	}
	// Notes under the ids of the other workspace's accounts (user ids are
	// free strings to the library).
	others, err := svc.Workspace("lab-a").Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{time.Date(2026, 3, 13, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)} {
		c.set(at) // before lab-a's accounts were made, and after all they did
		for _, u := range others {
			if _, err := w.Remember(ctx, u.UserID, papermem.NoteInput{Text: "A note of the twin's at " + at.String(), Domain: "twins"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	link(t, w, "s1", []string{"10.1/z"})
	link(t, w, "s3", []string{"10.1/z", "10.1/y"})
	if _, err := w.Materialize(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: "run-1", UserID: "bob", CreatedAt: "2026-03-02T10:00:00Z",
		Steps: []papermem.Step{{Agent: "writer", Tool: "draft"}}}); err != nil {
		t.Fatal(err)
	}
	keys, err := w.APIKeys(ctx)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys = %+v, %v", keys, err)
	}
	if err := hw.RevokeAPIKey(ctx, keys[0].KeyID); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ci", "nightly"} {
		if _, err := hw.CreateAPIKey(ctx, name, hosted.CreatorWorkspace(org)); err != nil {
			t.Fatal(err)
		}
	}
	users, err := hw.Users(ctx)
	if err != nil || len(users) != 2 {
		t.Fatalf("users = %+v, %v", users, err)
	}
	for _, u := range users {
		if err := hw.LogoutAll(ctx, u.UserID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.DisableUser(ctx, org, u.UserID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.SetPlan(ctx, org, "enterprise"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.UpdateAccount(ctx, papermem.AccountUpdate{Profile: json.RawMessage(`{"company":"Twin"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := hw.SetTokenTTL(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		hw.CountAPIRequest()
	}
}

// reads returns every read of workspace, each as JSON with the ids and
// secrets a database draws at random blanked.
func reads(t *testing.T, svc *hosted.Service, org string) map[string]string {
	t.Helper()
	w, hw := svc.Memory().Workspace(org), svc.Workspace(org)
	out := map[string]string{}
	read := func(name string, v any, err error) {
		b, _ := json.Marshal(v)
		b = random.ReplaceAll(b, []byte(`"$1":"…"`))
		out[name] = fmt.Sprintf("%s %v", userID.ReplaceAll(b, []byte("usr_…")), err)
	}
	users, err := hw.Users(ctx)
	read("Users", users, err)
	for i, u := range users {
		v, err := hw.User(ctx, u.UserID)
		read(fmt.Sprintf("User %d", i), v, err)
	}
	for _, doi := range []string{vitaminD.DOI, "10.1/x", "10.1/z"} {
		p, err := w.Paper(ctx, doi)
		read("Paper "+doi, p, err)
		ok, err := w.PaperExists(ctx, doi)
		read("PaperExists "+doi, ok, err)
		s, err := w.PaperSections(ctx, doi)
		read("PaperSections "+doi, s, err)
		a, err := w.Analysis(ctx, doi)
		read("Analysis "+doi, a, err)
	}
	papers, err := w.Papers(ctx, 100)
	read("Papers", papers, err)
	docs, err := w.Documents(ctx, 100)
	read("Documents", docs, err)
	for _, q := range []string{"vitamin D fracture risk", "falls in older adults"} {
		for _, label := range []string{"", "Any", "Analysis"} {
			r, err := w.Recall(ctx, papermem.RecallRequest{Question: q, Label: label})
			read("Recall "+label+" "+q, r, err)
		}
		r, err := w.Recall(ctx, papermem.RecallRequest{Question: q, DOIs: []string{"10.1/x"}})
		read("Recall scoped "+q, r, err)
		ps, err := w.RecallPapers(ctx, papermem.PaperRecallRequest{Query: q})
		read("RecallPapers "+q, ps, err)
	}
	for _, user := range []string{"ada", "bob"} {
		r, err := w.RecallUser(ctx, user, papermem.UserRecallRequest{Question: "what does " + user + " prefer"})
		read("RecallUser "+user, r, err)
	}
	for _, seed := range []string{"s1", "s2", "s3"} {
		g, err := w.Graph(ctx, seed, 3)
		read("Graph "+seed, g, err)
	}
	for _, id := range []string{"paper:10.1/x", "paper:10.1/z", "session:s1"} {
		g, err := w.Neighborhood(ctx, id, 2)
		read("Neighborhood "+id, g, err)
	}
	recent, err := w.RecentSessions(ctx, 10)
	read("RecentSessions", recent, err)
	acts, err := w.SessionActivities(ctx)
	read("SessionActivities", acts, err)
	exports, err := w.Exports(ctx, papermem.ExportQuery{})
	read("Exports", exports, err)
	one, err := w.Exports(ctx, papermem.ExportQuery{SessionID: "run-1"})
	read("Exports run-1", one, err)
	keys, err := w.APIKeys(ctx)
	read("APIKeys", keys, err)
	acct, err := w.Account(ctx)
	read("Account", acct, err)
	inv, err := w.Invoices(ctx)
	read("Invoices", inv, err)
	bill, err := w.Billing(ctx)
	read("Billing", bill, err)
	usage, err := hw.Usage(ctx)
	read("Usage", usage, err)
	an, err := hw.Analytics(ctx)
	read("Analytics", an, err)
	rec, err := hw.Record(ctx)
	read("Record", rec, err)
	act, err := svc.Activity(ctx, org)
	read("Activity", act, err)
	return out
}

// random matches the JSON fields a database draws at random, userID a
// user id anywhere (as a map key too).
var random = regexp.MustCompile(`"(user_id|key_id|prefix|key_prefix|created_by|checkout_id|invoice_id)":"[^"]*"`)
var userID = regexp.MustCompile(`usr_[0-9a-f]+`)
