package hosted

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/store"
)

// DefaultTokenTTL is a new workspace's session-token lifetime.
const DefaultTokenTTL = 24 * time.Hour

// errWorkspaceID is the EINVALID error of a malformed workspace id.
func errWorkspaceID(field string) error {
	return &papermem.Error{Code: papermem.EINVALID, Message: field + " must match ^[a-z0-9][a-z0-9_-]{2,63}$.", Err: papermem.ErrWorkspaceID}
}

// CreatorUser names a user as the creator of a workspace or API key.
func CreatorUser(userID string) string { return "user:" + userID }

// CreatorWorkspace names a workspace (a credential without a user) as the
// creator of a workspace or API key.
func CreatorWorkspace(workspace string) string { return "org:" + workspace }

// WorkspaceRecord describes a workspace.
type WorkspaceRecord struct {
	OrgID           string `json:"org_id"`
	Name            string `json:"name"`
	Plan            string `json:"plan"`              // the plan's display name, e.g. "Starter Tier"
	TokenTTLSeconds int    `json:"token_ttl_seconds"` // lifetime of session tokens issued for it
	CreatedAt       string `json:"created_at"`
}

// workspaceOf converts a workspaces row, naming its plan.
func workspaceOf(r *store.Workspace) *WorkspaceRecord {
	rec := &WorkspaceRecord{OrgID: r.OrgID, Name: r.Name, Plan: r.Plan, TokenTTLSeconds: r.TokenTTLSeconds, CreatedAt: r.CreatedAt}
	if p, err := papermem.LookupPlan(rec.Plan); err == nil {
		rec.Plan = p.Name
	}
	return rec
}

// TokenTTL is the lifetime of session tokens of the workspace.
func (r *WorkspaceRecord) TokenTTL() time.Duration {
	if r.TokenTTLSeconds <= 0 {
		return DefaultTokenTTL
	}
	return time.Duration(r.TokenTTLSeconds) * time.Second
}

// CreateWorkspace creates workspace on the Starter plan together with
// its first API key, whose value is returned this once. creator is
// CreatorUser or CreatorWorkspace of the caller. Errors: EINVALID (bad id
// or name), ECONFLICT (the id is taken).
func (s *Service) CreateWorkspace(ctx context.Context, workspace, name, creator string) (*WorkspaceRecord, *NewAPIKey, error) {
	workspace = strings.TrimSpace(workspace)
	if !papermem.ValidWorkspaceID(workspace) {
		return nil, nil, errWorkspaceID("org_id")
	}
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > 200 || !utf8.ValidString(name) {
		return nil, nil, papermem.Errorf(papermem.EINVALID, "name must be UTF-8 of at most 200 characters.")
	}
	var rec *WorkspaceRecord
	var key *NewAPIKey
	err := s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		err := store.InsertWorkspace(ctx, tx, workspace, name, papermem.PlanStarter, creator, s.nowString())
		if store.IsUnique(err) {
			return &papermem.Error{Code: papermem.ECONFLICT, Message: fmt.Sprintf("Workspace %q already exists.", workspace), Err: papermem.ErrWorkspaceID}
		}
		if err != nil {
			return fmt.Errorf("create workspace: %w", err)
		}
		if key, err = s.Workspace(workspace).createAPIKey(ctx, tx, "default", creator); err != nil {
			return err
		}
		r, err := store.WorkspaceByID(ctx, tx, workspace)
		if err != nil {
			return err
		}
		rec = workspaceOf(r)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return rec, key, nil
}

// Workspaces lists workspace current, registering it when missing, and
// the workspaces made by any of creators, current first then oldest first,
// each with its size.
// Errors: EINVALID (current is not a valid id).
func (s *Service) Workspaces(ctx context.Context, current string, creators ...string) ([]WorkspaceSummary, error) {
	if !papermem.ValidWorkspaceID(current) {
		return nil, errWorkspaceID("org_id")
	}
	err := s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return s.ensureWorkspace(ctx, tx, current)
	})
	if err != nil {
		return nil, err
	}
	rows, err := store.WorkspacesOf(ctx, s.db, current, creators)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return summaries(rows), nil
}

// Record returns the workspace's record. Errors: ENOTFOUND (never
// registered: nothing was ever written to it).
func (w *Workspace) Record(ctx context.Context) (*WorkspaceRecord, error) {
	r, err := store.WorkspaceByID(ctx, w.s.db, w.id)
	if err != nil {
		return nil, w.s.dbError(err, fmt.Sprintf("Workspace %q does not exist.", w.id))
	}
	return workspaceOf(r), nil
}

// Bounds of a workspace's session-token lifetime.
const (
	MinTokenTTL = time.Minute
	MaxTokenTTL = 30 * 24 * time.Hour
)

// SetTokenTTL sets the lifetime of the session tokens issued for the
// workspace from now on; tokens already issued keep theirs. Errors:
// EINVALID (outside MinTokenTTL..MaxTokenTTL), ENOTFOUND.
func (w *Workspace) SetTokenTTL(ctx context.Context, ttl time.Duration) error {
	if ttl < MinTokenTTL || ttl > MaxTokenTTL {
		return papermem.Errorf(papermem.EINVALID, "The token lifetime must be between %v and %v.", MinTokenTTL, MaxTokenTTL)
	}
	n, err := w.s.execWrite(ctx, func(ctx context.Context, tx *store.Tx) (int64, error) {
		return store.SetTokenTTL(ctx, tx, w.id, int64(ttl/time.Second))
	})
	if err != nil {
		return fmt.Errorf("set token ttl: %w", err)
	}
	if n == 0 {
		return papermem.Errorf(papermem.ENOTFOUND, "Workspace %q does not exist.", w.id)
	}
	return nil
}
