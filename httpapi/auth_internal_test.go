package httpapi

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/testutil"
)

// TestDefenceInDepth checks the checks that no route can reach today,
// because authenticate already refuses what they refuse: founder access
// is never granted to developer headers or to an account of another
// workspace, and a token signed with our secret but missing its user, id
// or workspace is refused however the session lookup would answer.
func TestDefenceInDepth(t *testing.T) {
	ctx := context.Background()
	svc := testutil.OpenHosted(t, nil, nil)
	s := newServer(svc, Config{Logger: slog.New(slog.DiscardHandler)})
	u, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: "ada@example.org", Password: "correct horse"}, WorkspaceID: "lab-one"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.GrantFounder(ctx, u.Email); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		p    principal
		want bool
	}{
		{"Session", principal{workspace: "lab-one", user: u.UserID, cred: credSession}, true},
		{"OtherWorkspace", principal{workspace: "lab-two", user: u.UserID, cred: credAPIKey}, false},
		{"DevHeaders", principal{workspace: "lab-one", user: u.UserID, cred: credDev}, false},
	} {
		if got := s.isFounder(ctx, &c.p); got != c.want {
			t.Errorf("isFounder(%s) = %v, want %v", c.name, got, c.want)
		}
	}

	secret, err := s.jwtSecret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for name, drop := range map[string]string{"": "", "NoUser": "user_id", "NoID": "jti", "NoWorkspace": "org_id"} {
		c := jwt.MapClaims{"user_id": u.UserID, "org_id": u.WorkspaceID, "jti": "j1",
			"iat": now.Add(-time.Minute).Unix(), "exp": now.Add(time.Hour).Unix()}
		delete(c, drop)
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.parseToken(ctx, tok)
		if ok := err == nil; ok != (drop == "") {
			t.Errorf("parseToken(%s): err = %v", name, err)
		}
	}
}
