package store

import (
	"context"
	"database/sql"

	"github.com/papermem/papermem/api"
)

// User is a row of users, less its password hash.
type User struct {
	UserID, OrgID, Email, Name, Role string
	Disabled, IsFounder              bool
	SessionVersion                   int64
	CreatedAt                        string
}

// userColumns are scanned into userFields, in this order.
const userColumns = `user_id, org_id, email, name, role, disabled_at <> '', is_founder, session_version, created_at`

// userFields are the scan destinations of userColumns in u.
func userFields(u *User) []any {
	return []any{&u.UserID, &u.OrgID, &u.Email, &u.Name, &u.Role, &u.Disabled, &u.IsFounder, &u.SessionVersion, &u.CreatedAt}
}

// scanUser scans one row of userColumns.
func scanUser(sc scanner) (*User, error) {
	var u User
	if err := sc.Scan(userFields(&u)...); err != nil {
		return nil, err
	}
	return &u, nil
}

// InsertUser inserts u with its password hash.
func InsertUser(ctx context.Context, q Querier, u *User, hash []byte) error {
	_, err := q.ExecContext(ctx, `INSERT INTO users (user_id, org_id, email, name, role, password_hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, u.UserID, u.OrgID, u.Email, u.Name, u.Role, string(hash), u.CreatedAt)
	return err
}

// UserByEmail returns the account with the email and its password hash.
func UserByEmail(ctx context.Context, q Querier, email string) (*User, string, error) {
	var u User
	var hash string
	err := queryRow(ctx, q, `SELECT `+userColumns+`, password_hash FROM users WHERE email = ?`, email).
		Scan(append(userFields(&u), &hash)...)
	return &u, hash, err
}

// TouchLogin sets the user's last login time to now.
func TouchLogin(ctx context.Context, q Querier, userID, now string) error {
	_, err := q.ExecContext(ctx, `UPDATE users SET last_login_at = ? WHERE user_id = ?`, now, userID)
	return err
}

// UserByID returns the account with the id, in any workspace.
func UserByID(ctx context.Context, q Querier, userID string) (*User, error) {
	return scanUser(queryRow(ctx, q, `SELECT `+userColumns+` FROM users WHERE user_id = ?`, userID))
}

// OrgUser returns the account with the id when it belongs to org.
func OrgUser(ctx context.Context, q Querier, org, userID string) (*User, error) {
	return scanUser(queryRow(ctx, q, `SELECT `+userColumns+` FROM users WHERE org_id = ? AND user_id = ?`,
		org, userID))
}

// GrantFounder marks the account with the email a founder and returns the
// number of accounts changed.
func GrantFounder(ctx context.Context, q Querier, email string) (int64, error) {
	return rowsAffected(q.ExecContext(ctx, `UPDATE users SET is_founder = 1 WHERE email = ?`, email))
}

// UserActivity is a user with its last login and the times of its first
// and last memory ("" for none).
type UserActivity struct {
	User
	LastLogin, FirstMemory, LastMemory string
}

// UsersActivity lists org's users, oldest first, with their activity.
func UsersActivity(ctx context.Context, q Querier, org string) ([]UserActivity, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+userColumns+`, last_login_at,
		coalesce((SELECT min(created_at) FROM memories m WHERE m.org_id = u.org_id AND m.user_id = u.user_id), ''),
		coalesce((SELECT max(updated_at) FROM memories m WHERE m.org_id = u.org_id AND m.user_id = u.user_id), '')
		FROM users u WHERE org_id = ? ORDER BY created_at, user_id`, org)
	return collect(rows, err, func(rows *sql.Rows, a *UserActivity) error {
		return rows.Scan(append(userFields(&a.User), &a.LastLogin, &a.FirstMemory, &a.LastMemory)...)
	})
}

// UserDomain is a domain of a user's memories.
type UserDomain struct{ UserID, Domain string }

// MemoryDomains lists the distinct domains of org's memories by user, by
// user then domain.
func MemoryDomains(ctx context.Context, q Querier, org string) ([]UserDomain, error) {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT user_id, domain FROM memories
		WHERE org_id = ? AND domain <> '' ORDER BY user_id, domain`, org)
	return collect(rows, err, scanUserDomain)
}

