package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
)

// The founder console. Every route here has founder access: a credential
// of an account granted founder access (hosted.Service.GrantFounder or
// Config.FounderEmails); anyone else gets 403.

// health checks the library's components, the hosted service's and the
// rate limiter.
func (s *server) health(ctx context.Context) *papermem.Health {
	h := s.svc.Health(ctx)
	h.Add(s.rateLimiterHealth(ctx))
	return h
}

// rateLimiterHealth checks the token buckets in use on a throwaway key: a
// fresh bucket of one request grants one and refuses the next. Shared
// buckets are checked in the database, where the probe's bucket stays
// until pruned.
func (s *server) rateLimiterHealth(ctx context.Context) papermem.ComponentHealth {
	return papermem.CheckComponent("rate_limiter", func() (string, error) {
		var probe buckets = newLocalBuckets()
		if s.local == nil {
			probe = sharedBuckets{s.svc}
		}
		key := "probe:" + randomID()
		for i, wantWait := range []bool{false, true} {
			_, wait, err := probe.take(ctx, "", key, 1)
			if err != nil {
				return "", err
			}
			if (wait > 0) != wantWait {
				return "", fmt.Errorf("a bucket of one request answered request %d with wait %v", i+1, wait)
			}
		}
		if s.local == nil {
			return "token buckets shared in the database enforce limits across servers", nil
		}
		return fmt.Sprintf("token buckets in this process enforce limits; %d credential buckets in use", s.local.len()), nil
	})
}

var adminOverviewOp = op{tag: "admin", summary: "Platform overview", resp: hosted.Overview{},
	notes: "org_count, user_count, workspaces_by_plan, usage (this month, summed over every workspace) and health (as /v1/admin/health)."}

func (s *server) handleAdminOverview(w http.ResponseWriter, r *http.Request) error {
	o, err := s.svc.Overview(r.Context())
	if err != nil {
		return err
	}
	o.Health.Add(s.rateLimiterHealth(r.Context()))
	return writeJSON(w, http.StatusOK, o)
}

var adminWorkspacesOp = op{tag: "admin", summary: "Every workspace on the platform", resp: api.AdminWorkspacesResponse{},
	notes: "Oldest first, each with its plan and its numbers of users, API keys, papers, documents and memories."}

func (s *server) handleAdminWorkspaces(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.svc.AllWorkspaces(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.AdminWorkspacesResponse{Workspaces: ws})
}

var adminUsersOp = op{tag: "admin", summary: "Every account on the platform", resp: api.AdminUsersResponse{},
	notes: "Oldest first; is_founder covers both granted founders and PAPERMEM_FOUNDER_EMAILS. Never a password hash."}

func (s *server) handleAdminUsers(w http.ResponseWriter, r *http.Request) error {
	us, err := s.svc.AllUsers(r.Context())
	if err != nil {
		return err
	}
	for i := range us {
		us[i].Founder = us[i].Founder || s.founders[us[i].Email]
	}
	return writeJSON(w, http.StatusOK, api.AdminUsersResponse{Users: us})
}

var adminHealthOp = op{tag: "admin", summary: "Detailed component health", resp: papermem.Health{},
	notes: "Each component is checked with a real operation: storage (every table read; the journal mode, or on PostgreSQL the server version and synchronous_commit), full_text_index (the in-process node index answers a BM25 query over the default workspace), embedder (a probe text embedded), vector_index (sqlite-vec scores a probe vector; on PostgreSQL the probe round-trips through the database and is scored in process), auth (the credential tables read), usage_meter (pending counts flushed), rate_limiter (a probe bucket of the kind in use, in this process or shared in the database, grants then refuses). status is degraded when any component is not ok; always 200."}

func (s *server) handleAdminHealth(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, s.health(r.Context()))
}

var adminActivityOp = op{tag: "admin", summary: "One workspace in detail", resp: hosted.WorkspaceActivity{},
	errs:  []int{http.StatusNotFound},
	notes: "{org_id, plan, overview:{name, created_at, api_keys, memory, usage (this month), bill (this month so far)}, users (with activity)}. Unknown workspace: 404."}

func (s *server) handleAdminActivity(w http.ResponseWriter, r *http.Request) error {
	org, err := pathValue(r, "org_id")
	if err != nil {
		return err
	}
	a, err := s.svc.Activity(r.Context(), org)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}

