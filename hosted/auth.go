package hosted

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
	"golang.org/x/crypto/bcrypt"
)

// User roles.
const (
	RoleOwner  = "owner"  // the user who signed the workspace up
	RoleMember = "member" // a user added to an existing workspace
)

// Password limits: bcrypt reads at most 72 bytes.
const (
	MinPasswordBytes = 8
	MaxPasswordBytes = 72
)

// User is an account.
type User = api.User

// NewUser is an account to create.
type NewUser = api.NewUser

// SignupInput creates a workspace and its first user (its owner).
type SignupInput = api.SignupInput

// userOf converts a users row.
func userOf(r *store.User) *User {
	return &User{UserID: r.UserID, WorkspaceID: r.OrgID, Email: r.Email, Name: r.Name, Role: r.Role, CreatedAt: r.CreatedAt,
		Disabled: r.Disabled, IsFounder: r.IsFounder, SessionVersion: r.SessionVersion}
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// validateUser checks the account fields, normalises the email and returns the
// password hash.
func validateUser(in *NewUser) (hash []byte, err error) {
	in.Email = strings.ToLower(strings.TrimSpace(in.Email))
	addr, perr := mail.ParseAddress(in.Email)
	if perr != nil || addr.Address != in.Email || len(in.Email) > 254 {
		return nil, papermem.Errorf(papermem.EINVALID, "email must be a plain email address such as ada@example.org.")
	}
	if err := checkPassword("password", in.Password); err != nil {
		return nil, err
	}
	in.Name = strings.TrimSpace(in.Name)
	if utf8.RuneCountInString(in.Name) > 200 || !utf8.ValidString(in.Name) {
		return nil, papermem.Errorf(papermem.EINVALID, "name must be UTF-8 of at most 200 characters.")
	}
	switch in.Role {
	case "":
		in.Role = RoleMember
	case RoleOwner, RoleMember:
	default:
		return nil, papermem.Errorf(papermem.EINVALID, "role must be %s or %s.", RoleOwner, RoleMember)
	}
	return hashPassword(in.Password)
}

// checkPassword applies the length rule to the password in the named field.
func checkPassword(field, pw string) error {
	if n := len(pw); n < MinPasswordBytes || n > MaxPasswordBytes {
		return papermem.Errorf(papermem.EINVALID, "%s must be %d to %d bytes long.", field, MinPasswordBytes, MaxPasswordBytes)
	}
	return nil
}

// hashPassword returns the bcrypt hash of a password that passed
// checkPassword.
func hashPassword(pw string) ([]byte, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
	if err != nil {
		return nil, papermem.Errorf(papermem.EINVALID, "password cannot be hashed: %v.", err)
	}
	return hash, nil
}

// newUserRecord is the record of a user about to be inserted.
func (s *Service) newUserRecord(workspace string, in NewUser) *User {
	return &User{UserID: "usr_" + randomHex(12), WorkspaceID: workspace, Email: in.Email, Name: in.Name, Role: in.Role,
		CreatedAt: s.nowString()}
}

// insertUser inserts u with its password hash within tx.
func insertUser(ctx context.Context, tx *store.Tx, u *User, hash []byte) error {
	err := store.InsertUser(ctx, tx, &store.User{UserID: u.UserID, OrgID: u.WorkspaceID, Email: u.Email, Name: u.Name,
		Role: u.Role, CreatedAt: u.CreatedAt}, hash)
	if store.IsUnique(err) {
		return &papermem.Error{Code: papermem.ECONFLICT, Message: "An account with this email already exists.", Err: papermem.ErrDuplicateEmail}
	}
	return err
}

// Signup creates a workspace and its owner in one transaction. Errors:
// EINVALID (bad input, or in.WorkspaceID names an existing workspace: users join
// a workspace through CreateUser), ECONFLICT (the email has an account).
func (s *Service) Signup(ctx context.Context, in SignupInput) (_ *User, err error) {
	defer translate(&err)
	in.Role = RoleOwner
	org := strings.TrimSpace(in.WorkspaceID)
	if org == "" {
		org = "ws-" + randomHex(6)
	}
	if !papermem.ValidWorkspaceID(org) {
		return nil, errWorkspaceID("org_id")
	}
	name := strings.TrimSpace(in.WorkspaceName)
	if utf8.RuneCountInString(name) > 200 || !utf8.ValidString(name) {
		return nil, papermem.Errorf(papermem.EINVALID, "workspace_name must be UTF-8 of at most 200 characters.")
	}
	hash, err := validateUser(&in.NewUser)
	if err != nil {
		return nil, err
	}
	u := s.newUserRecord(org, in.NewUser)
	err = s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		err := store.InsertWorkspace(ctx, tx, org, name, papermem.PlanStarter, CreatorUser(u.UserID), u.CreatedAt)
		if store.IsUnique(err) {
			return &papermem.Error{Code: papermem.EINVALID, Message: fmt.Sprintf("Workspace %q already exists; an administrator adds users to it.", org), Err: papermem.ErrWorkspaceID}
		}
		if err != nil {
			return err
		}
		return insertUser(ctx, tx, u, hash)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// CreateUser adds a user to the existing workspace. Errors: EINVALID,
// ENOTFOUND (no such workspace), ECONFLICT (the email has an account).
func (s *Service) CreateUser(ctx context.Context, workspace string, in NewUser) (_ *User, err error) {
	defer translate(&err)
	hash, err := validateUser(&in)
	if err != nil {
		return nil, err
	}
	u := s.newUserRecord(workspace, in)
	err = s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := mustExist(ctx, tx, workspace); err != nil {
			return err
		}
		return insertUser(ctx, tx, u, hash)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// dummyHash is compared against when a login names no account, so that
// an unknown email costs as much time as a wrong password. It is made on
// first use, not at package load, so that starting a process costs no bcrypt.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("papermem-no-such-user"), bcrypt.DefaultCost)
	return h
})

// Login checks an email and password and returns the account. Errors:
// EUNAUTHORIZED, with the same message whether the email or the password
// is wrong, and another one, after the right password, for a disabled
// account.
func (s *Service) Login(ctx context.Context, email, password string) (_ *User, err error) {
	defer translate(&err)
	email = strings.ToLower(strings.TrimSpace(email))
	r, hash, err := store.UserByEmail(ctx, s.db, email)
	if errors.Is(err, store.ErrNotFound) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return nil, errBadLogin
	}
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return nil, errBadLogin
	}
	if r.Disabled {
		return nil, errDisabled
	}
	now := s.nowString()
	err = s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return store.TouchLogin(ctx, tx, r.UserID, now)
	})
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	return userOf(r), nil
}

