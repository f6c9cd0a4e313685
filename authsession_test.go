package papermem_test

import (
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// sessionOf is a session token's claims for u, as the HTTP layer issues it.
func sessionOf(u *papermem.User, id string) papermem.Session {
	return papermem.Session{ID: id, UserID: u.UserID, OrgID: u.OrgID, Version: u.SessionVersion,
		ExpiresAt: time.Now().Add(time.Hour)}
}

// authenticates fails unless the session stands, twice (the second time
// from the cache).
func authenticates(t *testing.T, m *papermem.Memory, s papermem.Session) {
	t.Helper()
	for range 2 {
		u, err := m.AuthenticateSession(ctx, s)
		if err != nil || u.UserID != s.UserID || u.OrgID != s.OrgID {
			t.Fatalf("session %+v: %+v, %v", s, u, err)
		}
	}
}

// refused fails unless the session is refused with EUNAUTHORIZED, twice.
func refused(t *testing.T, m *papermem.Memory, s papermem.Session) {
	t.Helper()
	for range 2 {
		if _, err := m.AuthenticateSession(ctx, s); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
			t.Fatalf("session %+v: err = %v, want %s", s, err, papermem.EUNAUTHORIZED)
		}
	}
}

func TestAuthenticateSession(t *testing.T) {
	m := testutil.Open(t, nil)
	ada := signup(t, m, "ada@example.org", "lab-one")
	bob := signup(t, m, "bob@example.org", "lab-two")
	s := sessionOf(ada, "s1")
	authenticates(t, m, s)

	t.Run("ErrClaims", func(t *testing.T) {
		for name, mod := range map[string]func(*papermem.Session){
			"UnknownUser":    func(s *papermem.Session) { s.UserID = "usr_ghost" },
			"OtherWorkspace": func(s *papermem.Session) { s.UserID = bob.UserID },
			"WrongWorkspace": func(s *papermem.Session) { s.OrgID = "lab-two" },
			"NoID":           func(s *papermem.Session) { s.ID = "" },
			"OldVersion":     func(s *papermem.Session) { s.Version = -1 },
		} {
			t.Run(name, func(t *testing.T) {
				bad := s
				mod(&bad)
				refused(t, m, bad)
			})
		}
		authenticates(t, m, s) // a refused look-alike leaves the cached session alone
	})
	t.Run("Logout", func(t *testing.T) {
		other := sessionOf(ada, "s2")
		authenticates(t, m, other)
		if err := m.Logout(ctx, other); err != nil {
			t.Fatal(err)
		}
		refused(t, m, other)
		authenticates(t, m, s)
		if err := m.Logout(ctx, other); err != nil { // twice is harmless
			t.Fatal(err)
		}
	})
	t.Run("LogoutAll", func(t *testing.T) {
		w := m.Workspace("lab-one")
		if err := m.Workspace("lab-two").LogoutAll(ctx, ada.UserID); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Fatalf("logout-all through another workspace: %v", err)
		}
		authenticates(t, m, s)
		if err := w.LogoutAll(ctx, ada.UserID); err != nil {
			t.Fatal(err)
		}
		refused(t, m, s)
		u, err := m.Login(ctx, "ada@example.org", "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		authenticates(t, m, sessionOf(u, "s3"))
		authenticates(t, m, sessionOf(bob, "s4")) // other users keep their sessions
	})
}

func TestChangePassword(t *testing.T) {
	m := testutil.Open(t, nil)
	ada := signup(t, m, "ada@example.org", "lab-one")
	w := m.Workspace("lab-one")
	s := sessionOf(ada, "s1")
	authenticates(t, m, s)
	loginCode := func(pw string) string {
		_, err := m.Login(ctx, "ada@example.org", pw)
		return papermem.ErrorCode(err)
	}

	for name, tc := range map[string]struct {
		ws            *papermem.Workspace
		current, next string
		code          string
	}{
		"ErrWrongCurrent":  {w, "wrong horse", "battery staple", papermem.EFORBIDDEN},
		"ErrShort":         {w, "correct horse", "short", papermem.EINVALID},
		"ErrLong":          {w, "correct horse", string(make([]byte, papermem.MaxPasswordBytes+1)), papermem.EINVALID},
		"ErrOtherWorkpace": {m.Workspace("lab-two"), "correct horse", "battery staple", papermem.ENOTFOUND},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := tc.ws.ChangePassword(ctx, ada.UserID, tc.current, tc.next); papermem.ErrorCode(err) != tc.code {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
			authenticates(t, m, s) // nothing changed
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
		refused(t, m, s)
		authenticates(t, m, sessionOf(u, "s2"))
		if code := loginCode("correct horse"); code != papermem.EUNAUTHORIZED {
			t.Fatalf("old password: %q", code)
		}
		if code := loginCode("battery staple"); code != "" {
			t.Fatalf("new password: %q", code)
		}
	})
}

