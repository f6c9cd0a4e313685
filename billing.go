package papermem

import (
	"context"
	"fmt"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
)

// The bill and the invoices of the account view (account.go). Checkouts,
// payment providers and the writing of invoices are the hosted service's
// (package hosted).

// Currency is the currency of every price and amount: US dollars, counted
// in integer cents.
const Currency = "USD"

// formatCents renders an amount of cents as a decimal string with two
// places ("49.00"), with integer arithmetic only.
func formatCents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// InvoicePaid is the status of an invoice settled at checkout.
const InvoicePaid = "paid"

// Invoice is the record of a paid checkout: one month of a plan.
type Invoice = api.Invoice

// invoiceOfRow converts an invoices row, formatting its amount.
func invoiceOfRow(r *store.Invoice) *Invoice {
	return &Invoice{InvoiceID: r.InvoiceID, CheckoutID: r.CheckoutID, Plan: r.Plan, AmountCents: r.AmountCents,
		Amount: formatCents(r.AmountCents), Currency: r.Currency, Status: r.Status, PaymentID: r.PaymentID,
		PeriodStart: r.PeriodStart, PeriodEnd: r.PeriodEnd, CreatedAt: r.CreatedAt}
}

// Invoices returns the workspace's invoices, newest first.
func (w *Workspace) Invoices(ctx context.Context) (_ []Invoice, err error) {
	defer translate(&err)
	rows, err := store.Invoices(ctx, w.m.db, w.id)
	if err != nil {
		return nil, fmt.Errorf("list invoices: %w", err)
	}
	out := make([]Invoice, 0, len(rows))
	for i := range rows {
		out = append(out, *invoiceOfRow(&rows[i]))
	}
	return out, nil
}

// LineItem is one charge of a bill: Quantity units at UnitCents each.
type LineItem = api.LineItem

// Bill is what a workspace owes for one billing period so far: its plan's
// monthly fee and the overage beyond the plan's quotas.
type Bill = api.Bill

// Billing returns the workspace's bill for the current calendar month:
// the plan fee plus overage, from the usage metered so far (usage.go),
// exact: what the meter counted and had not written is written first. An
// embedded Memory meters nothing, so its bill is the plan fee alone.
// Errors: those of a write (the meter's), and none beyond I/O.
func (w *Workspace) Billing(ctx context.Context) (_ *Bill, err error) {
	defer translate(&err)
	if err := w.m.shared.Meter.Flush(ctx); err != nil {
		return nil, err
	}
	start, end := store.MonthSpan(w.m.now())
	counters, err := store.ReadCounters(ctx, w.m.db, w.id, start, Counters)
	if err != nil {
		return nil, err
	}
	p, err := w.plan(ctx, w.m.db)
	if err != nil {
		return nil, err
	}
	b := &Bill{WorkspaceID: w.id, Plan: p.Slug, PeriodStart: timestamp(start), PeriodEnd: timestamp(end),
		Currency: Currency, LineItems: billItems(p, counters)}
	for _, li := range b.LineItems {
		b.TotalCents += li.AmountCents
	}
	b.Total = formatCents(b.TotalCents)
	return b, nil
}

// billItems prices usage under plan p: the monthly fee, then one item for
// each counter over its quota, billed per started block of the rate.
func billItems(p Plan, counters map[string]int64) []LineItem {
	items := []LineItem{{Item: p.Name + " monthly fee", Quantity: 1, UnitCents: p.PriceCents, AmountCents: p.PriceCents}}
	for _, r := range p.Overage {
		over := counters[r.Counter] - p.Quotas.Of(r.Counter)
		if over <= 0 {
			continue
		}
		blocks := (over + r.Per - 1) / r.Per
		items = append(items, LineItem{Item: fmt.Sprintf("%s overage (per %d)", r.Counter, r.Per),
			Quantity: blocks, UnitCents: r.UnitCents, AmountCents: blocks * r.UnitCents})
	}
	return items
}