var (
	errBadLogin = papermem.Errorf(papermem.EUNAUTHORIZED, "Invalid email or password.")
	errDisabled = papermem.Errorf(papermem.EUNAUTHORIZED, "This account is disabled.")
)

// User returns the account with the id, in any workspace. Errors:
// ENOTFOUND.
func (s *Service) User(ctx context.Context, userID string) (_ *User, err error) {
	defer translate(&err)
	r, err := store.UserByID(ctx, s.db, userID)
	if err != nil {
		return nil, s.dbError(err, "No such user.")
	}
	return userOf(r), nil
}

// User returns the account with the id when it belongs to the workspace.
// Errors: ENOTFOUND (unknown, or another workspace's user).
func (w *Workspace) User(ctx context.Context, userID string) (_ *User, err error) {
	defer translate(&err)
	r, err := store.OrgUser(ctx, w.s.db, w.id, userID)
	if err != nil {
		return nil, w.s.dbError(err, "No such user in this workspace.")
	}
	return userOf(r), nil
}

// GrantFounder gives the account with the email founder access. Errors:
// ENOTFOUND.
func (s *Service) GrantFounder(ctx context.Context, email string) (err error) {
	defer translate(&err)
	addr := strings.ToLower(strings.TrimSpace(email))
	n, err := s.execWrite(ctx, func(ctx context.Context, tx *store.Tx) (int64, error) {
		return store.GrantFounder(ctx, tx, addr)
	})
	if err != nil {
		return fmt.Errorf("grant founder: %w", err)
	}
	if n == 0 {
		return papermem.Errorf(papermem.ENOTFOUND, "No account has the email %q.", email)
	}
	return nil
}

