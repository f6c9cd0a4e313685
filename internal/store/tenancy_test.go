package store

import (
	"context"
	"errors"
	"testing"
)

// TestWrongWorkspace calls each function that takes a workspace and a row
// id with another workspace's id: every one must find nothing and change
// nothing. Ids are unique across workspaces, so only these calls (an id
// leaked to another tenant, or a bug upstream) tell a query that checks
// the workspace from one that trusts the id.
func TestWrongWorkspace(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	q := db.Write
	const now, later, last = "2026-03-14T12:00:00.000Z", "2026-03-15T12:00:00.000Z", "2026-03-16T12:00:00.000Z"
	for _, org := range []string{"lab-a", "lab-b"} {
		if err := InsertWorkspace(ctx, q, org, org, "starter", "", now); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range []User{
		{UserID: "usr_a1", OrgID: "lab-a", Email: "a1@example.org", Role: "owner", CreatedAt: now},
		{UserID: "usr_a2", OrgID: "lab-a", Email: "a2@example.org", Role: "member", CreatedAt: now},
		{UserID: "usr_b1", OrgID: "lab-b", Email: "b1@example.org", Role: "owner", CreatedAt: now},
	} {
		if err := InsertUser(ctx, q, &u, []byte("hash-"+u.UserID)); err != nil {
			t.Fatal(err)
		}
	}
	if err := InsertAPIKey(ctx, q, &APIKey{KeyID: "key_a", OrgID: "lab-a", Prefix: "pm_aaaa", Hash: []byte{1}, CreatedAt: now}, ""); err != nil {
		t.Fatal(err)
	}
	if err := InsertCheckout(ctx, q, "lab-a", &Checkout{CheckoutID: "chk_a", Plan: "team", Currency: "EUR", Status: "pending", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	// Revocations: a1's session j1, and one recorded under lab-b for a1's j2.
	if err := RevokeSession(ctx, q, "lab-a", "usr_a1", "j1", later, now); err != nil {
		t.Fatal(err)
	}
	if err := RevokeSession(ctx, q, "lab-b", "usr_a1", "j2", last, now); err != nil {
		t.Fatal(err)
	}

	// lab-b, with lab-a's ids.
	if err := TouchAPIKey(ctx, q, "lab-b", "key_a", later); err != nil {
		t.Fatal(err)
	}
	if n, err := DeleteAPIKey(ctx, q, "lab-b", "key_a"); n != 0 || err != nil {
		t.Errorf("DeleteAPIKey(lab-b, lab-a's key) = %d, %v", n, err)
	}
	if n, err := EndSessions(ctx, q, "lab-b", "usr_a1"); n != 0 || err != nil {
		t.Errorf("EndSessions(lab-b, lab-a's user) = %d, %v", n, err)
	}
	if _, err := PasswordHash(ctx, q, "lab-b", "usr_a1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("PasswordHash(lab-b, lab-a's user): err = %v", err)
	}
	if _, err := SetPassword(ctx, q, "lab-b", "usr_a1", "hash-usr_a1", []byte("new")); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetPassword(lab-b, lab-a's user): err = %v", err)
	}
	if _, err := DisableUser(ctx, q, "lab-b", "usr_a1", now); !errors.Is(err, ErrNotFound) {
		t.Errorf("DisableUser(lab-b, lab-a's user): err = %v", err)
	}
	if _, err := EnableUser(ctx, q, "lab-b", "usr_a1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("EnableUser(lab-b, lab-a's user): err = %v", err)
	}
	if _, err := OrgUser(ctx, q, "lab-b", "usr_a1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("OrgUser(lab-b, lab-a's user): err = %v", err)
	}
	// lab-a's member, with the owner's password.
	if _, err := SetPassword(ctx, q, "lab-a", "usr_a2", "hash-usr_a1", []byte("new")); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetPassword(lab-a, a2, a1's hash): err = %v", err)
	}
	if _, _, err := CheckoutOrder(ctx, q, "lab-b", "chk_a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("CheckoutOrder(lab-b, lab-a's checkout): err = %v", err)
	}
	if n, err := SettleCheckout(ctx, q, "lab-b", "chk_a", "pending", "paid", "pay_1", now); n != 0 || err != nil {
		t.Errorf("SettleCheckout(lab-b, lab-a's checkout) = %d, %v", n, err)
	}
	if err := InsertInvoice(ctx, q, "lab-b", &Invoice{InvoiceID: "inv_b", CheckoutID: "chk_a", Status: "paid", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := InsertInvoice(ctx, q, "lab-a", &Invoice{InvoiceID: "inv_a", CheckoutID: "chk_a", Status: "paid", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := InvoiceOf(ctx, q, "lab-b", "chk_a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("InvoiceOf(lab-b, lab-a's checkout): err = %v", err)
	}
	// Revoking in lab-b at later drops lab-b's revocations expired by then,
	// not lab-a's j1, which expires then too.
	if err := RevokeSession(ctx, q, "lab-b", "usr_b1", "j3", later, later); err != nil {
		t.Fatal(err)
	}

	// Node index versions: lab-a's moved twice, then lab-b's once.
	for _, org := range []string{"lab-a", "lab-a", "lab-b"} {
		if err := BumpNodesVersion(ctx, q, org); err != nil {
			t.Fatal(err)
		}
	}
	for org, want := range map[string]int64{"lab-a": 2, "lab-b": 1} {
		if v, err := NodesVersion(ctx, q, org); v != want || err != nil {
			t.Errorf("NodesVersion(%s) = %d, %v; want %d", org, v, err, want)
		}
		snap, err := SnapshotNodes(ctx, db.Read, org)
		if err != nil {
			t.Fatal(err)
		}
		if v, _, err := snap.Versions(ctx); v != want || err != nil {
			t.Errorf("snapshot of %s: version %d, %v; want %d", org, v, err, want)
		}
		snap.Close()
	}

	// Usage counters, summed over periods, per workspace.
	if err := AddUsage(ctx, q, []UsageCount{
		{Org: "lab-a", Period: "2026-02", Counter: "fetches", Value: 2},
		{Org: "lab-a", Period: "2026-03", Counter: "fetches", Value: 3},
		{Org: "lab-b", Period: "2026-03", Counter: "fetches", Value: 40},
	}); err != nil {
		t.Fatal(err)
	}
	for org, want := range map[string]int64{"lab-a": 5, "lab-b": 40} {
		if n, err := UsageTotal(ctx, q, org, "fetches"); n != want || err != nil {
			t.Errorf("UsageTotal(%s) = %d, %v; want %d", org, n, err, want)
		}
	}

	// lab-a is as it was.
	keys, err := APIKeys(ctx, q, "lab-a")
	if err != nil || len(keys) != 1 || keys[0].LastUsedAt != "" {
		t.Errorf("lab-a's keys = %+v, %v; want key_a, never used", keys, err)
	}
	for _, u := range []string{"usr_a1", "usr_a2"} {
		if hash, err := PasswordHash(ctx, q, "lab-a", u); hash != "hash-"+u || err != nil {
			t.Errorf("%s's password hash = %q, %v", u, hash, err)
		}
	}
	for _, c := range []struct {
		user, jti string
		revoked   bool
	}{
		{"usr_a1", "j1", true},
		{"usr_a2", "j1", false}, // another user's session of the same id
		{"usr_a1", "j2", false}, // revoked in lab-b's name only
	} {
		u, revoked, err := SessionUser(ctx, q, "lab-a", c.user, c.jti)
		if err != nil || revoked != c.revoked || u.SessionVersion != 0 || u.Disabled {
			t.Errorf("SessionUser(lab-a, %s, %s) = %+v, revoked %v, %v; want revoked %v, untouched", c.user, c.jti, u, revoked, err, c.revoked)
		}
	}
	if plan, _, err := CheckoutOrder(ctx, q, "lab-a", "chk_a"); plan != "team" || err != nil {
		t.Errorf("lab-a's checkout: plan %q, %v", plan, err)
	}
	var status string
	if err := q.QueryRowContext(ctx, `SELECT status FROM checkouts WHERE checkout_id = 'chk_a'`).Scan(&status); err != nil || status != "pending" {
		t.Errorf("lab-a's checkout: status %q, %v; want pending", status, err)
	}
	for org, want := range map[string]int{"lab-a": 1, "lab-b": 0} {
		if vs, err := Invoices(ctx, q, org); len(vs) != want || err != nil {
			t.Errorf("%s's invoices = %+v, %v; want %d", org, vs, err, want)
		}
	}
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM revoked_sessions WHERE org_id = 'lab-a'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("lab-a's revocations: %d, %v; want 1", n, err)
	}
}
