package hosted

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/store"
)

// PaymentProvider takes the payments of paid plans. Checkout asks it for an
// order; ConfirmCheckout asks it whether a payment settles that order. A
// real provider (a card processor) plugs in through Options.Payments.
type PaymentProvider interface {
	// CreateOrder opens an order for the checkout and returns the
	// provider's reference to it, which the client pays against.
	CreateOrder(ctx context.Context, o Order) (ProviderOrder, error)
	// VerifyPayment reports whether the signed payment settles the order.
	// It must compare secrets in constant time. An error means the
	// provider could not tell, not that the payment is bad.
	VerifyPayment(ctx context.Context, p Payment) (bool, error)
}

// Order is what a PaymentProvider is asked to collect.
type Order struct {
	CheckoutID  string
	OrgID       string
	Plan        string // plan slug
	AmountCents int64
	Currency    string
}

// ProviderOrder is a provider's reference to an order, handed to the
// client that pays it.
type ProviderOrder struct {
	Name    string `json:"name"`     // the provider
	OrderID string `json:"order_id"` // the provider's order id
	KeyID   string `json:"key_id"`   // the public key the client pays with
}

// Payment is a client's claim that it paid an order.
type Payment struct {
	CheckoutID string
	OrderID    string
	PaymentID  string
	Signature  string
}

// SignedOrders is the built-in PaymentProvider: the payment page (or a
// test) signs checkout_id + "|" + payment_id with HMAC-SHA256 under the
// shared secret, hex-encoded (SignPayment), and VerifyPayment checks that
// signature in constant time.
type SignedOrders struct {
	secret []byte
	keyID  string
}

// SignedOrdersName is the provider name the built-in provider reports.
const SignedOrdersName = "papermem-signed"

// NewSignedOrders returns the built-in provider keyed by secret (the
// server's PAPERMEM_PAYMENT_SECRET). Its key id is a fingerprint of the
// secret that reveals nothing of it.
func NewSignedOrders(secret string) *SignedOrders {
	sum := sha256.Sum256([]byte("papermem payment key id\x00" + secret))
	return &SignedOrders{secret: []byte(secret), keyID: "pk_" + hex.EncodeToString(sum[:8])}
}

// CreateOrder opens an order with a fresh id.
func (s *SignedOrders) CreateOrder(ctx context.Context, o Order) (ProviderOrder, error) {
	return ProviderOrder{Name: SignedOrdersName, OrderID: "order_" + randomHex(12), KeyID: s.keyID}, nil
}

// VerifyPayment checks p.Signature against SignPayment in constant time.
func (s *SignedOrders) VerifyPayment(ctx context.Context, p Payment) (bool, error) {
	got, err := hex.DecodeString(strings.TrimSpace(p.Signature))
	if err != nil {
		return false, nil
	}
	return hmac.Equal(got, paymentMAC(s.secret, p.CheckoutID, p.PaymentID)), nil
}

// SignPayment returns the signature SignedOrders accepts for a payment:
// hex(HMAC-SHA256(checkoutID + "|" + paymentID, secret)).
func SignPayment(secret, checkoutID, paymentID string) string {
	return hex.EncodeToString(paymentMAC([]byte(secret), checkoutID, paymentID))
}

// Sign returns the signature s accepts for a payment, as its payment page
// gives it (SignPayment under s's secret).
func (s *SignedOrders) Sign(checkoutID, paymentID string) string {
	return hex.EncodeToString(paymentMAC(s.secret, checkoutID, paymentID))
}

// TakesPayments reports whether paid plans can be bought: whether
// Options.Payments names a payment provider. Without one Checkout of a
// paid plan fails with EUPSTREAM.
func (s *Service) TakesPayments() bool { return s.payments != nil }

// NoPaymentsReason says why paid plans cannot be bought when the service
// takes no payments (TakesPayments is false).
const NoPaymentsReason = "This server has no payment provider configured, so paid plans cannot be bought here; its operator can configure one, or a founder can set the workspace's plan."

