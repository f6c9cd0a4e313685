package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
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

var updateAccountOp = op{tag: "account", summary: "Update the account", req: api.AccountPatch{}, resp: papermem.Account{},
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
