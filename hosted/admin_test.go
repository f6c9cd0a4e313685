package hosted_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

func TestFounderConsole(t *testing.T) {
	svc, _ := openBilling(t)
	ada, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "ada@example.org", Password: "correct horse"}, WorkspaceID: "lab-ada"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "bob@example.org", Password: "battery staple"}, WorkspaceID: "lab-bob"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.GrantFounder(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	w, hw := svc.Memory().Workspace("lab-ada"), svc.Workspace("lab-ada")
	mustStore(t, w, vitaminD)
	// One of everything a workspace's size counts, in ada's workspace only.
	if _, err := hw.CreateAPIKey(ctx, "ci", hosted.CreatorWorkspace("lab-ada")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.IngestFile(ctx, "notes.md", strings.NewReader("# Notes\n\nVitamin D was measured."), papermem.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remember(ctx, ada.UserID, papermem.NoteInput{Text: "Ada reads trials."}); err != nil {
		t.Fatal(err)
	}
	hw.CountAPIRequest()
	svc.Workspace("lab-bob").CountAPIRequest()

	t.Run("Overview", func(t *testing.T) {
		o, err := svc.Overview(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if o.OrgCount != 2 || o.UserCount != 2 || o.WorkspacesByPlan["starter"] != 2 || o.WorkspacesByPlan["team"] != 0 {
			t.Errorf("overview = %+v", o)
		}
		if o.Usage.Counters[papermem.CounterAPIRequests] != 2 || o.Usage.Counters[papermem.CounterPapersStored] != 1 {
			t.Errorf("usage = %+v", o.Usage.Counters)
		}
		if o.Health == nil || o.Health.Status != papermem.HealthOK {
			t.Errorf("health = %+v", o.Health)
		}
	})
	t.Run("Health", func(t *testing.T) {
		h := svc.Health(ctx)
		var names []string
		for _, c := range h.Components {
			names = append(names, c.Name)
			if c.Status != papermem.HealthOK || c.Detail == "" {
				t.Errorf("component %+v", c)
			}
		}
		want := []string{"storage", "full_text_index", "embedder", "vector_index", "auth", "usage_meter"}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("components (-want +got):\n%s", diff)
		}
	})
	t.Run("AllWorkspaces", func(t *testing.T) {
		ws, err := svc.AllWorkspaces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != 2 {
			t.Fatalf("workspaces = %+v", ws)
		}
		for _, s := range ws {
			n := map[string]int{"lab-ada": 1, "lab-bob": 0}[s.WorkspaceID] // ada's holds one of each
			if s.Users != 1 || s.APIKeys != n || s.Papers != n || s.Documents != n || s.Memories != n ||
				s.Plan != "Starter Tier" || s.CreatedBy == "" {
				t.Errorf("workspace %+v", s)
			}
		}
	})
	t.Run("AllUsersWithoutHash", func(t *testing.T) {
		if _, err := svc.Login(ctx, "ada@example.org", "correct horse"); err != nil {
			t.Fatal(err)
		}
		us, err := svc.AllUsers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		founders, logins := map[string]bool{}, map[string]bool{}
		for _, u := range us {
			founders[u.Email] = u.Founder
			logins[u.Email] = u.LastLoginAt != ""
		}
		if diff := cmp.Diff(map[string]bool{"ada@example.org": true, "bob@example.org": false}, founders); diff != "" {
			t.Errorf("founders (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]bool{"ada@example.org": true, "bob@example.org": false}, logins); diff != "" {
			t.Errorf("who logged in (-want +got):\n%s", diff)
		}
		b, _ := json.Marshal(us)
		if strings.Contains(string(b), "$2a$") || strings.Contains(string(b), "password") {
			t.Errorf("user listing leaks a password hash: %s", b)
		}
	})
	t.Run("Activity", func(t *testing.T) {
		a, err := svc.Activity(ctx, "lab-ada")
		if err != nil {
			t.Fatal(err)
		}
		if a.WorkspaceID != "lab-ada" || a.Plan.Slug != "starter" || a.Overview.Memory.Papers != 1 || a.Overview.Memory.Nodes == 0 ||
			a.Overview.Usage[papermem.CounterAPIRequests] != 1 || len(a.Users) != 1 || a.Users[0].UserID != ada.UserID {
			t.Errorf("activity = %+v", a)
		}
		if _, err := svc.Activity(ctx, "lab-none"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("unknown workspace: err = %v", err)
		}
	})
	t.Run("SetPlan", func(t *testing.T) {
		a, err := svc.SetPlan(ctx, "lab-bob", "ENTERPRISE")
		if err != nil {
			t.Fatal(err)
		}
		if a.Plan.Slug != "enterprise" || len(a.Invoices) != 0 {
			t.Errorf("account = %+v", a)
		}
		for org, want := range map[string]string{"lab-ada": "starter", "lab-bob": "enterprise"} {
			if a, err := svc.Activity(ctx, org); err != nil || a.Plan.Slug != want {
				t.Errorf("%s after lab-bob's change: plan %+v (%v), want %s", org, a, err, want)
			}
		}
		if _, err := svc.SetPlan(ctx, "lab-bob", "platinum"); papermem.ErrorCode(err) != papermem.EUNKNOWNPLAN {
			t.Errorf("unknown tier: err = %v", err)
		}
		if _, err := svc.SetPlan(ctx, "lab-none", "team"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("unknown workspace: err = %v", err)
		}
	})
}

func TestAnalytics(t *testing.T) {
	svc, _ := openBilling(t)
	w, hw := svc.Memory().Workspace("lab-stats"), svc.Workspace("lab-stats")
	a, err := hw.Analytics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &hosted.Analytics{WorkspaceID: "lab-stats", TopDomains: []hosted.DomainCount{}}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("empty analytics (-want +got):\n%s", diff)
	}
	for _, in := range []papermem.PaperInput{
		vitaminD,
		{DOI: "10.1000/b", Title: "Bone density", Text: "Bone density fell.", Domain: "medicine"},
		{DOI: "10.1000/c", Title: "Graph search", Domain: "computing"},
	} {
		mustStore(t, w, in)
	}
	if _, err := w.StoreAnalysis(ctx, papermem.Analysis{DOI: "10.1000/b", Markdown: "The trial is small."}); err != nil {
		t.Fatal(err)
	}
	for _, doi := range []string{"10.1000/vitd", "10.1000/vitd", "10.1000/b"} {
		if _, err := w.FetchPaper(ctx, doi); err != nil {
			t.Fatal(err)
		}
	}
	a, err = hw.Analytics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	textBytes := int64(2*len(vitaminD.Text) + len("Bone density fell."))
	wantCache := hosted.CacheStats{Fetches: 3, WarmHits: 3, HitRate: 1, BytesSaved: textBytes}
	if diff := cmp.Diff(wantCache, a.Cache); diff != "" {
		t.Errorf("cache (-want +got):\n%s", diff)
	}
	wantDomains := []hosted.DomainCount{{Domain: "medicine", Count: 2}, {Domain: "computing", Count: 1}}
	if diff := cmp.Diff(wantDomains, a.TopDomains); diff != "" {
		t.Errorf("top domains (-want +got):\n%s", diff)
	}
	mem := a.Memory
	wantBytes := int64(len(vitaminD.Text)+len("Bone density fell.")) + int64(len("The trial is small."))
	if mem.Papers != 3 || mem.Analyses != 1 || mem.Documents != 0 || mem.Nodes == 0 || mem.Bytes != wantBytes {
		t.Errorf("memory = %+v, want bytes %d", mem, wantBytes)
	}
}
