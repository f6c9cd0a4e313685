package papermem

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
)

// Account is the account view of a workspace: the editable profile,
// notification settings, billing contact and payment method, the plan, the
// API keys (never their values), the invoices and the bill of the current
// month so far.
type Account = api.Account

// Profile describes who runs the workspace.
type Profile = api.Profile

// Notifications are the workspace's email notification settings.
type Notifications = api.Notifications

// BillingContact is who receives invoices.
type BillingContact = api.BillingContact

// Payment method types.
const (
	PaymentCard         = "card"
	PaymentBankTransfer = "bank_transfer"
	PaymentInvoice      = "invoice"
)

// PaymentMethod describes how the workspace pays, never with a full card
// number: only the brand, the last four digits and the expiry are kept.
type PaymentMethod = api.PaymentMethod

// defaultNotifications are a new account's settings.
var defaultNotifications = Notifications{Invoices: true, UsageAlerts: true, UsageAlertPercent: 80}

// AccountUpdate changes parts of the account.
type AccountUpdate = api.AccountUpdate

// accountRow is the stored, editable part of an account.
type accountRow struct {
	profile        Profile
	notifications  Notifications
	billingContact BillingContact
	paymentMethod  *PaymentMethod
	plan           Plan
}

// loadAccount reads the editable part of the account; a workspace never
// written to has the defaults and the Starter plan.
func (w *Workspace) loadAccount(ctx context.Context, q store.Querier) (*accountRow, error) {
	a := &accountRow{notifications: defaultNotifications, plan: Plans[0]}
	r, err := store.AccountOf(ctx, q, w.id)
	if errors.Is(err, store.ErrNotFound) {
		return a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read account: %w", err)
	}
	if a.plan, err = LookupPlan(r.Plan); err != nil {
		return nil, fmt.Errorf("read account: stored plan %q: %w", r.Plan, err)
	}
	for _, f := range []struct {
		raw string
		dst any
	}{{r.Profile, &a.profile}, {r.Notifications, &a.notifications}, {r.BillingContact, &a.billingContact}} {
		if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
			return nil, fmt.Errorf("read account: %w", err)
		}
	}
	if r.PaymentMethod != "" {
		a.paymentMethod = &PaymentMethod{}
		if err := json.Unmarshal([]byte(r.PaymentMethod), a.paymentMethod); err != nil {
			return nil, fmt.Errorf("read account: %w", err)
		}
	}
	return a, nil
}

// Account returns the workspace's account view. A workspace never written
// to shows the defaults on the Starter plan.
func (w *Workspace) Account(ctx context.Context) (_ *Account, err error) {
	defer translate(&err)
	row, err := w.loadAccount(ctx, w.m.db)
	if err != nil {
		return nil, err
	}
	a := &Account{WorkspaceID: w.id, Profile: row.profile, Notifications: row.notifications,
		BillingContact: row.billingContact, Plan: row.plan, PaymentMethod: row.paymentMethod}
	if a.APIKeys, err = w.APIKeys(ctx); err != nil {
		return nil, err
	}
	if a.Invoices, err = w.Invoices(ctx); err != nil {
		return nil, err
	}
	if a.CurrentInvoice, err = w.Billing(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// UpdateAccount merges the given objects into the account and may move it
// to a free plan, all in one transaction: on any error nothing changes.
// Errors: EINVALID (a malformed object or field, or a paid plan, which
// needs a checkout: package hosted), EUNKNOWNPLAN.
func (w *Workspace) UpdateAccount(ctx context.Context, up AccountUpdate) (_ *Account, err error) {
	defer translate(&err)
	var target *Plan
	if given(up.Plan) {
		p, err := planOf(up.Plan)
		if err != nil {
			return nil, err
		}
		target = &p
	}
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		a, err := w.loadAccount(ctx, tx)
		if err != nil {
			return err
		}
		if err := a.merge(up); err != nil {
			return err
		}
		if err := w.saveAccount(ctx, tx, a); err != nil {
			return err
		}
		if target == nil || target.Slug == a.plan.Slug {
			return nil
		}
		if target.PriceCents > 0 {
			return Errorf(EINVALID, "%s is a paid plan: buy it through checkout (POST /v1/billing/checkout).", target.Name)
		}
		return w.m.shared.SetPlan(ctx, tx, w.id, target.Slug)
	})
	if err != nil {
		return nil, err
	}
	return w.Account(ctx)
}