// BuiltInPayments returns Options.Payments when it is the built-in
// provider, for a payment page served with the service (the dashboard's);
// nil otherwise.
func (s *Service) BuiltInPayments() *SignedOrders {
	so, _ := s.payments.(*SignedOrders)
	return so
}

func paymentMAC(secret []byte, checkoutID, paymentID string) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(checkoutID + "|" + paymentID))
	return h.Sum(nil)
}

// Checkout statuses. A checkout is pending until a correctly signed
// confirmation makes it paid; a confirmation with a bad signature reports
// CheckoutFailed and leaves it pending.
const (
	CheckoutPending = "pending"
	CheckoutPaid    = "paid"
	CheckoutFailed  = "failed"
)

// CheckoutResult answers Checkout. A free plan is active at once (Free,
// Plan, Account); a paid plan gets a pending order to pay (the other
// fields).
type CheckoutResult struct {
	Free        bool              `json:"free"`
	Plan        papermem.Plan     `json:"plan"`
	Account     *papermem.Account `json:"account,omitempty"`
	AmountCents int64             `json:"amount_cents,omitempty"`
	Amount      string            `json:"amount,omitempty"`
	Currency    string            `json:"currency,omitempty"`
	CheckoutID  string            `json:"checkout_id,omitempty"`
	Status      string            `json:"status,omitempty"`
	Provider    *ProviderOrder    `json:"provider,omitempty"`
}

// Checkout starts a move to plan (a slug or display name, any case). A free
// plan is activated at once; a paid plan creates a pending checkout with an
// order from Options.Payments, activated by ConfirmCheckout. Errors:
// EUNKNOWNPLAN, EUPSTREAM (no payment provider, or it failed).
func (w *Workspace) Checkout(ctx context.Context, plan string) (*CheckoutResult, error) {
	p, err := papermem.LookupPlan(plan)
	if err != nil {
		return nil, err
	}
	if p.PriceCents == 0 {
		err := w.s.write(ctx, func(ctx context.Context, tx *store.Tx) error { return w.s.setPlan(ctx, tx, w.id, p) })
		if err != nil {
			return nil, err
		}
		a, err := w.memory().Account(ctx)
		if err != nil {
			return nil, err
		}
		return &CheckoutResult{Free: true, Plan: p, Account: a}, nil
	}
	if w.s.payments == nil {
		return nil, papermem.Errorf(papermem.EUPSTREAM, "No payment provider is configured; paid plans cannot be bought.")
	}
	id := "co_" + randomHex(16)
	po, err := w.s.payments.CreateOrder(ctx, Order{CheckoutID: id, OrgID: w.id, Plan: p.Slug,
		AmountCents: p.PriceCents, Currency: papermem.Currency})
	if err != nil {
		return nil, &papermem.Error{Code: papermem.EUPSTREAM, Message: "The payment provider could not create an order.", Err: err}
	}
	err = w.s.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.s.ensureWorkspace(ctx, tx, w.id); err != nil {
			return err
		}
		return store.InsertCheckout(ctx, tx, w.id, &store.Checkout{CheckoutID: id, Plan: p.Slug, AmountCents: p.PriceCents,
			Currency: papermem.Currency, Provider: po.Name, OrderID: po.OrderID, KeyID: po.KeyID, Status: CheckoutPending,
			CreatedAt: w.s.nowString()})
	})
	if err != nil {
		return nil, fmt.Errorf("create checkout: %w", err)
	}
	return &CheckoutResult{Plan: p, AmountCents: p.PriceCents, Amount: p.Price,
		Currency: papermem.Currency, CheckoutID: id, Status: CheckoutPending, Provider: &po}, nil
}

// ConfirmInput is a client's confirmation that it paid a checkout.
type ConfirmInput struct {
	CheckoutID string `json:"checkout_id"` // required
	PaymentID  string `json:"payment_id"`  // the provider's payment id
	Signature  string `json:"signature"`   // the provider's signature
}

