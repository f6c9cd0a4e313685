package api

import "time"

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

// UserSummary is an account as the founder console lists it: never with
// its password hash.
type UserSummary struct {
	User
	Founder     bool   `json:"is_founder"`    // granted founder access (GrantFounder)
	LastLoginAt string `json:"last_login_at"` // "" before the first login
}

// WorkspaceActivity is one workspace in detail for the founder console.
type WorkspaceActivity struct {
	WorkspaceID string         `json:"org_id"`
	Plan        Plan           `json:"plan"`
	Overview    ActivityCounts `json:"overview"`
	Users       []UserActivity `json:"users"`
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

// User is an account. It belongs to one workspace; its email is unique on
// the platform. The password hash never leaves the package.
type User struct {
	UserID      string `json:"user_id"`
	WorkspaceID string `json:"org_id"`
	Email       string `json:"email"`
	Name        string `json:"name"`
	Role        string `json:"role"`
	CreatedAt   string `json:"created_at"`
	// Disabled is true while a founder has disabled the account
	// (DisableUser): it cannot log in and its credentials are refused.
	Disabled bool `json:"disabled"`
	// IsFounder is true when the account was granted founder access with
	// GrantFounder. Founders listed in configuration are the caller's
	// business.
	IsFounder bool `json:"-"`
	// SessionVersion is carried by the account's session tokens (see
	// Session); LogoutAll, ChangePassword and DisableUser move it, ending
	// every token issued before.
	SessionVersion int64 `json:"-"`
}

// NewUser is an account to create. Role "" means RoleMember.
type NewUser struct {
	Email    string
	Password string // MinPasswordBytes to MaxPasswordBytes bytes
	Name     string
	Role     string
}

// SignupInput creates a workspace and its first user (its owner).
type SignupInput struct {
	NewUser
	WorkspaceID   string // "" means a fresh id; an existing id is refused
	WorkspaceName string
}

// UserActivity is a user with what they did in the workspace.
type UserActivity struct {
	User
	Sessions  int      `json:"sessions"`   // research sessions recorded for the user
	Domains   []string `json:"domains"`    // distinct domains of the user's memories and sessions, sorted
	FirstSeen string   `json:"first_seen"` // account creation or first activity, whichever is earlier
	LastSeen  string   `json:"last_seen"`  // latest login or activity
}

// NewAPIKey is a key just created: its record and, this once, its value.
type NewAPIKey struct {
	APIKey
	Key string `json:"key"`
}

// ProviderOrder is a provider's reference to an order, handed to the
// client that pays it.
type ProviderOrder struct {
	Name    string `json:"name"`     // the provider
	OrderID string `json:"order_id"` // the provider's order id
	KeyID   string `json:"key_id"`   // the public key the client pays with
}

// CheckoutResult answers Checkout. A free plan is active at once (Free,
// Plan, Account); a paid plan gets a pending order to pay (the other
// fields).
type CheckoutResult struct {
	Free        bool           `json:"free"`
	Plan        Plan           `json:"plan"`
	Account     *Account       `json:"account,omitempty"`
	AmountCents int64          `json:"amount_cents,omitempty"`
	Amount      string         `json:"amount,omitempty"`
	Currency    string         `json:"currency,omitempty"`
	CheckoutID  string         `json:"checkout_id,omitempty"`
	Status      string         `json:"status,omitempty"`
	Provider    *ProviderOrder `json:"provider,omitempty"`
}

// Confirmation answers ConfirmCheckout.
type Confirmation struct {
	Paid       bool     `json:"paid"`
	Status     string   `json:"status"` // paid or failed
	CheckoutID string   `json:"checkout_id"`
	Invoice    *Invoice `json:"invoice,omitempty"` // the checkout's invoice when paid
	Account    *Account `json:"account"`
}

// Usage is a workspace's metered usage over one billing period.
type Usage struct {
	WorkspaceID string           `json:"org_id"`
	PeriodStart string           `json:"period_start"`
	PeriodEnd   string           `json:"period_end"`
	Counters    map[string]int64 `json:"counters"` // every name in Counters, zero included
}

// MemoryStats is the size of a workspace's memory.
type MemoryStats struct {
	Nodes     int64 `json:"nodes"`     // recallable units, per-user memories included
	Papers    int64 `json:"papers"`    //
	Documents int64 `json:"documents"` //
	Analyses  int64 `json:"analyses"`  //
	Memories  int64 `json:"memories"`  // per-user memories
	Bytes     int64 `json:"bytes"`     // stored source text: papers, documents, analyses, memories
}

// Analytics describes a workspace's memory and how it is used.
type Analytics struct {
	WorkspaceID string        `json:"org_id"`
	Memory      MemoryStats   `json:"memory"`
	Cache       CacheStats    `json:"cache"`
	TopDomains  []DomainCount `json:"top_domains"` // at most 10, largest first
}

// CacheStats measures how often paper fetches were answered from memory,
// over the workspace's whole history.
type CacheStats struct {
	Fetches    int64   `json:"fetches"`
	WarmHits   int64   `json:"warm_hits"`
	HitRate    float64 `json:"hit_rate"`    // WarmHits / Fetches, 0 without fetches, 4 decimals
	BytesSaved int64   `json:"bytes_saved"` // bytes not downloaded thanks to warm hits
}

// DomainCount is how many papers and documents carry a domain.
type DomainCount struct {
	Domain string `json:"domain"`
	Count  int64  `json:"count"`
}

// WorkspaceRecord describes a workspace.
type WorkspaceRecord struct {
	WorkspaceID     string `json:"org_id"`
	Name            string `json:"name"`
	Plan            string `json:"plan"`              // the plan's display name, e.g. "Starter Tier"
	TokenTTLSeconds int    `json:"token_ttl_seconds"` // lifetime of session tokens issued for it
	CreatedAt       string `json:"created_at"`
}

// TokenTTL is the lifetime of session tokens of the workspace.
func (r *WorkspaceRecord) TokenTTL() time.Duration {
	if r.TokenTTLSeconds <= 0 {
		return DefaultTokenTTL
	}
	return time.Duration(r.TokenTTLSeconds) * time.Second
}
