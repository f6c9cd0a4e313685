package api

// Plan is a subscription tier: its monthly price, its monthly quotas and
// the rate limit of each of its credentials.
type Plan struct {
	Slug              string        `json:"slug"`                // stored in workspaces.plan: starter, team, enterprise
	Name              string        `json:"name"`                // display name, e.g. "Starter Tier"
	PriceCents        int64         `json:"price_cents"`         // monthly fee in US cents; 0 for a free plan
	RequestsPerMinute int           `json:"requests_per_minute"` // token-bucket rate of each credential
	Quotas            Quotas        `json:"quotas"`
	Overage           []OverageRate `json:"overage"`  // price of use beyond Quotas
	Price             string        `json:"price"`    // PriceCents as a decimal string, "49.00"
	Currency          string        `json:"currency"` // always Currency
	Free              bool          `json:"free"`     // PriceCents is 0
}

// Quotas are the monthly allowances of a plan, in units of the usage
// counters of the same name. Use beyond them is billed as overage.
type Quotas struct {
	APIRequests   int64 `json:"api_requests"`
	RecallTokens  int64 `json:"recall_tokens"`
	PapersStored  int64 `json:"papers_stored"`
	BytesIngested int64 `json:"bytes_ingested"`
}

// Of returns the quota of the usage counter with the name, and 0 for a
// counter without a quota.
func (q Quotas) Of(counter string) int64 {
	switch counter {
	case CounterAPIRequests:
		return q.APIRequests
	case CounterRecallTokens:
		return q.RecallTokens
	case CounterPapersStored:
		return q.PapersStored
	case CounterBytesIngested:
		return q.BytesIngested
	}
	return 0
}

// OverageRate prices the use of a counter beyond its quota: UnitCents for
// every started block of Per units.
type OverageRate struct {
	Counter   string `json:"counter"`
	Per       int64  `json:"per"`
	UnitCents int64  `json:"unit_cents"`
}
