package dashboard

import (
	"crypto/rand"
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// billingData is the billing page.
type billingData struct {
	Account *papermem.Account
	Bill    *papermem.Bill
	Plans   []papermem.Plan
	Changed string // the plan just activated
	// NoPayments says why paid plans cannot be bought on this server ("":
	// they can): the page shows them unavailable, with this reason.
	NoPayments string
}

func (h *handler) billing(w http.ResponseWriter, r *http.Request, v *viewer) error {
	return h.renderBilling(w, r, v, http.StatusOK, "", r.URL.Query().Get("changed"))
}

// renderBilling writes the billing page with status, and the message of
// an error when msg is not "".
func (h *handler) renderBilling(w http.ResponseWriter, r *http.Request, v *viewer, status int, msg, changed string) error {
	ws := h.m.Workspace(v.User.OrgID)
	a, err := ws.Account(r.Context())
	if err != nil {
		return err
	}
	b, err := ws.Billing(r.Context())
	if err != nil {
		return err
	}
	d := billingData{Account: a, Bill: b, Plans: papermem.Plans, Changed: changed}
	if !h.svc.TakesPayments() {
		d.NoPayments = hosted.NoPaymentsReason
	}
	h.render(w, r, status, "billing", &page{Title: "Billing", Nav: "billing", Viewer: v, Error: msg, Data: d})
	return nil
}

// checkout starts a move to the form's plan: a free plan is active at
// once; a paid one shows its checkout to confirm. A plan that cannot be
// bought, such as a paid plan on a server with no payment provider, is
// explained on the billing page.
func (h *handler) checkout(w http.ResponseWriter, r *http.Request, v *viewer) error {
	res, err := h.svc.Workspace(v.User.OrgID).Checkout(r.Context(), trimmed(r, "plan"))
	if err != nil {
		status, msg := h.failure(r, err)
		return h.renderBilling(w, r, v, status, msg, "")
	}
	if res.Free {
		http.Redirect(w, r, Prefix+"billing?changed="+res.Plan.Slug, http.StatusSeeOther)
		return nil
	}
	d := checkoutData{Checkout: res, BuiltIn: h.builtIn() != nil}
	h.render(w, r, http.StatusOK, "checkout", &page{Title: "Checkout", Nav: "billing", Viewer: v, Data: d})
	return nil
}

// checkoutData is a pending checkout; BuiltIn says whether this page may
// pay it through the built-in provider.
type checkoutData struct {
	Checkout *hosted.CheckoutResult
	BuiltIn  bool
}

var errNoBuiltIn = papermem.Errorf(papermem.EINVALID,
	"The dashboard takes no payments on this server: the payment provider confirms checkouts.")

// builtIn returns the built-in provider when this dashboard may act as its
// payment page (Config.Pay), else nil.
func (h *handler) builtIn() *hosted.SignedOrders {
	if !h.cfg.Pay {
		return nil
	}
	return h.svc.BuiltInPayments()
}

// pay pays a checkout through the built-in provider, acting as its payment
// page, and confirms it: paying is then confirming, which is why Config.Pay
// is for demonstrations and tests only.
func (h *handler) pay(w http.ResponseWriter, r *http.Request, v *viewer) error {
	so := h.builtIn()
	if so == nil {
		return errNoBuiltIn
	}
	id := trimmed(r, "checkout_id")
	payment := "pay_" + rand.Text()
	c, err := h.svc.Workspace(v.User.OrgID).ConfirmCheckout(r.Context(),
		hosted.ConfirmInput{CheckoutID: id, PaymentID: payment, Signature: so.Sign(id, payment)})
	if err != nil {
		return err
	}
	if !c.Paid {
		return papermem.Errorf(papermem.EINTERNAL, "checkout %s not paid: %s", id, c.Status)
	}
	http.Redirect(w, r, Prefix+"billing?changed="+c.Account.Plan.Slug, http.StatusSeeOther)
	return nil
}
