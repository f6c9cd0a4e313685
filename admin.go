package papermem

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/papermem/papermem/internal/store"
)

// The founder console: views and actions across every workspace. The
// caller decides who is a founder; these methods do not check.

// Overview is the platform at a glance.
type Overview struct {
	OrgCount         int            `json:"org_count"`
	UserCount        int            `json:"user_count"`
	WorkspacesByPlan map[string]int `json:"workspaces_by_plan"` // plan slug → workspaces, every plan present
	Usage            UsageSummary   `json:"usage"`              // every workspace, current month
	Health           *Health        `json:"health"`
}

// UsageSummary is usage summed over workspaces for one billing period.
type UsageSummary struct {
	PeriodStart string           `json:"period_start"`
	PeriodEnd   string           `json:"period_end"`
	Counters    map[string]int64 `json:"counters"`
}

// Overview counts workspaces and users, sums this month's usage and checks
// the health of every component.
func (m *Memory) Overview(ctx context.Context) (*Overview, error) {
	if err := m.flushUsage(ctx); err != nil {
		return nil, err
	}
	o := &Overview{WorkspacesByPlan: map[string]int{}}
	for _, p := range Plans {
		o.WorkspacesByPlan[p.Slug] = 0
	}
	var err error
	if o.UserCount, err = store.CountUsers(ctx, m.db); err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	byPlan, err := store.WorkspacesByPlan(ctx, m.db)
	if err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	for plan, n := range byPlan {
		o.WorkspacesByPlan[plan] += n
		o.OrgCount += n
	}
	p := m.currentPeriod()
	c, err := m.usageCounters(ctx, m.db, "", p)
	if err != nil {
		return nil, err
	}
	o.Usage = UsageSummary{PeriodStart: timestamp(p.Start), PeriodEnd: timestamp(p.End), Counters: c}
	o.Health = m.Health(ctx)
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
func (m *Memory) AllWorkspaces(ctx context.Context) ([]WorkspaceSummary, error) {
	rows, err := store.WorkspaceSizes(ctx, m.db)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	out := make([]WorkspaceSummary, 0, len(rows))
	for _, r := range rows {
		out = append(out, WorkspaceSummary{WorkspaceRecord: *workspaceOf(&r.Workspace), CreatedBy: r.CreatedBy,
			Users: r.Users, APIKeys: r.APIKeys, Papers: r.Papers, Documents: r.Documents, Memories: r.Memories})
	}
	return out, nil
}

// UserSummary is an account as the founder console lists it: never with
// its password hash.
type UserSummary struct {
	User
	Founder     bool   `json:"is_founder"`    // granted founder access (GrantFounder)
	LastLoginAt string `json:"last_login_at"` // "" before the first login
}

// AllUsers lists every account on the platform, oldest first.
func (m *Memory) AllUsers(ctx context.Context) ([]UserSummary, error) {
	rows, err := store.AllUsers(ctx, m.db)
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
	Plan     Plan           `json:"plan"`
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
	Bill      *Bill            `json:"bill"`  // current month so far
}

// Activity returns workspace org in detail: its plan, its size, this
// month's usage and bill, and its users with their activity. Errors:
// ENOTFOUND (no such workspace).
func (m *Memory) Activity(ctx context.Context, org string) (*WorkspaceActivity, error) {
	w := m.Workspace(org)
	rec, err := w.Record(ctx)
	if err != nil {
		return nil, err
	}
	a := &WorkspaceActivity{OrgID: org, Overview: ActivityCounts{Name: rec.Name, CreatedAt: rec.CreatedAt}}
	if a.Plan, err = w.plan(ctx, m.db); err != nil {
		return nil, err
	}
	if a.Overview.APIKeys, err = store.CountAPIKeys(ctx, m.db, org); err != nil {
		return nil, fmt.Errorf("activity: %w", err)
	}
	if a.Overview.Memory, err = w.memoryStats(ctx); err != nil {
		return nil, err
	}
	if a.Overview.Bill, err = w.Billing(ctx); err != nil {
		return nil, err
	}
	if a.Overview.Usage, err = m.usageCounters(ctx, m.db, org, m.currentPeriod()); err != nil {
		return nil, err
	}
	if a.Users, err = w.Users(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// SetPlan moves workspace org to the plan named tier without payment and
// returns its account. Errors: EUNKNOWNPLAN, ENOTFOUND (no such workspace).
func (m *Memory) SetPlan(ctx context.Context, org, tier string) (*Account, error) {
	p, err := LookupPlan(tier)
	if err != nil {
		return nil, err
	}
	w := m.Workspace(org)
	err = m.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := mustExist(ctx, tx, org); err != nil {
			return err
		}
		return w.setPlan(ctx, tx, p)
	})
	if err != nil {
		return nil, err
	}
	return w.Account(ctx)
}

// Component health statuses.
const (
	HealthOK       = "ok"       // a component answered correctly
	HealthError    = "error"    // a component failed its check
	HealthDegraded = "degraded" // overall: at least one component failed
)

// Health is the detailed health of papermem's components.
type Health struct {
	Status     string            `json:"status"` // ok, or degraded when any component is not ok
	Components []ComponentHealth `json:"components"`
}

// ComponentHealth is the result of one component's check.
type ComponentHealth struct {
	Name      string  `json:"name"`
	Status    string  `json:"status"`     // ok or error
	LatencyMS float64 `json:"latency_ms"` // how long the check took
	Detail    string  `json:"detail"`     // what was checked, or why it failed
}

// CheckComponent runs check and reports it as component name: ok with
// the detail it returns, or error with its error.
func CheckComponent(name string, check func() (string, error)) ComponentHealth {
	start := time.Now()
	detail, err := check()
	c := ComponentHealth{Name: name, Status: HealthOK, Detail: detail,
		LatencyMS: math.Round(float64(time.Since(start).Microseconds())) / 1000}
	if err != nil {
		c.Status, c.Detail = HealthError, err.Error()
	}
	return c
}

// Add appends a component's result and updates the overall status.
func (h *Health) Add(c ComponentHealth) {
	h.Components = append(h.Components, c)
	if c.Status != HealthOK {
		h.Status = HealthDegraded
	}
}

// healthTables are read by the storage check.
var healthTables = []string{"workspaces", "papers", "documents", "analyses", "memories", "nodes",
	"users", "api_keys", "revoked_sessions", "sessions", "accounts", "checkouts", "invoices", "usage_counters"}

// Health checks each component with a real operation: storage reads every
// table, the node index answers a BM25 query over the Memory's workspace
// (full_text_index; it loads that workspace if not loaded yet), sqlite-vec
// scores a probe vector (vector_index; on PostgreSQL the probe makes a round
// trip through the database and is scored in process), auth reads the credential tables,
// the usage meter flushes, and the embedder embeds a probe text.
func (m *Memory) Health(ctx context.Context) *Health {
	h := &Health{Status: HealthOK}
	h.Add(CheckComponent("storage", func() (string, error) {
		engine, err := store.CheckStorage(ctx, m.db, m.files.Engine, healthTables)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s, %d tables readable, %s, synchronous %s", m.StorageMode(), len(healthTables), engine, m.sync), nil
	}))
	h.Add(CheckComponent("full_text_index", func() (string, error) {
		p, err := m.part(ctx, m.org)
		if err != nil {
			return "", err
		}
		hits := p.Lexical(query{org: m.org, limit: 1}.indexQuery(), "papermem health check")
		return fmt.Sprintf("node index answered a BM25 query (%d hits) over the %d nodes of workspace %s",
			len(hits), p.Size(), m.org), nil
	}))
	var probe []float32
	h.Add(CheckComponent("embedder", func() (string, error) {
		vs, err := m.embed(ctx, []string{"papermem health check"})
		if err != nil {
			return "", err
		}
		probe = vs[0]
		return fmt.Sprintf("%s, %d dimensions", m.embedder.Name(), m.embedder.Dim()), nil
	}))
	h.Add(CheckComponent("vector_index", func() (string, error) {
		if probe == nil {
			probe = make([]float32, m.embedder.Dim())
			probe[0] = 1
		}
		if m.files.Engine == store.Postgres {
			// No sqlite-vec: the probe goes through the database as a
			// stored vector does and is scored in process, as recall
			// scores vectors.
			echo, n, err := store.EchoVector(ctx, m.db, probe)
			var cos float64
			for i, x := range echo {
				cos += float64(x * probe[i])
			}
			return fmt.Sprintf("PostgreSQL returned a probe vector, scored in process (cosine %.3f); %d vectors stored", cos, n), err
		}
		version, n, err := store.CheckVectors(ctx, m.db, probe)
		return fmt.Sprintf("sqlite-vec %s scored a probe; %d vectors stored", version, n), err
	}))
	h.Add(CheckComponent("auth", func() (string, error) {
		users, keys, err := store.CountCredentials(ctx, m.db)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d users, %d api keys", users, keys), nil
	}))
	h.Add(CheckComponent("usage_meter", func() (string, error) {
		return "pending counts flushed", m.flushUsage(ctx)
	}))
	return h
}
