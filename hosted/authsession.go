package hosted

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/store"
	"golang.org/x/crypto/bcrypt"
)

// Session tokens are signed and verified by the caller (the HTTP layer);
// this file decides whether a verified token still stands for a live
// user, and ends sessions: one (Logout), all of a user's (LogoutAll,
// ChangePassword) or a user's for good (DisableUser).

// maxSessionIDLen bounds a session id (a token's jti).
const maxSessionIDLen = 128

// Session is a session token whose signature and expiry the caller has
// verified: the claims that tie it to a user.
type Session struct {
	ID          string    // the token's unique id (jti); required
	UserID      string    // the account it was issued to
	WorkspaceID string    // the account's workspace
	Version     int64     // the account's SessionVersion when it was issued
	ExpiresAt   time.Time // when the token expires
}

var (
	errBadSession   = papermem.Errorf(papermem.EUNAUTHORIZED, "Invalid or expired session token.")
	errEndedSession = papermem.Errorf(papermem.EUNAUTHORIZED, "This session has ended: log in again.")
)

// AuthenticateSession returns the account a verified session token names
// when it still stands: the account exists in the token's workspace, is
// not disabled, has not ended the session (Logout) nor every session
// since the token was issued (its SessionVersion is the token's). Errors:
// EUNAUTHORIZED.
//
// As with API keys, a session verified once is remembered until the
// credential generation moves, which every change that may end a session
// does at once (a trigger, whatever made the change): authenticating it
// again reads one integer.
func (s *Service) AuthenticateSession(ctx context.Context, sess Session) (_ *User, err error) {
	defer translate(&err)
	if sess.ID == "" || len(sess.ID) > maxSessionIDLen || sess.UserID == "" || sess.WorkspaceID == "" {
		return nil, errBadSession
	}
	gen, err := s.credentialGeneration(ctx)
	if err != nil {
		return nil, fmt.Errorf("authenticate session: %w", err)
	}
	if c := s.sessions.get(gen, sess.ID); c != nil && c.UserID == sess.UserID && c.WorkspaceID == sess.WorkspaceID && c.SessionVersion == sess.Version {
		u := *c
		return &u, nil
	}
	u, err := s.lookupSession(ctx, sess)
	if err != nil {
		return nil, err
	}
	c := *u
	s.sessions.update(gen, sess.ID, func(*User) *User { return &c })
	return u, nil
}

// lookupSession reads the session's user and checks that it stands.
func (s *Service) lookupSession(ctx context.Context, sess Session) (*User, error) {
	u, revoked, err := store.SessionUser(ctx, s.db, sess.WorkspaceID, sess.UserID, sess.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, errBadSession
	case err != nil:
		return nil, fmt.Errorf("authenticate session: %w", err)
	case u.Disabled:
		return nil, errDisabled
	case revoked || u.SessionVersion != sess.Version:
		return nil, errEndedSession
	}
	return userOf(u), nil
}

// Logout ends the session sess, which the caller has authenticated: its
// token is refused from now on, by this Service and any other sharing the
// database, until it expires. Revocations of the workspace's tokens that
// have expired since are dropped.
func (s *Service) Logout(ctx context.Context, sess Session) (err error) {
	defer translate(&err)
	err = s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return store.RevokeSession(ctx, tx, sess.WorkspaceID, sess.UserID, sess.ID, s.timestamp(sess.ExpiresAt), s.nowString())
	})
	if err != nil {
		return fmt.Errorf("logout: %w", err)
	}
	return nil
}

// LogoutAll ends every session of the workspace's user: tokens issued
// before are refused from now on. Errors: ENOTFOUND (unknown, or another
// workspace's user).
func (w *Workspace) LogoutAll(ctx context.Context, userID string) (err error) {
	defer translate(&err)
	n, err := w.s.execWrite(ctx, func(ctx context.Context, tx *store.Tx) (int64, error) {
		return store.EndSessions(ctx, tx, w.id, userID)
	})
	if err != nil {
		return fmt.Errorf("logout all: %w", err)
	}
	if n == 0 {
		return errNoUser
	}
	return nil
}

var errNoUser = papermem.Errorf(papermem.ENOTFOUND, "No such user in this workspace.")

// ChangePassword sets the password of the workspace's user after checking
// the current one, and ends every session of the user, the caller's too:
// the account returned carries the new SessionVersion, for a fresh token.
// Errors: EINVALID (next breaks the length rule of signup), EFORBIDDEN
// (current is wrong), ENOTFOUND, ECONFLICT (the password changed
// meanwhile).
func (w *Workspace) ChangePassword(ctx context.Context, userID, current, next string) (_ *User, err error) {
	defer translate(&err)
	if err := checkPassword("new_password", next); err != nil {
		return nil, err
	}
	hash, err := store.PasswordHash(ctx, w.s.db, w.id, userID)
	if err != nil {
		return nil, w.s.dbError(err, errNoUser.Message)
	}
	// bcrypt compares in constant time; both hashings run outside the write
	// transaction, which the update then guards against a concurrent change.
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(current)) != nil {
		return nil, papermem.Errorf(papermem.EFORBIDDEN, "current_password is wrong.")
	}
	newHash, err := hashPassword(next)
	if err != nil {
		return nil, err
	}
	u, err := w.s.updateUser(ctx, func(ctx context.Context, tx *store.Tx) (*store.User, error) {
		return store.SetPassword(ctx, tx, w.id, userID, hash, newHash)
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, papermem.Errorf(papermem.ECONFLICT, "The password changed meanwhile; try again.")
	}
	if err != nil {
		return nil, fmt.Errorf("change password: %w", err)
	}
	return u, nil
}

// DisableUser disables the account userID of workspace: it cannot log
// in, its session tokens are refused from now on (for good: enabling it
// again does not revive them) and so are the API keys it created, while it
// stays disabled. Disabling a disabled account keeps its first
// disabled_at. Errors: ENOTFOUND (no such user in the workspace).
func (s *Service) DisableUser(ctx context.Context, workspace, userID string) (_ *User, err error) {
	defer translate(&err)
	now := s.nowString()
	return s.setDisabled(ctx, workspace, userID, func(ctx context.Context, tx *store.Tx) (*store.User, error) {
		return store.DisableUser(ctx, tx, workspace, userID, now)
	})
}

// EnableUser enables the account userID of workspace again: it can
// log in, and the API keys it created and did not revoke work again. Its
// sessions stay ended. Errors: ENOTFOUND (no such user in the workspace).
func (s *Service) EnableUser(ctx context.Context, workspace, userID string) (_ *User, err error) {
	defer translate(&err)
	return s.setDisabled(ctx, workspace, userID, func(ctx context.Context, tx *store.Tx) (*store.User, error) {
		return store.EnableUser(ctx, tx, workspace, userID)
	})
}

// setDisabled runs update, which disables or enables the user userID of
// workspace, and returns the account.
func (s *Service) setDisabled(ctx context.Context, workspace, userID string, update func(context.Context, *store.Tx) (*store.User, error)) (*User, error) {
	u, err := s.updateUser(ctx, update)
	if err != nil {
		return nil, s.dbError(err, fmt.Sprintf("No user %q in workspace %q.", userID, workspace))
	}
	return u, nil
}

// updateUser runs update, which changes one user, as a write and returns
// the account it changed (store.ErrNotFound when none).
func (s *Service) updateUser(ctx context.Context, update func(context.Context, *store.Tx) (*store.User, error)) (*User, error) {
	var u *store.User
	err := s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		var err error
		u, err = update(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return userOf(u), nil
}
