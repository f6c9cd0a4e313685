package papermem

import "strings"

// Plan is a subscription tier: its monthly price, its monthly quotas and
// the rate limit of each of its credentials.
type Plan struct {
	Slug              string `json:"slug"`                // stored in workspaces.plan: starter, team, enterprise
	Name              string `json:"name"`                // display name, e.g. "Starter Tier"
	PriceCents        int64  `json:"price_cents"`         // monthly fee in US cents; 0 for a free plan
	RequestsPerMinute int    `json:"requests_per_minute"` // token-bucket rate of each credential
	Quotas            Quotas `json:"quotas"`
}

// Quotas are the monthly allowances of a plan, in units of the usage
// counters of the same name. Use beyond them is billed as overage.
type Quotas struct {
	APIRequests   int64 `json:"api_requests"`
	RecallTokens  int64 `json:"recall_tokens"`
	PapersStored  int64 `json:"papers_stored"`
	BytesIngested int64 `json:"bytes_ingested"`
}

// Plan slugs.
const (
	PlanStarter    = "starter"
	PlanTeam       = "team"
	PlanEnterprise = "enterprise"
)

// Plans lists every plan, cheapest first.
var Plans = []Plan{
	{Slug: PlanStarter, Name: "Starter Tier", PriceCents: 0, RequestsPerMinute: 600,
		Quotas: Quotas{APIRequests: 50_000, RecallTokens: 20_000_000, PapersStored: 1_000, BytesIngested: 500 << 20}},
	{Slug: PlanTeam, Name: "Team Tier", PriceCents: 4_900, RequestsPerMinute: 3_000,
		Quotas: Quotas{APIRequests: 1_000_000, RecallTokens: 400_000_000, PapersStored: 50_000, BytesIngested: 20 << 30}},
	{Slug: PlanEnterprise, Name: "Enterprise Tier", PriceCents: 49_900, RequestsPerMinute: 12_000,
		Quotas: Quotas{APIRequests: 20_000_000, RecallTokens: 8_000_000_000, PapersStored: 1_000_000, BytesIngested: 500 << 30}},
}

// LookupPlan finds a plan by slug or display name, case-insensitively
// ("team", "Team Tier"). Errors: EINVALID for an unknown plan.
func LookupPlan(name string) (Plan, error) {
	n := strings.TrimSpace(name)
	for _, p := range Plans {
		if strings.EqualFold(n, p.Slug) || strings.EqualFold(n, p.Name) {
			return p, nil
		}
	}
	return Plan{}, Errorf(EINVALID, "Unknown plan %q; known plans: Starter Tier, Team Tier, Enterprise Tier.", name)
}