// UserActivity is a user with what they did in the workspace.
type UserActivity = api.UserActivity

// Users lists the workspace's users, oldest first, with their activity.
// This is the one place activity is computed.
func (w *Workspace) Users(ctx context.Context) (_ []UserActivity, err error) {
	defer translate(&err)
	rows, err := store.UsersActivity(ctx, w.s.db, w.id)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	out := make([]UserActivity, 0, len(rows))
	index := map[string]int{}
	for _, r := range rows {
		a := UserActivity{User: *userOf(&r.User), Domains: []string{}}
		a.FirstSeen = minTime(a.CreatedAt, r.FirstMemory)
		a.LastSeen = max(a.CreatedAt, r.LastLogin, r.LastMemory)
		index[a.UserID] = len(out)
		out = append(out, a)
	}
	domains, err := store.MemoryDomains(ctx, w.s.db, w.id)
	if err != nil {
		return nil, fmt.Errorf("list user domains: %w", err)
	}
	for _, d := range domains {
		if i, ok := index[d.UserID]; ok {
			out[i].Domains = append(out[i].Domains, d.Domain)
		}
	}
	return out, w.addSessionActivity(ctx, out)
}

// addSessionActivity adds session activity to a listing of users: session
// counts, domains (merged, sorted) and the first and last seen times.
func (w *Workspace) addSessionActivity(ctx context.Context, users []UserActivity) error {
	acts, err := w.memory().SessionActivities(ctx)
	if err != nil {
		return err
	}
	for i := range users {
		u, a := &users[i], acts[users[i].UserID]
		if a == nil {
			continue
		}
		u.Sessions = a.Sessions
		u.Domains = slices.Compact(slices.Sorted(slices.Values(append(u.Domains, a.Domains...))))
		u.FirstSeen = minTime(u.FirstSeen, a.FirstSeen)
		u.LastSeen = max(u.LastSeen, a.LastSeen)
	}
	return nil
}

// minTime returns the earlier of two stored times, ignoring empty ones.
func minTime(a, b string) string {
	if a == "" || (b != "" && b < a) {
		return b
	}
	return a
}

// API keys: the value is KeyPrefix followed by the URL-safe base64 of
// apiKeyBytes random bytes. Only its SHA-256 hash is stored, with its first
// apiKeyPrefixLen characters as a non-secret lookup prefix.
const (
	KeyPrefix       = "pm_"
	apiKeyBytes     = 32
	apiKeyPrefixLen = 12
	// keyTouchInterval is how stale last_used_at may get before an
	// authentication rewrites it.
	keyTouchInterval = time.Minute
)

// NewAPIKey is a key just created: its record and, this once, its value.
type NewAPIKey = api.NewAPIKey

// CreateAPIKey creates a key of the workspace. Name "" means "default";
// creator records who asked (see CreatorUser). Errors: EINVALID.
func (w *Workspace) CreateAPIKey(ctx context.Context, name, creator string) (_ *NewAPIKey, err error) {
	defer translate(&err)
	var k *NewAPIKey
	err = w.s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		var err error
		k, err = w.createAPIKey(ctx, tx, name, creator)
		return err
	})
	return k, err
}

func (w *Workspace) createAPIKey(ctx context.Context, tx *store.Tx, name, creator string) (*NewAPIKey, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "default"
	}
	if utf8.RuneCountInString(name) > 100 || !utf8.ValidString(name) {
		return nil, papermem.Errorf(papermem.EINVALID, "name must be UTF-8 of at most 100 characters.")
	}
	if err := w.s.ensureWorkspace(ctx, tx, w.id); err != nil {
		return nil, err
	}
	secret := make([]byte, apiKeyBytes)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("create api key: %w", err)
	}
	value := KeyPrefix + base64.RawURLEncoding.EncodeToString(secret)
	sum := sha256.Sum256([]byte(value))
	k := &NewAPIKey{APIKey: papermem.APIKey{KeyID: "key_" + randomHex(8), WorkspaceID: w.id, Name: name,
		Prefix: value[:apiKeyPrefixLen], CreatedAt: w.s.nowString()}, Key: value}
	err := store.InsertAPIKey(ctx, tx, &store.APIKey{KeyID: k.KeyID, OrgID: w.id, Name: name, Prefix: k.Prefix,
		CreatedAt: k.CreatedAt, Hash: sum[:]}, creator)
	if err != nil {
		return nil, fmt.Errorf("create api key: %w", err)
	}
	return k, nil
}

