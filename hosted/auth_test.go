package hosted_test

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/testutil"
)

func TestSignupLogin(t *testing.T) {
	ctx := context.Background()
	svc := open(t)
	u := signup(t, svc, " Ada@Example.org ", "lab-one")
	if u.Email != "ada@example.org" || u.WorkspaceID != "lab-one" || u.Role != hosted.RoleOwner || !strings.HasPrefix(u.UserID, "usr_") {
		t.Fatalf("signup user = %+v", u)
	}

	t.Run("OK", func(t *testing.T) {
		got, err := svc.Login(ctx, "ADA@example.org", "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(u, got); diff != "" {
			t.Fatalf("login user (-signup +login):\n%s", diff)
		}
	})
	t.Run("ErrWrongPassword", func(t *testing.T) {
		_, err := svc.Login(ctx, "ada@example.org", "wrong horse")
		if papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrUnknownEmail", func(t *testing.T) {
		_, err := svc.Login(ctx, "bob@example.org", "correct horse")
		if papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrDuplicateEmail", func(t *testing.T) {
		_, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "ada@EXAMPLE.org", Password: "12345678"}})
		if papermem.ErrorCode(err) != papermem.ECONFLICT {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrExistingWorkspace", func(t *testing.T) {
		_, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "eve@example.org", Password: "12345678"}, WorkspaceID: "lab-one"})
		if papermem.ErrorCode(err) != papermem.EINVALID {
			t.Fatalf("err = %v", err)
		}
		if _, err := svc.Login(ctx, "eve@example.org", "12345678"); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
			t.Fatalf("refused signup left an account: %v", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, in := range []hosted.SignupInput{
			{NewUser: hosted.NewUser{Email: "not-an-email", Password: "12345678"}},
			{NewUser: hosted.NewUser{Email: "x@example.org", Password: "short"}},
			{NewUser: hosted.NewUser{Email: "x@example.org", Password: strings.Repeat("p", 73)}},
			{NewUser: hosted.NewUser{Email: "x@example.org", Password: "12345678"}, WorkspaceID: "Bad Id"},
		} {
			if _, err := svc.Signup(ctx, in); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("signup %+v: err = %v", in, err)
			}
		}
	})
	t.Run("FreshWorkspaceID", func(t *testing.T) {
		u := signup(t, svc, "cy@example.org", "")
		if !papermem.ValidWorkspaceID(u.WorkspaceID) || u.WorkspaceID == "lab-one" {
			t.Fatalf("fresh org id %q", u.WorkspaceID)
		}
	})
}

func TestCreateUserAndFounder(t *testing.T) {
	ctx := context.Background()
	svc := open(t)
	signup(t, svc, "ada@example.org", "lab-one")
	u, err := svc.CreateUser(ctx, "lab-one", hosted.NewUser{Email: "bob@example.org", Password: "12345678"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Role != hosted.RoleMember || u.WorkspaceID != "lab-one" {
		t.Fatalf("user = %+v", u)
	}
	if _, err := svc.CreateUser(ctx, "nowhere", hosted.NewUser{Email: "c@example.org", Password: "12345678"}); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Fatalf("unknown workspace: err = %v", err)
	}
	if err := svc.GrantFounder(ctx, "BOB@example.org"); err != nil {
		t.Fatal(err)
	}
	got, err := svc.User(ctx, u.UserID)
	if err != nil || !got.IsFounder {
		t.Fatalf("after grant: %+v, %v", got, err)
	}
	if err := svc.GrantFounder(ctx, "nobody@example.org"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Fatalf("grant unknown: err = %v", err)
	}
	if _, err := svc.Workspace("other-org").User(ctx, u.UserID); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Fatalf("user seen from another workspace: err = %v", err)
	}
}