// scanUserDomain scans a row of (user_id, domain).
func scanUserDomain(rows *sql.Rows, d *UserDomain) error {
	return rows.Scan(&d.UserID, &d.Domain)
}

// APIKey is a row of api_keys. LastUsedAt is "" until the key is used;
// Hash is read by APIKeysByPrefix only.
type APIKey struct {
	KeyID, OrgID, Name, Prefix, CreatedAt, LastUsedAt string
	Hash                                              []byte
}

// API returns the key as the API shows it: without its hash, LastUsedAt
// nil until the key is used.
func (k *APIKey) API() api.APIKey {
	out := api.APIKey{KeyID: k.KeyID, WorkspaceID: k.OrgID, Name: k.Name, Prefix: k.Prefix, CreatedAt: k.CreatedAt}
	if k.LastUsedAt != "" {
		last := k.LastUsedAt
		out.LastUsedAt = &last
	}
	return out
}

// InsertAPIKey inserts the key k, created by creator.
func InsertAPIKey(ctx context.Context, q Querier, k *APIKey, creator string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO api_keys (key_id, org_id, created_by, name, prefix, hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, k.KeyID, k.OrgID, creator, k.Name, k.Prefix, k.Hash, k.CreatedAt)
	return err
}

// APIKeys lists org's keys, oldest first, without their hashes.
func APIKeys(ctx context.Context, q Querier, org string) ([]APIKey, error) {
	rows, err := q.QueryContext(ctx, `SELECT key_id, name, prefix, created_at, last_used_at
		FROM api_keys WHERE org_id = ? ORDER BY created_at, key_id`, org)
	return collect(rows, err, func(rows *sql.Rows, k *APIKey) error {
		k.OrgID = org
		return rows.Scan(&k.KeyID, &k.Name, &k.Prefix, &k.CreatedAt, &k.LastUsedAt)
	})
}

// DeleteAPIKey deletes org's key and returns the number of keys deleted.
func DeleteAPIKey(ctx context.Context, q Querier, org, keyID string) (int64, error) {
	return rowsAffected(q.ExecContext(ctx, `DELETE FROM api_keys WHERE org_id = ? AND key_id = ?`, org, keyID))
}

// APIKeysByPrefix returns the keys, of any workspace, whose value starts
// with prefix, with their hashes, less those created by a user who is
// disabled now.
func APIKeysByPrefix(ctx context.Context, q Querier, prefix string) ([]APIKey, error) {
	rows, err := q.QueryContext(ctx, `SELECT key_id, org_id, name, prefix, hash, created_at, last_used_at
		FROM api_keys k WHERE prefix = ? AND NOT EXISTS (SELECT 1 FROM users u
			WHERE substr(k.created_by, 1, 5) = 'user:' AND u.user_id = substr(k.created_by, 6) AND u.disabled_at <> '')`, prefix)
	return collect(rows, err, func(rows *sql.Rows, k *APIKey) error {
		return rows.Scan(&k.KeyID, &k.OrgID, &k.Name, &k.Prefix, &k.Hash, &k.CreatedAt, &k.LastUsedAt)
	})
}

