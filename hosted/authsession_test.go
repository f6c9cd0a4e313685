package hosted_test

import (
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// sessionOf is a session token's claims for u, as the HTTP layer issues it.
func sessionOf(u *hosted.User, id string) hosted.Session {
	return hosted.Session{ID: id, UserID: u.UserID, WorkspaceID: u.WorkspaceID, Version: u.SessionVersion,
		ExpiresAt: time.Now().Add(time.Hour)}
}

// authenticates fails unless the session stands, twice (the second time
// from the cache).
func authenticates(t *testing.T, svc *hosted.Service, s hosted.Session) {
	t.Helper()
	for range 2 {
		u, err := svc.AuthenticateSession(ctx, s)
		if err != nil || u.UserID != s.UserID || u.WorkspaceID != s.WorkspaceID {
			t.Fatalf("session %+v: %+v, %v", s, u, err)
		}
	}
}

// refused fails unless the session is refused with EUNAUTHORIZED, twice.
func refused(t *testing.T, svc *hosted.Service, s hosted.Session) {
	t.Helper()
	for range 2 {
		if _, err := svc.AuthenticateSession(ctx, s); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
			t.Fatalf("session %+v: err = %v, want %s", s, err, papermem.EUNAUTHORIZED)
		}
	}
}

func TestAuthenticateSession(t *testing.T) {
	svc := open(t)
	ada := signup(t, svc, "ada@example.org", "lab-one")
	bob := signup(t, svc, "bob@example.org", "lab-two")
	s := sessionOf(ada, "s1")
	authenticates(t, svc, s)

	t.Run("ErrClaims", func(t *testing.T) {
		for name, mod := range map[string]func(*hosted.Session){
			"UnknownUser":    func(s *hosted.Session) { s.UserID = "usr_ghost" },
			"OtherWorkspace": func(s *hosted.Session) { s.UserID = bob.UserID },
			"WrongWorkspace": func(s *hosted.Session) { s.WorkspaceID = "lab-two" },
			"NoID":           func(s *hosted.Session) { s.ID = "" },
			"OldVersion":     func(s *hosted.Session) { s.Version = -1 },
		} {
			t.Run(name, func(t *testing.T) {
				bad := s
				mod(&bad)
				refused(t, svc, bad)
			})
		}
		authenticates(t, svc, s) // a refused look-alike leaves the cached session alone
	})
	t.Run("Logout", func(t *testing.T) {
		other := sessionOf(ada, "s2")
		authenticates(t, svc, other)
		if err := svc.Logout(ctx, other); err != nil {
			t.Fatal(err)
		}
		refused(t, svc, other)
		authenticates(t, svc, s)
		if err := svc.Logout(ctx, other); err != nil { // twice is harmless
			t.Fatal(err)
		}
	})
	t.Run("LogoutAll", func(t *testing.T) {
		w := svc.Workspace("lab-one")
		if err := svc.Workspace("lab-two").LogoutAll(ctx, ada.UserID); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Fatalf("logout-all through another workspace: %v", err)
		}
		authenticates(t, svc, s)
		if err := w.LogoutAll(ctx, ada.UserID); err != nil {
			t.Fatal(err)
		}
		refused(t, svc, s)
		u, err := svc.Login(ctx, "ada@example.org", "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		authenticates(t, svc, sessionOf(u, "s3"))
		authenticates(t, svc, sessionOf(bob, "s4")) // other users keep their sessions
	})
}

