package api

// Invoice is the record of a paid checkout: one month of a plan.
type Invoice struct {
	InvoiceID   string `json:"invoice_id"`
	CheckoutID  string `json:"checkout_id"`
	Plan        string `json:"plan"` // plan slug
	AmountCents int64  `json:"amount_cents"`
	Amount      string `json:"amount"`
	Currency    string `json:"currency"`
	Status      string `json:"status"`
	PaymentID   string `json:"payment_id"`
	PeriodStart string `json:"period_start"`
	PeriodEnd   string `json:"period_end"`
	CreatedAt   string `json:"created_at"`
}

// LineItem is one charge of a bill: Quantity units at UnitCents each.
type LineItem struct {
	Item        string `json:"item"`
	Quantity    int64  `json:"quantity"`
	UnitCents   int64  `json:"unit_cents"`
	AmountCents int64  `json:"amount_cents"`
}

// Bill is what a workspace owes for one billing period so far: its plan's
// monthly fee and the overage beyond the plan's quotas.
type Bill struct {
	WorkspaceID string     `json:"org_id"`
	Plan        string     `json:"plan"` // plan slug
	PeriodStart string     `json:"period_start"`
	PeriodEnd   string     `json:"period_end"`
	Currency    string     `json:"currency"`
	TotalCents  int64      `json:"total_cents"`
	Total       string     `json:"total"` // TotalCents as a decimal string
	LineItems   []LineItem `json:"line_items"`
}
