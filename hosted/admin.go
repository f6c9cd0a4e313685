package hosted

import (
	"context"
	"fmt"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/hostlink"
	"github.com/papermem/papermem/internal/store"
)

// The founder console: views and actions across every workspace. The
// caller decides who is a founder; these methods do not check.

// Overview is the platform at a glance.
type Overview struct {
	OrgCount         int              `json:"org_count"`
	UserCount        int              `json:"user_count"`
	WorkspacesByPlan map[string]int   `json:"workspaces_by_plan"` // plan slug → workspaces, every plan present
	Usage            UsageSummary     `json:"usage"`              // every workspace, current month
	Health           *papermem.Health `json:"health"`
}

// UsageSummary is usage summed over workspaces for one billing period.
type UsageSummary struct {
	PeriodStart string           `json:"period_start"`
	PeriodEnd   string           `json:"period_end"`
	Counters    map[string]int64 `json:"counters"`
}

// Overview counts workspaces and users, sums this month's usage and checks
// the health of every component.
func (s *Service) Overview(ctx context.Context) (*Overview, error) {
	if err := s.usage.Flush(ctx); err != nil {
		return nil, err
	}
	o := &Overview{WorkspacesByPlan: map[string]int{}}
	for _, p := range papermem.Plans {
		o.WorkspacesByPlan[p.Slug] = 0
	}
	var err error
	if o.UserCount, err = store.CountUsers(ctx, s.db); err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	byPlan, err := store.WorkspacesByPlan(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	for plan, n := range byPlan {
		o.WorkspacesByPlan[plan] += n
		o.OrgCount += n
	}
	now := s.now()
	c, err := hostlink.ReadCounters(ctx, s.db, "", now, papermem.Counters)
	if err != nil {
		return nil, err
	}
	start, end := hostlink.MonthSpan(now)
	o.Usage = UsageSummary{PeriodStart: s.timestamp(start), PeriodEnd: s.timestamp(end), Counters: c}
	o.Health = s.Health(ctx)
	return o, nil
}

// WorkspaceSummary is a workspace as the founder console lists it.
type WorkspaceSummary struct {
	WorkspaceRecord
	CreatedBy string `json:"created_by"` // "user:<id>", "org:<id>" or ""
	Users     int    `json:"users"`
	APIKeys   int    `json:"api_keys"`
	Papers    int    `json:"papers"`
	Documents int    `json:"documents"`
	Memories  int    `json:"memories"`
}

// AllWorkspaces lists every workspace, oldest first, with its size.
func (s *Service) AllWorkspaces(ctx context.Context) ([]WorkspaceSummary, error) {
	rows, err := store.WorkspaceSizes(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return summaries(rows), nil
}

// summaries converts workspaces rows with their sizes.
func summaries(rows []store.WorkspaceSize) []WorkspaceSummary {
	out := make([]WorkspaceSummary, 0, len(rows))
	for _, r := range rows {
		out = append(out, WorkspaceSummary{WorkspaceRecord: *workspaceOf(&r.Workspace), CreatedBy: r.CreatedBy,
			Users: r.Users, APIKeys: r.APIKeys, Papers: r.Papers, Documents: r.Documents, Memories: r.Memories})
	}
	return out
}

// UserSummary is an account as the founder console lists it: never with
// its password hash.
type UserSummary struct {
	User
	Founder     bool   `json:"is_founder"`    // granted founder access (GrantFounder)
	LastLoginAt string `json:"last_login_at"` // "" before the first login
}

// AllUsers lists every account on the platform, oldest first.
func (s *Service) AllUsers(ctx context.Context) ([]UserSummary, error) {
	rows, err := store.AllUsers(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	out := make([]UserSummary, 0, len(rows))
	for _, r := range rows {
		out = append(out, UserSummary{User: *userOf(&r.User), Founder: r.IsFounder, LastLoginAt: r.LastLoginAt})
	}
	return out, nil
}

// WorkspaceActivity is one workspace in detail for the founder console.
type WorkspaceActivity struct {
	OrgID    string         `json:"org_id"`
	Plan     papermem.Plan  `json:"plan"`
	Overview ActivityCounts `json:"overview"`
	Users    []UserActivity `json:"users"`
}

// ActivityCounts sums up what a workspace holds and did.
type ActivityCounts struct {
	Name      string           `json:"name"`
	CreatedAt string           `json:"created_at"`
	APIKeys   int              `json:"api_keys"`
	Memory    MemoryStats      `json:"memory"`
	Usage     map[string]int64 `json:"usage"` // current month
	Bill      *papermem.Bill   `json:"bill"`  // current month so far
}

// Activity returns workspace in detail: its plan, its size, this
// month's usage and bill, and its users with their activity. Errors:
// ENOTFOUND (no such workspace).
func (s *Service) Activity(ctx context.Context, workspace string) (*WorkspaceActivity, error) {
	w := s.Workspace(workspace)
	rec, err := w.Record(ctx)
	if err != nil {
		return nil, err
	}
	a := &WorkspaceActivity{OrgID: workspace, Overview: ActivityCounts{Name: rec.Name, CreatedAt: rec.CreatedAt}}
	if a.Plan, err = w.memory().Plan(ctx); err != nil {
		return nil, err
	}
	if a.Overview.APIKeys, err = store.CountAPIKeys(ctx, s.db, workspace); err != nil {
		return nil, fmt.Errorf("activity: %w", err)
	}
	if a.Overview.Memory, err = w.memoryStats(ctx); err != nil {
		return nil, err
	}
	if a.Overview.Bill, err = w.memory().Billing(ctx); err != nil {
		return nil, err
	}
	if a.Overview.Usage, err = hostlink.ReadCounters(ctx, s.db, workspace, s.now(), papermem.Counters); err != nil {
		return nil, err
	}
	if a.Users, err = w.Users(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// SetPlan moves workspace to the plan named tier without payment and
// returns its account. Errors: EUNKNOWNPLAN, ENOTFOUND (no such workspace).
func (s *Service) SetPlan(ctx context.Context, workspace, tier string) (*papermem.Account, error) {
	p, err := papermem.LookupPlan(tier)
	if err != nil {
		return nil, err
	}
	err = s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := mustExist(ctx, tx, workspace); err != nil {
			return err
		}
		return s.setPlan(ctx, tx, workspace, p)
	})
	if err != nil {
		return nil, err
	}
	return s.m.Workspace(workspace).Account(ctx)
}

// Health checks the memory's components (papermem.Memory.Health), then
// the service's: auth reads the credential tables and the usage meter
// flushes.
func (s *Service) Health(ctx context.Context) *papermem.Health {
	h := s.m.Health(ctx)
	h.Add(papermem.CheckComponent("auth", func() (string, error) {
		users, keys, err := store.CountCredentials(ctx, s.db)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d users, %d api keys", users, keys), nil
	}))
	h.Add(papermem.CheckComponent("usage_meter", func() (string, error) {
		return "pending counts flushed", s.usage.Flush(ctx)
	}))
	return h
}