func TestChangePassword(t *testing.T) {
	svc := open(t)
	ada := signup(t, svc, "ada@example.org", "lab-one")
	w := svc.Workspace("lab-one")
	s := sessionOf(ada, "s1")
	authenticates(t, svc, s)
	loginCode := func(pw string) string {
		_, err := svc.Login(ctx, "ada@example.org", pw)
		return papermem.ErrorCode(err)
	}

	for name, tc := range map[string]struct {
		ws            *hosted.Workspace
		current, next string
		code          string
	}{
		"ErrWrongCurrent":  {w, "wrong horse", "battery staple", papermem.EFORBIDDEN},
		"ErrShort":         {w, "correct horse", "short", papermem.EINVALID},
		"ErrLong":          {w, "correct horse", string(make([]byte, hosted.MaxPasswordBytes+1)), papermem.EINVALID},
		"ErrOtherWorkpace": {svc.Workspace("lab-two"), "correct horse", "battery staple", papermem.ENOTFOUND},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := tc.ws.ChangePassword(ctx, ada.UserID, tc.current, tc.next); papermem.ErrorCode(err) != tc.code {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
			authenticates(t, svc, s) // nothing changed
			if code := loginCode("correct horse"); code != "" {
				t.Fatalf("old password refused: %s", code)
			}
		})
	}
	t.Run("OK", func(t *testing.T) {
		u, err := w.ChangePassword(ctx, ada.UserID, "correct horse", "battery staple")
		if err != nil {
			t.Fatal(err)
		}
		if u.UserID != ada.UserID || u.SessionVersion != ada.SessionVersion+1 {
			t.Fatalf("changed: %+v", u)
		}
		refused(t, svc, s)
		authenticates(t, svc, sessionOf(u, "s2"))
		if code := loginCode("correct horse"); code != papermem.EUNAUTHORIZED {
			t.Fatalf("old password: %q", code)
		}
		if code := loginCode("battery staple"); code != "" {
			t.Fatalf("new password: %q", code)
		}
	})
}

func TestDisableUser(t *testing.T) {
	svc := open(t)
	signup(t, svc, "ada@example.org", "lab-one")
	carol, err := svc.CreateUser(ctx, "lab-one", hosted.NewUser{Email: "carol@example.org", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	w := svc.Workspace("lab-one")
	carolKey, err := w.CreateAPIKey(ctx, "", hosted.CreatorUser(carol.UserID))
	if err != nil {
		t.Fatal(err)
	}
	orgKey, err := w.CreateAPIKey(ctx, "", hosted.CreatorWorkspace("lab-one"))
	if err != nil {
		t.Fatal(err)
	}
	keyCode := func(k *hosted.NewAPIKey) string {
		_, err := svc.AuthenticateAPIKey(ctx, k.Key)
		return papermem.ErrorCode(err)
	}
	s := sessionOf(carol, "s1")
	authenticates(t, svc, s)
	if keyCode(carolKey) != "" || keyCode(orgKey) != "" {
		t.Fatal("keys refused before disabling")
	}

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, tc := range [][2]string{{"lab-two", carol.UserID}, {"lab-one", "usr_ghost"}} {
			if _, err := svc.DisableUser(ctx, tc[0], tc[1]); papermem.ErrorCode(err) != papermem.ENOTFOUND {
				t.Fatalf("disable %v: %v", tc, err)
			}
			if _, err := svc.EnableUser(ctx, tc[0], tc[1]); papermem.ErrorCode(err) != papermem.ENOTFOUND {
				t.Fatalf("enable %v: %v", tc, err)
			}
		}
		authenticates(t, svc, s)
	})
	t.Run("Disable", func(t *testing.T) {
		u, err := svc.DisableUser(ctx, "lab-one", carol.UserID)
		if err != nil || !u.Disabled {
			t.Fatalf("disable: %+v, %v", u, err)
		}
		refused(t, svc, s)
		if _, err := svc.Login(ctx, "carol@example.org", "correct horse"); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
			t.Fatalf("login of a disabled user: %v", err)
		}
		if code := keyCode(carolKey); code != papermem.EUNAUTHORIZED {
			t.Fatalf("key of a disabled user: %q", code)
		}
		if code := keyCode(orgKey); code != "" {
			t.Fatalf("the workspace's own key: %q", code)
		}
		if got, err := w.User(ctx, carol.UserID); err != nil || !got.Disabled {
			t.Fatalf("user: %+v, %v", got, err)
		}
	})
	t.Run("Enable", func(t *testing.T) {
		u, err := svc.EnableUser(ctx, "lab-one", carol.UserID)
		if err != nil || u.Disabled {
			t.Fatalf("enable: %+v, %v", u, err)
		}
		refused(t, svc, s) // sessions ended for good
		if code := keyCode(carolKey); code != "" {
			t.Fatalf("key after enabling: %q", code)
		}
		again, err := svc.Login(ctx, "carol@example.org", "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		authenticates(t, svc, sessionOf(again, "s2"))
	})
}

