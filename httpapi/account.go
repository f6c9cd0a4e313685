package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
)

var accountOp = op{tag: "account", summary: "The account view", resp: papermem.Account{},
	notes: "profile, notifications, billing_contact, plan (slug, name, price_cents, price, currency, free, requests_per_minute, quotas, overage), payment_method (null when none; never a card number), api_keys (never their values), invoices (newest first) and current_invoice (this calendar month's bill so far: plan fee plus overage). A workspace never written to shows the defaults on Starter Tier."}

func (s *server) handleAccount(w http.ResponseWriter, r *http.Request) error {
	a, err := s.workspace(r).Account(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}

// accountPatch documents the PATCH body; it is decoded into
// papermem.AccountUpdate, which keeps each object raw so that only the
// fields it names are merged.
type accountPatch struct {
	Profile        *papermem.Profile        `json:"profile" doc:"fields given replace the stored ones, the others stay; null or absent leaves the profile. website is an http(s) URL, country an ISO 3166 alpha-2 code"`
	Notifications  *papermem.Notifications  `json:"notifications" doc:"merged likewise; usage_alert_percent is 1..100"`
	BillingContact *papermem.BillingContact `json:"billing_contact" doc:"merged likewise; email must be an email address"`
	PaymentMethod  *papermem.PaymentMethod  `json:"payment_method" doc:"merged likewise; type card, bank_transfer or invoice; a card needs brand, last4 (four digits), exp_month and exp_year. Any other field (a card number) is dropped, never stored"`
	Plan           *string                  `json:"plan" doc:"a free plan (starter, Starter Tier; any case), or an object with slug, name or tier. A paid plan is 400 invalid_input (buy it through /v1/billing/checkout); an unknown plan is 400 unknown_plan"`
}

var updateAccountOp = op{tag: "account", summary: "Update the account", req: accountPatch{}, resp: papermem.Account{},
	notes: "Merges each object given into the stored one, all in one transaction: any invalid field is 400 and nothing changes. Answers the updated account view."}

func (s *server) handleUpdateAccount(w http.ResponseWriter, r *http.Request) error {
	var up papermem.AccountUpdate
	if err := s.decode(w, r, &up); err != nil {
		return err
	}
	a, err := s.workspace(r).UpdateAccount(r.Context(), up)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}
