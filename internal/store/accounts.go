package store

import "context"

// Account is the editable part of a workspace's account with its plan id.
// Profile, Notifications and BillingContact are JSON objects ("{}" when
// never saved); PaymentMethod is a JSON object or "" for none.
type Account struct {
	Plan, Profile, Notifications, BillingContact, PaymentMethod string
}

// AccountOf returns org's account (ErrNotFound for a workspace never
// registered).
func AccountOf(ctx context.Context, q Querier, org string) (*Account, error) {
	var a Account
	err := queryRow(ctx, q, `SELECT ws.plan, coalesce(a.profile, '{}'), coalesce(a.notifications, '{}'),
		coalesce(a.billing_contact, '{}'), coalesce(a.payment_method, '')
		FROM workspaces ws LEFT JOIN accounts a ON a.org_id = ws.org_id
		WHERE ws.org_id = ?`, org).Scan(&a.Plan, &a.Profile, &a.Notifications, &a.BillingContact, &a.PaymentMethod)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// SaveAccount writes the editable part of org's account, a (its Plan is
// not written).
func SaveAccount(ctx context.Context, q Querier, org string, a *Account, now string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO accounts (org_id, profile, notifications, billing_contact, payment_method, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (org_id) DO UPDATE SET profile = excluded.profile, notifications = excluded.notifications,
			billing_contact = excluded.billing_contact, payment_method = excluded.payment_method,
			updated_at = excluded.updated_at`,
		org, a.Profile, a.Notifications, a.BillingContact, a.PaymentMethod, now)
	return err
}

// SetPlan moves workspace org to the plan with the id.
func SetPlan(ctx context.Context, q Querier, org, plan string) error {
	_, err := q.ExecContext(ctx, `UPDATE workspaces SET plan = ? WHERE org_id = ?`, plan, org)
	return err
}

// PlanOf returns the plan id of workspace org.
func PlanOf(ctx context.Context, q Querier, org string) (string, error) {
	var plan string
	err := queryRow(ctx, q, `SELECT plan FROM workspaces WHERE org_id = ?`, org).Scan(&plan)
	return plan, err
}