// Confirmation answers ConfirmCheckout.
type Confirmation struct {
	Paid       bool              `json:"paid"`
	Status     string            `json:"status"` // paid or failed
	CheckoutID string            `json:"checkout_id"`
	Invoice    *papermem.Invoice `json:"invoice,omitempty"` // the checkout's invoice when paid
	Account    *papermem.Account `json:"account"`
}

// ConfirmCheckout settles a checkout of this workspace. A payment the
// provider verifies activates the plan and writes the checkout's one
// invoice; confirming a paid checkout again changes nothing and reports it
// paid. A payment that does not verify (a missing or bad signature) changes
// nothing and reports status failed. Errors: EINVALID (no checkout_id),
// ENOTFOUND (no such checkout in this workspace), EUPSTREAM.
func (w *Workspace) ConfirmCheckout(ctx context.Context, in ConfirmInput) (*Confirmation, error) {
	id := strings.TrimSpace(in.CheckoutID)
	if id == "" {
		return nil, papermem.Errorf(papermem.EINVALID, "checkout_id is required.")
	}
	plan, orderID, err := store.CheckoutOrder(ctx, w.s.db, w.id, id)
	if err != nil {
		return nil, w.s.dbError(err, "No checkout "+id+" in this workspace.")
	}
	ok := false
	if in.PaymentID != "" && in.Signature != "" {
		if w.s.payments == nil {
			return nil, papermem.Errorf(papermem.EUPSTREAM, "No payment provider is configured.")
		}
		ok, err = w.s.payments.VerifyPayment(ctx, Payment{CheckoutID: id, OrderID: orderID,
			PaymentID: in.PaymentID, Signature: in.Signature})
		if err != nil {
			return nil, &papermem.Error{Code: papermem.EUPSTREAM, Message: "The payment provider could not verify the payment.", Err: err}
		}
	}
	res := &Confirmation{Status: CheckoutFailed, CheckoutID: id}
	if ok {
		p, err := papermem.LookupPlan(plan)
		if err != nil {
			return nil, fmt.Errorf("checkout %s: %w", id, err)
		}
		err = w.s.write(ctx, func(ctx context.Context, tx *store.Tx) error { return w.settle(ctx, tx, id, in.PaymentID, p) })
		if err != nil {
			return nil, err
		}
		res.Paid, res.Status = true, CheckoutPaid
	}
	if res.Account, err = w.memory().Account(ctx); err != nil {
		return nil, err
	}
	if res.Paid {
		// The account lists the checkout's invoice: there is one per checkout.
		i := slices.IndexFunc(res.Account.Invoices, func(inv papermem.Invoice) bool { return inv.CheckoutID == id })
		if i < 0 {
			return nil, fmt.Errorf("checkout %s: paid without an invoice", id)
		}
		res.Invoice = &res.Account.Invoices[i]
	}
	return res, nil
}

// settle marks a pending checkout paid, activates its plan and writes its
// invoice. A checkout already paid is left as it is: the update matches
// only a pending row, and UNIQUE (checkout_id) on invoices holds even if
// two confirmations raced.
func (w *Workspace) settle(ctx context.Context, tx *store.Tx, id, paymentID string, p papermem.Plan) error {
	s := w.s
	now := s.now()
	if n, err := store.SettleCheckout(ctx, tx, w.id, id, CheckoutPending, CheckoutPaid, paymentID, s.timestamp(now)); err != nil || n == 0 {
		return err
	}
	if err := s.setPlan(ctx, tx, w.id, p); err != nil {
		return err
	}
	err := store.InsertInvoice(ctx, tx, w.id, &store.Invoice{InvoiceID: "inv_" + randomHex(12), CheckoutID: id,
		Status: papermem.InvoicePaid, PaymentID: paymentID, PeriodStart: s.timestamp(now), PeriodEnd: s.timestamp(now.AddDate(0, 1, 0)),
		CreatedAt: s.timestamp(now)})
	return s.dbError(err, "")
}