// TouchAPIKey sets the last use of org's key to ts.
func TouchAPIKey(ctx context.Context, q Querier, org, keyID, ts string) error {
	_, err := q.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE org_id = ? AND key_id = ?`,
		ts, org, keyID)
	return err
}

// CredentialGeneration reads the credential generation, which every change
// that may end a credential moves. It reads through db itself, not a
// Querier: the direct call keeps the row off the heap, and every
// authentication makes it.
func CredentialGeneration(ctx context.Context, db *sql.DB) (int64, error) {
	var gen int64
	err := db.QueryRowContext(ctx, `SELECT gen FROM credential_generation`).Scan(&gen)
	return gen, err
}

// SessionUser returns org's user userID and whether its session jti was
// revoked.
func SessionUser(ctx context.Context, q Querier, org, userID, jti string) (*User, bool, error) {
	var u User
	var revoked bool
	err := queryRow(ctx, q, `SELECT `+userColumns+`, EXISTS (SELECT 1 FROM revoked_sessions r
			WHERE r.org_id = u.org_id AND r.user_id = u.user_id AND r.jti = ?)
		FROM users u WHERE u.org_id = ? AND u.user_id = ?`, jti, org, userID).
		Scan(append(userFields(&u), &revoked)...)
	return &u, revoked, err
}

// RevokeSession records that org's session jti of the user is revoked
// until it expires, dropping the org's revocations expired by now.
func RevokeSession(ctx context.Context, q Querier, org, userID, jti, expires, now string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM revoked_sessions WHERE org_id = ? AND expires_at <= ?`,
		org, now); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `INSERT INTO revoked_sessions (org_id, user_id, jti, expires_at)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, org, userID, jti, expires)
	return err
}

// EndSessions moves the session version of org's user and returns the
// number of users changed.
func EndSessions(ctx context.Context, q Querier, org, userID string) (int64, error) {
	return rowsAffected(q.ExecContext(ctx, `UPDATE users SET session_version = session_version + 1
		WHERE org_id = ? AND user_id = ?`, org, userID))
}

// PasswordHash returns the password hash of org's user.
func PasswordHash(ctx context.Context, q Querier, org, userID string) (string, error) {
	var hash string
	err := queryRow(ctx, q, `SELECT password_hash FROM users WHERE org_id = ? AND user_id = ?`,
		org, userID).Scan(&hash)
	return hash, err
}

// SetPassword replaces the password hash of org's user, when it is still
// old, moving its session version, and returns the account
// (ErrNotFound when none changed).
func SetPassword(ctx context.Context, q Querier, org, userID string, old string, hash []byte) (*User, error) {
	return scanUser(queryRow(ctx, q, `UPDATE users
		SET password_hash = ?, session_version = session_version + 1
		WHERE org_id = ? AND user_id = ? AND password_hash = ? RETURNING `+userColumns,
		string(hash), org, userID, old))
}

// DisableUser disables org's user from now on, keeping an earlier
// disabled_at, moves its session version and returns the account.
func DisableUser(ctx context.Context, q Querier, org, userID, now string) (*User, error) {
	return setDisabled(ctx, q, `disabled_at = CASE disabled_at WHEN '' THEN ? ELSE disabled_at END,
		session_version = session_version + 1`, org, userID, now)
}

// EnableUser enables org's user again and returns the account.
func EnableUser(ctx context.Context, q Querier, org, userID string) (*User, error) {
	return setDisabled(ctx, q, `disabled_at = ''`, org, userID)
}

// setDisabled applies the SET clause, with its arguments first, to org's
// user and returns the account (ErrNotFound when none).
func setDisabled(ctx context.Context, q Querier, set, org, userID string, args ...any) (*User, error) {
	return scanUser(queryRow(ctx, q, `UPDATE users SET `+set+`
		WHERE org_id = ? AND user_id = ? RETURNING `+userColumns, append(args, org, userID)...))
}

// PutMetaOnce stores value under key unless the key has one.
func PutMetaOnce(ctx context.Context, q Querier, key, value string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`,
		key, value)
	return err
}

// Meta returns the value stored under key.
func Meta(ctx context.Context, q Querier, key string) (string, error) {
	var v string
	err := queryRow(ctx, q, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	return v, err
}

// rowsAffected returns the number of rows an Exec changed.
func rowsAffected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
