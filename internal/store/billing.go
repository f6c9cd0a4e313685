package store

import (
	"context"
	"database/sql"
)

// Checkout is a row of checkouts to insert.
type Checkout struct {
	CheckoutID, Plan         string
	AmountCents              int64
	Currency                 string
	Provider, OrderID, KeyID string
	Status, CreatedAt        string
}

// InsertCheckout inserts org's checkout c.
func InsertCheckout(ctx context.Context, q Querier, org string, c *Checkout) error {
	_, err := q.ExecContext(ctx, `INSERT INTO checkouts (checkout_id, org_id, plan, amount_cents, currency,
			provider, order_id, key_id, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.CheckoutID, org, c.Plan, c.AmountCents, c.Currency, c.Provider, c.OrderID, c.KeyID, c.Status, c.CreatedAt)
	return err
}

// CheckoutOrder returns the plan id and the provider's order id of org's
// checkout id.
func CheckoutOrder(ctx context.Context, q Querier, org, id string) (plan, orderID string, err error) {
	err = queryRow(ctx, q, `SELECT plan, order_id FROM checkouts WHERE org_id = ? AND checkout_id = ?`,
		org, id).Scan(&plan, &orderID)
	return plan, orderID, err
}

// SettleCheckout sets org's checkout id from status from to status to,
// paid by paymentID at paidAt, and returns the number of checkouts changed
// (0 when it was not in status from).
func SettleCheckout(ctx context.Context, q Querier, org, id, from, to, paymentID, paidAt string) (int64, error) {
	res, err := q.ExecContext(ctx, `UPDATE checkouts SET status = ?, payment_id = ?, paid_at = ?
		WHERE org_id = ? AND checkout_id = ? AND status = ?`,
		to, paymentID, paidAt, org, id, from)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Invoice is a row of invoices.
type Invoice struct {
	InvoiceID, CheckoutID, Plan string
	AmountCents                 int64
	Currency, Status, PaymentID string
	PeriodStart, PeriodEnd      string
	CreatedAt                   string
}

// InsertInvoice writes invoice v of org's checkout v.CheckoutID, whose
// plan, amount and currency it copies.
func InsertInvoice(ctx context.Context, q Querier, org string, v *Invoice) error {
	_, err := q.ExecContext(ctx, `INSERT INTO invoices (invoice_id, org_id, checkout_id, plan, amount_cents,
		currency, status, payment_id, period_start, period_end, created_at)
		SELECT ?, org_id, checkout_id, plan, amount_cents, currency, ?, ?, ?, ?, ?
		FROM checkouts WHERE org_id = ? AND checkout_id = ?`,
		v.InvoiceID, v.Status, v.PaymentID, v.PeriodStart, v.PeriodEnd,
		v.CreatedAt, org, v.CheckoutID)
	return err
}

const invoiceColumns = `invoice_id, checkout_id, plan, amount_cents, currency, status, payment_id,
	period_start, period_end, created_at`

// scanInvoice scans one row of invoiceColumns.
func scanInvoice(sc scanner) (*Invoice, error) {
	var v Invoice
	if err := sc.Scan(&v.InvoiceID, &v.CheckoutID, &v.Plan, &v.AmountCents, &v.Currency, &v.Status, &v.PaymentID,
		&v.PeriodStart, &v.PeriodEnd, &v.CreatedAt); err != nil {
		return nil, err
	}
	return &v, nil
}

// InvoiceOf returns the invoice of org's checkout id.
func InvoiceOf(ctx context.Context, q Querier, org, id string) (*Invoice, error) {
	return scanInvoice(queryRow(ctx, q, `SELECT `+invoiceColumns+` FROM invoices
		WHERE org_id = ? AND checkout_id = ?`, org, id))
}

// Invoices lists org's invoices, newest first.
func Invoices(ctx context.Context, q Querier, org string) ([]Invoice, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+invoiceColumns+` FROM invoices
		WHERE org_id = ? ORDER BY created_at DESC, invoice_id`, org)
	return collect(rows, err, func(rows *sql.Rows, v *Invoice) error {
		r, err := scanInvoice(rows)
		if err == nil {
			*v = *r
		}
		return err
	})
}