// given reports whether a raw JSON value is present and not null.
func given(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// planOf reads a plan named by a string or by an object's slug, name or
// tier field.
func planOf(raw json.RawMessage) (Plan, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		var obj struct{ Slug, Name, Tier string }
		if err := json.Unmarshal(raw, &obj); err != nil {
			return Plan{}, Errorf(EINVALID, "plan must be a plan name such as \"team\" or an object with its slug.")
		}
		name = obj.Tier
		if obj.Name != "" {
			name = obj.Name
		}
		if obj.Slug != "" {
			name = obj.Slug
		}
	}
	return LookupPlan(name)
}

// merge applies the update's objects to the account and validates the
// result.
func (a *accountRow) merge(up AccountUpdate) error {
	if err := mergeInto("profile", up.Profile, &a.profile); err != nil {
		return err
	}
	if err := mergeInto("notifications", up.Notifications, &a.notifications); err != nil {
		return err
	}
	if err := mergeInto("billing_contact", up.BillingContact, &a.billingContact); err != nil {
		return err
	}
	if given(up.PaymentMethod) {
		if a.paymentMethod == nil {
			a.paymentMethod = &PaymentMethod{}
		}
		if err := mergeInto("payment_method", up.PaymentMethod, a.paymentMethod); err != nil {
			return err
		}
	}
	return a.validate()
}

// mergeInto decodes the JSON object raw onto dst, so that the fields it
// names replace those of dst and the others stay.
func mergeInto(name string, raw json.RawMessage, dst any) error {
	if !given(raw) {
		return nil
	}
	if t := bytes.TrimSpace(raw); t[0] != '{' {
		return Errorf(EINVALID, "%s must be a JSON object.", name)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Errorf(EINVALID, "%s.%s must be of type %s.", name, te.Field, te.Type)
		}
		return Errorf(EINVALID, "%s is not valid JSON.", name)
	}
	return nil
}

// maxAccountField bounds each text field of an account, in characters.
const maxAccountField = 200

func (a *accountRow) validate() error {
	p, c := &a.profile, &a.billingContact
	for _, f := range []struct {
		name string
		v    *string
	}{
		{"profile.name", &p.Name}, {"profile.company", &p.Company}, {"profile.website", &p.Website},
		{"profile.country", &p.Country}, {"billing_contact.name", &c.Name}, {"billing_contact.email", &c.Email},
		{"billing_contact.company", &c.Company}, {"billing_contact.address", &c.Address},
		{"billing_contact.country", &c.Country}, {"billing_contact.tax_id", &c.TaxID},
	} {
		*f.v = strings.TrimSpace(*f.v)
		if utf8.RuneCountInString(*f.v) > maxAccountField {
			return Errorf(EINVALID, "%s must be at most %d characters.", f.name, maxAccountField)
		}
	}
	if p.Website != "" {
		u, err := url.Parse(p.Website)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Errorf(EINVALID, "profile.website must be an http or https URL.")
		}
	}
	for _, cc := range []struct {
		name string
		v    *string
	}{{"profile.country", &p.Country}, {"billing_contact.country", &c.Country}} {
		*cc.v = strings.ToUpper(*cc.v)
		if *cc.v != "" && !isCountryCode(*cc.v) {
			return Errorf(EINVALID, "%s must be a two-letter ISO 3166 country code.", cc.name)
		}
	}
	if c.Email != "" {
		addr, err := mail.ParseAddress(c.Email)
		if err != nil || addr.Address != c.Email {
			return Errorf(EINVALID, "billing_contact.email must be a plain email address.")
		}
	}
	if n := a.notifications.UsageAlertPercent; n < 1 || n > 100 {
		return Errorf(EINVALID, "notifications.usage_alert_percent must be between 1 and 100.")
	}
	if a.paymentMethod != nil {
		return validatePaymentMethod(a.paymentMethod)
	}
	return nil
}