var adminSetPlanOp = op{tag: "admin", summary: "Set a workspace's plan without payment", req: api.SetPlanRequest{},
	resp: papermem.Account{}, errs: []int{http.StatusNotFound},
	notes: "No checkout and no invoice. Answers the workspace's updated account view. Unknown workspace: 404."}

func (s *server) handleAdminSetPlan(w http.ResponseWriter, r *http.Request) error {
	org, err := pathValue(r, "org_id")
	if err != nil {
		return err
	}
	var req api.SetPlanRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Tier) == "" {
		return papermem.Errorf(papermem.EINVALID, "tier is required.")
	}
	a, err := s.svc.SetPlan(r.Context(), org, req.Tier)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}

var adminCreateUserOp = op{tag: "admin", summary: "Create a user in a workspace", req: api.CreateUserRequest{},
	resp: hosted.User{}, status: http.StatusCreated, errs: []int{http.StatusNotFound},
	notes: "The user joins the workspace as a member and can log in at once. Unknown workspace: 404."}

func (s *server) handleAdminCreateUser(w http.ResponseWriter, r *http.Request) error {
	org, err := pathValue(r, "org_id")
	if err != nil {
		return err
	}
	var req api.CreateUserRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	u, err := s.svc.CreateUser(r.Context(), org, hosted.NewUser{Email: req.Email, Password: req.Password, Name: req.Name})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, u)
}

var (
	adminDisableUserOp = op{tag: "admin", summary: "Disable a user", resp: hosted.User{}, errs: []int{http.StatusNotFound},
		notes: "At once, on every server sharing the database: the user cannot log in (401), every session token of the user is refused (401) and so is every API key the user created, whatever its workspace; an API key naming the user in X-User-Id is 403. Sessions end for good: enabling the user again does not revive them. Disabling a disabled user changes nothing. Answers the user, disabled true. Unknown workspace or user, or a user of another workspace: 404."}
	adminEnableUserOp = op{tag: "admin", summary: "Enable a disabled user", resp: hosted.User{}, errs: []int{http.StatusNotFound},
		notes: "The user can log in again, and the API keys the user created and nobody revoked work again; session tokens from before the disabling stay refused. Enabling an enabled user changes nothing. Answers the user, disabled false. Unknown workspace or user: 404."}
)

func (s *server) handleAdminDisableUser(w http.ResponseWriter, r *http.Request) error {
	return s.setUserDisabled(w, r, s.svc.DisableUser)
}

func (s *server) handleAdminEnableUser(w http.ResponseWriter, r *http.Request) error {
	return s.setUserDisabled(w, r, s.svc.EnableUser)
}

// setUserDisabled applies DisableUser or EnableUser to the path's user.
func (s *server) setUserDisabled(w http.ResponseWriter, r *http.Request,
	set func(ctx context.Context, org, userID string) (*hosted.User, error)) error {
	org, err := pathValue(r, "org_id")
	if err != nil {
		return err
	}
	userID, err := pathValue(r, "user_id")
	if err != nil {
		return err
	}
	u, err := set(r.Context(), org, userID)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, u)
}

var adminBackupOp = op{tag: "admin", summary: "Back the database up while it serves", resp: papermem.BackupFile{},
	errs:  []int{http.StatusInsufficientStorage},
	notes: "Writes an online, consistent copy of the whole database (every workspace) to a new file on the server, in PAPERMEM_BACKUP_DIR (default: backups/ beside the database), named for the time, and answers its path and size. SQLite's VACUUM INTO reads one snapshot, so writes go on meanwhile and none is half in the copy. The copy is not sent over HTTP: it holds password and API key hashes and the session-signing secret, which no response carries. Restore by starting the server on the file (-db). 507 insufficient_storage when the disk has no room. `server backup DEST` makes the same copy from the command line. On PostgreSQL there is no file to copy: 415 unsupported_format, and pg_dump (or the server's continuous archiving) backs the database up."}

func (s *server) handleAdminBackup(w http.ResponseWriter, r *http.Request) error {
	b, err := s.m.BackupInDir(r.Context(), s.cfg.BackupDir)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, b)
}