// RevokeAPIKey deletes the workspace's key; it fails authentication from
// then on. Errors: ENOTFOUND (unknown, or another workspace's key).
func (w *Workspace) RevokeAPIKey(ctx context.Context, keyID string) (err error) {
	defer translate(&err)
	n, err := w.s.execWrite(ctx, func(ctx context.Context, tx *store.Tx) (int64, error) {
		return store.DeleteAPIKey(ctx, tx, w.id, keyID)
	})
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	if n == 0 {
		return papermem.Errorf(papermem.ENOTFOUND, "No API key %q in this workspace.", keyID)
	}
	return nil
}

// AuthenticateAPIKey returns the record of the key with the value, and
// notes its use (last_used_at, rewritten at most once a minute). Errors:
// EUNAUTHORIZED (unknown or revoked key, or a key created by a user who is
// disabled now).
//
// A key verified once is remembered by this Service, so that authenticating
// it again reads one integer, the credential generation, instead of
// looking the key up. Revocation still takes effect at once, here and in
// any other process sharing the database: deleting a key, or disabling its
// creator, bumps the generation in the same transaction (a trigger does
// it, whatever made the change), and a remembered key is used only while
// the generation it was verified at is current. Keys are found by their
// non-secret prefix and their SHA-256 hashes compared in constant time, in
// the cache as in the database.
func (s *Service) AuthenticateAPIKey(ctx context.Context, value string) (_ *papermem.APIKey, err error) {
	defer translate(&err)
	if !strings.HasPrefix(value, KeyPrefix) || len(value) <= apiKeyPrefixLen {
		return nil, errBadKey
	}
	prefix := value[:apiKeyPrefixLen]
	sum := sha256.Sum256([]byte(value))
	gen, err := s.credentialGeneration(ctx)
	if err != nil {
		return nil, fmt.Errorf("authenticate api key: %w", err)
	}
	e := s.keys.get(gen, prefix, &sum)
	if e == nil {
		k, err := s.lookupAPIKey(ctx, prefix, &sum)
		if err != nil {
			return nil, err
		}
		e = s.keys.put(gen, prefix, &sum, k)
	}
	if err := s.touchAPIKey(ctx, e); err != nil {
		return nil, err
	}
	return e.record(), nil
}

// lookupAPIKey reads the key with the prefix whose stored hash is sum.
func (s *Service) lookupAPIKey(ctx context.Context, prefix string, sum *[sha256.Size]byte) (*papermem.APIKey, error) {
	rows, err := store.APIKeysByPrefix(ctx, s.db, prefix)
	if err != nil {
		return nil, fmt.Errorf("authenticate api key: %w", err)
	}
	var found *papermem.APIKey
	for i := range rows {
		if subtle.ConstantTimeCompare(rows[i].Hash, sum[:]) == 1 {
			k := rows[i].API()
			found = &k
		}
	}
	if found == nil {
		return nil, errBadKey
	}
	return found, nil
}

// touchAPIKey rewrites the key's last_used_at when it is older than
// keyTouchInterval. Of concurrent requests only one writes.
func (s *Service) touchAPIKey(ctx context.Context, e *cachedKey) error {
	now := s.now()
	last := e.used.Load()
	if now.UnixMilli()-last < keyTouchInterval.Milliseconds() || !e.used.CompareAndSwap(last, now.UnixMilli()) {
		return nil
	}
	ts := s.timestamp(now)
	err := s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return store.TouchAPIKey(ctx, tx, e.key.WorkspaceID, e.key.KeyID, ts)
	})
	if err != nil {
		e.used.CompareAndSwap(now.UnixMilli(), last) // let the next request try again
		return fmt.Errorf("authenticate api key: %w", err)
	}
	e.usedAt.Store(&ts)
	return nil
}

