package papermem

import (
	"strings"

	"github.com/papermem/papermem/api"
)

// Plan is a subscription tier: its monthly price, its monthly quotas and the
// rate limit of each of its credentials.
type Plan = api.Plan

// Quotas are the monthly allowances of a plan, in units of the usage counters
// of the same name.
type Quotas = api.Quotas

// OverageRate prices the use of a counter beyond its quota: UnitCents for
// every started block of Per units.
type OverageRate = api.OverageRate

// overage returns the overage rates of a plan that charges cents per block
// of each quota'd counter: 10,000 API requests, 1,000,000 recall tokens,
// 100 papers stored, 1 GiB ingested.
func overage(cents int64) []OverageRate {
	return []OverageRate{
		{Counter: CounterAPIRequests, Per: 10_000, UnitCents: cents},
		{Counter: CounterRecallTokens, Per: 1_000_000, UnitCents: cents},
		{Counter: CounterPapersStored, Per: 100, UnitCents: cents},
		{Counter: CounterBytesIngested, Per: 1 << 30, UnitCents: cents},
	}
}

// Plan slugs.
const (
	PlanStarter    = "starter"
	PlanTeam       = "team"
	PlanEnterprise = "enterprise"
)

// Plans lists every plan, cheapest first.
var Plans = withPrices([]Plan{
	{Slug: PlanStarter, Name: "Starter Tier", PriceCents: 0, RequestsPerMinute: 600,
		Quotas:  Quotas{APIRequests: 50_000, RecallTokens: 20_000_000, PapersStored: 1_000, BytesIngested: 500 << 20},
		Overage: overage(100)},
	{Slug: PlanTeam, Name: "Team Tier", PriceCents: 4_900, RequestsPerMinute: 3_000,
		Quotas:  Quotas{APIRequests: 1_000_000, RecallTokens: 400_000_000, PapersStored: 50_000, BytesIngested: 20 << 30},
		Overage: overage(50)},
	{Slug: PlanEnterprise, Name: "Enterprise Tier", PriceCents: 49_900, RequestsPerMinute: 12_000,
		Quotas:  Quotas{APIRequests: 20_000_000, RecallTokens: 8_000_000_000, PapersStored: 1_000_000, BytesIngested: 500 << 30},
		Overage: overage(25)},
})

// withPrices fills each plan's Price, Currency and Free from PriceCents.
func withPrices(ps []Plan) []Plan {
	for i := range ps {
		p := &ps[i]
		p.Price, p.Currency, p.Free = formatCents(p.PriceCents), Currency, p.PriceCents == 0
	}
	return ps
}

// LookupPlan finds a plan by slug or display name, case-insensitively
// ("team", "Team Tier"). Errors: EUNKNOWNPLAN.
func LookupPlan(name string) (Plan, error) {
	n := strings.TrimSpace(name)
	for _, p := range Plans {
		if strings.EqualFold(n, p.Slug) || strings.EqualFold(n, p.Name) {
			return p, nil
		}
	}
	return Plan{}, Errorf(EUNKNOWNPLAN, "Unknown plan %q; known plans: Starter Tier, Team Tier, Enterprise Tier.", name)
}