func TestDisableUser(t *testing.T) {
	m := testutil.Open(t, nil)
	signup(t, m, "ada@example.org", "lab-one")
	carol, err := m.CreateUser(ctx, "lab-one", papermem.NewUser{Email: "carol@example.org", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	w := m.Workspace("lab-one")
	carolKey, err := w.CreateAPIKey(ctx, "", papermem.CreatorUser(carol.UserID))
	if err != nil {
		t.Fatal(err)
	}
	orgKey, err := w.CreateAPIKey(ctx, "", papermem.CreatorWorkspace("lab-one"))
	if err != nil {
		t.Fatal(err)
	}
	keyCode := func(k *papermem.NewAPIKey) string {
		_, err := m.AuthenticateAPIKey(ctx, k.Key)
		return papermem.ErrorCode(err)
	}
	s := sessionOf(carol, "s1")
	authenticates(t, m, s)
	if keyCode(carolKey) != "" || keyCode(orgKey) != "" {
		t.Fatal("keys refused before disabling")
	}

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, tc := range [][2]string{{"lab-two", carol.UserID}, {"lab-one", "usr_ghost"}} {
			if _, err := m.DisableUser(ctx, tc[0], tc[1]); papermem.ErrorCode(err) != papermem.ENOTFOUND {
				t.Fatalf("disable %v: %v", tc, err)
			}
			if _, err := m.EnableUser(ctx, tc[0], tc[1]); papermem.ErrorCode(err) != papermem.ENOTFOUND {
				t.Fatalf("enable %v: %v", tc, err)
			}
		}
		authenticates(t, m, s)
	})
	t.Run("Disable", func(t *testing.T) {
		u, err := m.DisableUser(ctx, "lab-one", carol.UserID)
		if err != nil || !u.Disabled {
			t.Fatalf("disable: %+v, %v", u, err)
		}
		refused(t, m, s)
		if _, err := m.Login(ctx, "carol@example.org", "correct horse"); papermem.ErrorCode(err) != papermem.EUNAUTHORIZED {
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
		u, err := m.EnableUser(ctx, "lab-one", carol.UserID)
		if err != nil || u.Disabled {
			t.Fatalf("enable: %+v, %v", u, err)
		}
		refused(t, m, s) // sessions ended for good
		if code := keyCode(carolKey); code != "" {
			t.Fatalf("key after enabling: %q", code)
		}
		again, err := m.Login(ctx, "carol@example.org", "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		authenticates(t, m, sessionOf(again, "s2"))
	})
}

// TestSessionEndedElsewhere ends sessions through a second Memory over the
// same file, and by hand in SQL, and checks that the first Memory, which
// has verified and remembered the sessions, refuses them on the next call.
func TestSessionEndedElsewhere(t *testing.T) {
	path, a, b := sharedFile(t)
	ada := signup(t, a, "ada@example.org", "lab-one")
	bob := signup(t, a, "bob@example.org", "lab-two")
	fresh := func(u *papermem.User, id string) papermem.Session {
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
	m, err := papermem.Open(ctx, path, &papermem.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ada := signup(t, m, "ada@example.org", "lab-one")
	bob := signup(t, m, "bob@example.org", "lab-two")
	logout := func(u *papermem.User, id string, ttl time.Duration) {
		t.Helper()
		s := sessionOf(u, id)
		s.ExpiresAt = now.Add(ttl)
		if err := m.Logout(ctx, s); err != nil {
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
	m := testutil.Open(b, nil)
	u, err := m.Signup(ctx, papermem.SignupInput{NewUser: papermem.NewUser{Email: "ada@example.org", Password: "correct horse"}, OrgID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	s := sessionOf(u, "bench-session")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.AuthenticateSession(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