// keyCache holds the API keys this Service has verified, by the value's
// prefix. The zero keyCache is empty and ready.
type keyCache struct {
	c credCache[[]*cachedKey]
}

// cachedKey is a verified key: its record and the SHA-256 of its value.
type cachedKey struct {
	hash   [sha256.Size]byte
	key    papermem.APIKey        // LastUsedAt as read when verified; usedAt supersedes it
	used   atomic.Int64           // last_used_at in Unix milliseconds; 0 when never used
	usedAt atomic.Pointer[string] // last_used_at as stored; nil when never used
}

// record returns a copy of the key's record with its last use.
func (e *cachedKey) record() *papermem.APIKey {
	k := e.key
	if ts := e.usedAt.Load(); ts != nil {
		k.LastUsedAt = ts
	}
	return &k
}

// get returns the entry of the key verified at generation gen, or nil.
func (c *keyCache) get(gen int64, prefix string, sum *[sha256.Size]byte) *cachedKey {
	var found *cachedKey
	for _, e := range c.c.get(gen, prefix) {
		if subtle.ConstantTimeCompare(e.hash[:], sum[:]) == 1 {
			found = e
		}
	}
	return found
}

// put remembers k, verified at generation gen, and returns its entry.
func (c *keyCache) put(gen int64, prefix string, sum *[sha256.Size]byte, k *papermem.APIKey) *cachedKey {
	e := &cachedKey{hash: *sum, key: *k}
	if k.LastUsedAt != nil {
		e.usedAt.Store(k.LastUsedAt)
		if t, err := time.Parse(time.RFC3339, *k.LastUsedAt); err == nil {
			e.used.Store(t.UnixMilli())
		}
	}
	c.c.update(gen, prefix, func(old []*cachedKey) []*cachedKey {
		for _, o := range old {
			if subtle.ConstantTimeCompare(o.hash[:], sum[:]) == 1 {
				e = o // verified concurrently; keep one entry and its last use
				return old
			}
		}
		return append(old[:len(old):len(old)], e) // a new array: readers may hold old
	})
	return e
}

// credCache holds credentials this Service has verified, each valid for
// the credential generation it was verified at (credential_generation,
// migrations 0006 and 0009): every change that may end a credential bumps
// the generation, in this process or another sharing the file, and an
// entry of an older generation is never used. The zero credCache is empty
// and ready.
type credCache[V any] struct {
	mu      sync.RWMutex
	gen     int64        // generation every entry was verified at
	entries map[string]V // by a key naming the credential
}

// maxCachedCredentials bounds a credCache: an update that would pass it
// empties the cache first.
const maxCachedCredentials = 1 << 14

// credentialGeneration reads the current credential generation. The read
// takes microseconds, so it does not watch ctx for cancellation: for a
// cancellable context the SQLite driver registers a callback and takes a
// lock around every step, which costs more than the read.
func (s *Service) credentialGeneration(ctx context.Context) (int64, error) {
	return store.CredentialGeneration(context.WithoutCancel(ctx), s.db)
}

// get returns the entry under key verified at generation gen, or the zero V.
func (c *credCache[V]) get(gen int64, key string) V {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if gen != c.gen {
		var zero V
		return zero
	}
	return c.entries[key]
}

// update replaces the entry under key with f of the entry there (the zero
// V when none), as verified at generation gen. A generation other than the
// cache's empties the cache first: its entries may name ended credentials.
func (c *credCache[V]) update(gen int64, key string, f func(old V) V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen || c.entries == nil || len(c.entries) >= maxCachedCredentials {
		c.gen, c.entries = gen, map[string]V{}
	}
	c.entries[key] = f(c.entries[key])
}

var errBadKey = papermem.Errorf(papermem.EUNAUTHORIZED, "Invalid or revoked API key.")

// Secret returns the persistent random secret with the name (32 bytes),
// generating and storing it on first use.
func (s *Service) Secret(ctx context.Context, name string) (_ []byte, err error) {
	defer translate(&err)
	key := "secret:" + name
	value := randomHex(32)
	err = s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return store.PutMetaOnce(ctx, tx, key, value)
	})
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	v, err := store.Meta(ctx, s.db, key)
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	return hex.DecodeString(v)
}