func TestUsersActivity(t *testing.T) {
	ctx := context.Background()
	svc := open(t)
	u := signup(t, svc, "ada@example.org", "lab-one")
	signup(t, svc, "eve@example.org", "lab-two")
	w := svc.Workspace("lab-one")
	for _, d := range []string{"biology", "physics", "biology", ""} {
		if _, err := svc.Memory().Workspace("lab-one").Remember(ctx, u.UserID, papermem.NoteInput{Text: "note about " + d + " things", Domain: d}); err != nil {
			t.Fatal(err)
		}
	}
	users, err := w.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 1 {
		t.Fatalf("users = %+v", users)
	}
	a := users[0]
	if a.UserID != u.UserID || !cmp.Equal(a.Domains, []string{"biology", "physics"}) || a.FirstSeen != u.CreatedAt || a.LastSeen < a.FirstSeen {
		t.Fatalf("activity = %+v", a)
	}
}

// TestUsersSessionActivity checks that a user's listing merges the
// activity of the research sessions the user owns (the memory's
// SessionActivities) with that of their notes.
func TestUsersSessionActivity(t *testing.T) {
	svc := open(t)
	u := signup(t, svc, "ada@example.org", "lab-one")
	w := svc.Memory().Workspace("lab-one")
	mustStore(t, w, vitaminD) // domain medicine
	if _, err := w.Remember(ctx, u.UserID, papermem.NoteInput{Text: "note", Domain: "biology"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.LinkSession(ctx, papermem.SessionLink{SessionID: "s1", UserID: u.UserID, Papers: []string{vitaminD.DOI}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExportSession(ctx, papermem.SessionRecord{SessionID: "s2", UserID: u.UserID,
		Metadata: map[string]any{"domain": "physics"}}); err != nil {
		t.Fatal(err)
	}
	link(t, w, "s3", []string{"10.1/x"}) // a session of nobody
	acts, err := w.SessionActivities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := acts[u.UserID]
	if a == nil || a.Sessions != 2 {
		t.Fatalf("SessionActivities = %v", acts)
	}
	users, err := svc.Workspace("lab-one").Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 1 || users[0].Sessions != 2 || !cmp.Equal(users[0].Domains, []string{"biology", "medicine", "physics"}) ||
		users[0].LastSeen < a.LastSeen || users[0].FirstSeen > a.FirstSeen {
		t.Errorf("Users = %+v", users)
	}
}

func TestAPIKeys(t *testing.T) {
	ctx := context.Background()
	svc := open(t)
	w := svc.Workspace("lab-one")
	k, err := w.CreateAPIKey(ctx, "", hosted.CreatorWorkspace("lab-one"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.Key, "pm_") || len(k.Key) < 3+43 || k.Name != "default" || !strings.HasPrefix(k.Key, k.Prefix) {
		t.Fatalf("key = %+v", k)
	}
	got, err := svc.AuthenticateAPIKey(ctx, k.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got.WorkspaceID != "lab-one" || got.KeyID != k.KeyID || got.LastUsedAt == nil {
		t.Fatalf("authenticated = %+v", got)
	}
	list, err := svc.Memory().Workspace("lab-one").APIKeys(ctx)
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if other, _ := svc.Memory().Workspace("lab-two").APIKeys(ctx); len(other) != 0 {
		t.Fatalf("another workspace sees keys: %+v", other)
	}
	for _, bad := range []string{"", "pm_", k.Key + "x", k.Prefix + strings.Repeat("A", 40), "Bearer " + k.Key} {
		if _, err := svc.AuthenticateAPIKey(ctx, bad); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
			t.Errorf("authenticate %q: err = %v", bad, err)
		}
	}
	if err := svc.Workspace("lab-two").RevokeAPIKey(ctx, k.KeyID); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Fatalf("revoke from another workspace: err = %v", err)
	}
	if err := w.RevokeAPIKey(ctx, k.KeyID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AuthenticateAPIKey(ctx, k.Key); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
		t.Fatalf("revoked key: err = %v", err)
	}
	if err := w.RevokeAPIKey(ctx, k.KeyID); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Fatalf("revoke twice: err = %v", err)
	}
}

func TestSecret(t *testing.T) {
	ctx := context.Background()
	svc := open(t)
	a, err := svc.Secret(ctx, "jwt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Secret(ctx, "jwt")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := svc.Secret(ctx, "other")
	if len(a) != 32 || !bytes.Equal(a, b) || bytes.Equal(a, c) {
		t.Fatalf("secrets %x %x %x", a, b, c)
	}
}

func TestWorkspaces(t *testing.T) {
	ctx := context.Background()
	svc := open(t)
	me := hosted.CreatorUser("usr_1")
	rec, key, err := svc.CreateWorkspace(ctx, "side-project", "Side", me)
	if err != nil {
		t.Fatal(err)
	}
	if rec.WorkspaceID != "side-project" || rec.Plan != "Starter Tier" || rec.TokenTTLSeconds != 86400 || key == nil || key.Key == "" {
		t.Fatalf("created %+v %+v", rec, key)
	}
	if k, err := svc.AuthenticateAPIKey(ctx, key.Key); err != nil || k.WorkspaceID != "side-project" {
		t.Fatalf("new workspace key: %+v %v", k, err)
	}
	for _, id := range []string{"side-project", "x", "Upper", "-dash"} {
		_, _, err := svc.CreateWorkspace(ctx, id, "", me)
		if c := papermem.ErrorCode(err); c != papermem.ECONFLICT && c != papermem.EINVALID {
			t.Errorf("create %q: err = %v", id, err)
		}
	}
	list, err := svc.Workspaces(ctx, "home-lab", me)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range list {
		ids = append(ids, w.WorkspaceID)
	}
	if !cmp.Equal(ids, []string{"home-lab", "side-project"}) {
		t.Fatalf("listed %v", ids)
	}
	if _, err := svc.Workspace("home-lab").Record(ctx); err != nil {
		t.Fatalf("current workspace not registered on read: %v", err)
	}
	list, _ = svc.Workspaces(ctx, "stranger", hosted.CreatorUser("usr_2"))
	if len(list) != 1 || list[0].WorkspaceID != "stranger" {
		t.Fatalf("stranger sees %+v", list)
	}
}

func TestSetTokenTTL(t *testing.T) {
	ctx := context.Background()
	svc := open(t)
	signup(t, svc, "ada@example.org", "lab-one")
	w := svc.Workspace("lab-one")
	if err := w.SetTokenTTL(ctx, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	rec, err := w.Record(ctx)
	if err != nil || rec.TokenTTL() != 2*time.Hour {
		t.Fatalf("record %+v %v", rec, err)
	}
	for _, ttl := range []time.Duration{0, time.Second, 31 * 24 * time.Hour} {
		if err := w.SetTokenTTL(ctx, ttl); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Errorf("ttl %v: err = %v", ttl, err)
		}
	}
	if err := svc.Workspace("nowhere").SetTokenTTL(ctx, time.Hour); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("unknown workspace: err = %v", err)
	}
}

// TestAPIKeyRevokedElsewhere revokes keys through a second Service over
// the same file, and by hand in SQL, and checks that the first Service,
// which has verified and remembered the keys, refuses them on the next
// call.
func TestAPIKeyRevokedElsewhere(t *testing.T) {
	path, a, b := sharedFile(t)
	create := func() *hosted.NewAPIKey {
		k, err := a.Workspace("lab-one").CreateAPIKey(ctx, "", hosted.CreatorWorkspace("lab-one"))
		if err != nil {
			t.Fatal(err)
		}
		for range 3 { // the first call verifies the key in the database, the others use a's cache
			if got, err := a.AuthenticateAPIKey(ctx, k.Key); err != nil || got.KeyID != k.KeyID {
				t.Fatalf("authenticate: %+v, %v", got, err)
			}
		}
		return k
	}
	refused := func(t *testing.T, k *hosted.NewAPIKey) {
		t.Helper()
		for range 2 {
			if _, err := a.AuthenticateAPIKey(ctx, k.Key); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
				t.Fatalf("revoked key: err = %v", err)
			}
		}
	}

	t.Run("RevokeThroughAnotherService", func(t *testing.T) {
		k, other := create(), create()
		if err := b.Workspace("lab-one").RevokeAPIKey(ctx, k.KeyID); err != nil {
			t.Fatal(err)
		}
		refused(t, k)
		if _, err := a.AuthenticateAPIKey(ctx, other.Key); err != nil {
			t.Fatalf("key not revoked: %v", err)
		}
	})
	t.Run("DeleteInSQL", func(t *testing.T) {
		k := create()
		execSQL(t, path, `DELETE FROM api_keys WHERE key_id = ?`, k.KeyID)
		refused(t, k)
	})
	t.Run("MoveInSQL", func(t *testing.T) {
		k := create()
		if _, err := a.Workspace("lab-two").CreateAPIKey(ctx, "", hosted.CreatorWorkspace("lab-two")); err != nil {
			t.Fatal(err)
		}
		execSQL(t, path, `UPDATE api_keys SET org_id = 'lab-two' WHERE key_id = ?`, k.KeyID)
		got, err := a.AuthenticateAPIKey(ctx, k.Key)
		if err != nil || got.WorkspaceID != "lab-two" {
			t.Fatalf("moved key: %+v, %v", got, err)
		}
	})
}

// TestAPIKeyLastUsed checks that last_used_at is written on first use and
// then at most once a minute, however often the key is used.
func TestAPIKeyLastUsed(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	svc := testutil.OpenHosted(t, &papermem.Options{Now: func() time.Time { return now }}, nil)
	w := svc.Workspace("lab-one")
	k, err := w.CreateAPIKey(ctx, "", hosted.CreatorWorkspace("lab-one"))
	if err != nil {
		t.Fatal(err)
	}
	stored := func() string {
		t.Helper()
		list, err := svc.Memory().Workspace("lab-one").APIKeys(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("list = %+v, %v", list, err)
		}
		if list[0].LastUsedAt == nil {
			return ""
		}
		return *list[0].LastUsedAt
	}
	if got := stored(); got != "" {
		t.Fatalf("unused key: last_used_at = %q", got)
	}
	for _, step := range []struct {
		after time.Duration
		want  string
	}{
		{0, "2026-03-01T12:00:00.000Z"},
		{30 * time.Second, "2026-03-01T12:00:00.000Z"},
		{29 * time.Second, "2026-03-01T12:00:00.000Z"},
		{2 * time.Second, "2026-03-01T12:01:01.000Z"},
		{time.Hour, "2026-03-01T13:01:01.000Z"},
	} {
		now = now.Add(step.after)
		got, err := svc.AuthenticateAPIKey(ctx, k.Key)
		if err != nil {
			t.Fatal(err)
		}
		if got.LastUsedAt == nil || *got.LastUsedAt != step.want || stored() != step.want {
			t.Fatalf("at %v: returned %v, stored %q, want %q", now, got.LastUsedAt, stored(), step.want)
		}
	}
}

// BenchmarkAPIKeyAuth authenticates one key from parallel callers, as the
// HTTP server does on every request.
func BenchmarkAPIKeyAuth(b *testing.B) {
	svc := testutil.OpenHosted(b, nil, nil)
	k, err := svc.Workspace("bench").CreateAPIKey(ctx, "", hosted.CreatorWorkspace("bench"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := svc.AuthenticateAPIKey(ctx, k.Key); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAPIKeyRevokedUnderLoad authenticates one key from many goroutines
// while a second Service over the same file revokes it: no call that
// started after the revocation returned may succeed.
func TestAPIKeyRevokedUnderLoad(t *testing.T) {
	_, a, b := sharedFile(t)
	k, err := a.Workspace("lab-one").CreateAPIKey(ctx, "", hosted.CreatorWorkspace("lab-one"))
	if err != nil {
		t.Fatal(err)
	}
	var revoked atomic.Bool
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for refusals := 0; refusals < 20; {
				after := revoked.Load()
				_, err := a.AuthenticateAPIKey(ctx, k.Key)
				switch {
				case err == nil && after:
					t.Error("a call that started after the revocation succeeded")
					return
				case err == nil:
					accepted.Add(1)
				case papermem.ErrorCode(err) == papermem.EUNAUTHORIZED:
					refusals++
				default:
					t.Error(err)
					return
				}
			}
		})
	}
	for accepted.Load() < 200 && !t.Failed() {
		runtime.Gosched()
	}
	if err := b.Workspace("lab-one").RevokeAPIKey(ctx, k.KeyID); err != nil {
		t.Fatal(err)
	}
	revoked.Store(true)
	wg.Wait()
}