// TestSessionEndedElsewhere ends sessions through a second Service over
// the same file, and by hand in SQL, and checks that the first Service,
// which has verified and remembered the sessions, refuses them on the next
// call.
func TestSessionEndedElsewhere(t *testing.T) {
	path, a, b := sharedFile(t)
	ada := signup(t, a, "ada@example.org", "lab-one")
	bob := signup(t, a, "bob@example.org", "lab-two")
	fresh := func(u *hosted.User, id string) hosted.Session {
		t.Helper()
		got, err := a.User(ctx, u.UserID)
		if err != nil {
			t.Fatal(err)
		}
		s := sessionOf(got, id)
		authenticates(t, a, s)
		return s
	}

	t.Run("Logout", func(t *testing.T) {
		s, other := fresh(ada, "s1"), fresh(ada, "s2")
		if err := b.Logout(ctx, s); err != nil {
			t.Fatal(err)
		}
		refused(t, a, s)
		authenticates(t, a, other)
	})
	t.Run("LogoutAll", func(t *testing.T) {
		s, other := fresh(ada, "s3"), fresh(bob, "s4")
		if err := b.Workspace("lab-one").LogoutAll(ctx, ada.UserID); err != nil {
			t.Fatal(err)
		}
		refused(t, a, s)
		authenticates(t, a, other)
	})
	t.Run("DisableInSQL", func(t *testing.T) {
		s := fresh(bob, "s5")
		execSQL(t, path, `UPDATE users SET disabled_at = '2026-01-01T00:00:00.000Z' WHERE user_id = ?`, bob.UserID)
		refused(t, a, s)
		execSQL(t, path, `UPDATE users SET disabled_at = '' WHERE user_id = ?`, bob.UserID)
		authenticates(t, a, s) // only DisableUser ends sessions for good
	})
	t.Run("MoveInSQL", func(t *testing.T) {
		s := fresh(bob, "s6")
		execSQL(t, path, `UPDATE users SET org_id = 'lab-one' WHERE user_id = ?`, bob.UserID)
		refused(t, a, s)
	})
	t.Run("DeleteInSQL", func(t *testing.T) {
		s := fresh(ada, "s7")
		execSQL(t, path, `DELETE FROM users WHERE user_id = ?`, ada.UserID)
		refused(t, a, s)
	})
}

// TestLogoutPrunes checks that a logout drops the workspace's revocations
// of tokens that have expired, and only those.
func TestLogoutPrunes(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	path := testdb.Path(t)
	svc := openAt(t, path, &papermem.Options{Now: func() time.Time { return now }})
	ada := signup(t, svc, "ada@example.org", "lab-one")
	bob := signup(t, svc, "bob@example.org", "lab-two")
	logout := func(u *hosted.User, id string, ttl time.Duration) {
		t.Helper()
		s := sessionOf(u, id)
		s.ExpiresAt = now.Add(ttl)
		if err := svc.Logout(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	logout(ada, "short", time.Hour)
	logout(ada, "long", 48*time.Hour)
	logout(bob, "other-workspace", time.Hour)
	now = now.Add(2 * time.Hour)
	logout(ada, "later", time.Hour)

	db := testutil.Raw(t, path, false)
	var kept []string
	rows, err := db.QueryContext(ctx, `SELECT jti FROM revoked_sessions ORDER BY jti`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var jti string
		if err := rows.Scan(&jti); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, jti)
	}
	if got, want := len(kept), 3; got != want || kept[0] != "later" || kept[1] != "long" || kept[2] != "other-workspace" {
		t.Fatalf("revocations kept: %q, want later, long, other-workspace", kept)
	}
}

// BenchmarkSessionAuth authenticates one session from parallel callers, as
// the HTTP server does on every request with a session token, beside
// BenchmarkAPIKeyAuth.
func BenchmarkSessionAuth(b *testing.B) {
	svc := testutil.OpenHosted(b, nil, nil)
	u, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "ada@example.org", Password: "correct horse"}, WorkspaceID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	s := sessionOf(u, "bench-session")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := svc.AuthenticateSession(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