func isCountryCode(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func validatePaymentMethod(pm *PaymentMethod) error {
	pm.Type = strings.ToLower(strings.TrimSpace(pm.Type))
	pm.Brand = strings.ToLower(strings.TrimSpace(pm.Brand))
	pm.Holder = strings.TrimSpace(pm.Holder)
	switch pm.Type {
	case PaymentCard, PaymentBankTransfer, PaymentInvoice:
	default:
		return Errorf(EINVALID, "payment_method.type must be %s, %s or %s.", PaymentCard, PaymentBankTransfer, PaymentInvoice)
	}
	if pm.Last4 != "" && (len(pm.Last4) != 4 || strings.Trim(pm.Last4, "0123456789") != "") {
		return Errorf(EINVALID, "payment_method.last4 must be the last four digits only.")
	}
	if utf8.RuneCountInString(pm.Brand) > 32 || utf8.RuneCountInString(pm.Holder) > maxAccountField {
		return Errorf(EINVALID, "payment_method.brand or holder is too long.")
	}
	if pm.Type != PaymentCard {
		return nil
	}
	switch {
	case pm.Last4 == "" || pm.Brand == "":
		return Errorf(EINVALID, "A card needs its brand and last4.")
	case pm.ExpMonth < 1 || pm.ExpMonth > 12:
		return Errorf(EINVALID, "payment_method.exp_month must be between 1 and 12.")
	case pm.ExpYear < 2000 || pm.ExpYear > 9999:
		return Errorf(EINVALID, "payment_method.exp_year must be a four-digit year.")
	}
	return nil
}

// saveAccount writes the editable part of the account within tx.
func (w *Workspace) saveAccount(ctx context.Context, tx *store.Tx, a *accountRow) error {
	profile, _ := json.Marshal(a.profile)
	notes, _ := json.Marshal(a.notifications)
	contact, _ := json.Marshal(a.billingContact)
	method := ""
	if a.paymentMethod != nil {
		b, _ := json.Marshal(a.paymentMethod)
		method = string(b)
	}
	err := store.SaveAccount(ctx, tx, w.id, &store.Account{Profile: string(profile), Notifications: string(notes),
		BillingContact: string(contact), PaymentMethod: method}, w.m.nowString())
	if err != nil {
		return fmt.Errorf("save account: %w", err)
	}
	return nil
}

// Plan returns the workspace's plan; Starter for a workspace never
// written to.
func (w *Workspace) Plan(ctx context.Context) (_ Plan, err error) {
	defer translate(&err)
	return w.plan(ctx, w.m.db)
}

// plan reads the workspace's plan through q.
func (w *Workspace) plan(ctx context.Context, q store.Querier) (Plan, error) {
	slug, err := store.PlanOf(ctx, q, w.id)
	if errors.Is(err, store.ErrNotFound) {
		return Plans[0], nil
	}
	if err != nil {
		return Plan{}, fmt.Errorf("read plan: %w", err)
	}
	return LookupPlan(slug)
}

// APIKey is an API key's record, as the account lists it; its value is never
// stored.
type APIKey = api.APIKey

// APIKeys lists the workspace's keys, oldest first, without values.
func (w *Workspace) APIKeys(ctx context.Context) (_ []APIKey, err error) {
	defer translate(&err)
	rows, err := store.APIKeys(ctx, w.m.db, w.id)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	out := make([]APIKey, 0, len(rows))
	for i := range rows {
		out = append(out, rows[i].API())
	}
	return out, nil
}
