package httpapi

import (
	"net/http"
	"strings"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
)

var checkoutOp = op{tag: "billing", summary: "Start a checkout for a plan", req: api.CheckoutRequest{}, resp: hosted.CheckoutResult{},
	errs:  []int{http.StatusBadGateway},
	notes: "A free plan is activated at once: {free:true, plan, account}. A paid plan creates a pending checkout: {free:false, plan, amount_cents, amount (\"49.00\"), currency, checkout_id, status:\"pending\", provider:{name, order_id, key_id}}; the plan changes only when the checkout is confirmed. Amounts are integer cents. Without a configured payment provider (PAPERMEM_PAYMENT_SECRET) a paid plan is 502 upstream_failed."}

func (s *server) handleCheckout(w http.ResponseWriter, r *http.Request) error {
	var req api.CheckoutRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Plan) == "" {
		return papermem.Errorf(papermem.EINVALID, "plan is required.")
	}
	res, err := s.hostedWorkspace(r).Checkout(r.Context(), req.Plan)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

var confirmCheckoutOp = op{tag: "billing", summary: "Confirm a checkout's payment", req: api.ConfirmRequest{}, resp: hosted.Confirmation{},
	errs:  []int{http.StatusNotFound, http.StatusBadGateway},
	notes: "The signature is verified in constant time. Valid: the plan is activated and the checkout's one invoice written → {paid:true, status:\"paid\", invoice, account}; confirming again changes nothing and answers the same. Missing or invalid signature: nothing changes → {paid:false, status:\"failed\", account} (200; the checkout stays pending and can still be confirmed)."}

func (s *server) handleConfirmCheckout(w http.ResponseWriter, r *http.Request) error {
	var req api.ConfirmRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	in := hosted.ConfirmInput{CheckoutID: req.CheckoutID}
	if req.PaymentID != nil {
		in.PaymentID = *req.PaymentID
	}
	if req.Signature != nil {
		in.Signature = *req.Signature
	}
	res, err := s.hostedWorkspace(r).ConfirmCheckout(r.Context(), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

var usageOp = op{tag: "billing", summary: "The workspace's usage this month", resp: hosted.Usage{},
	notes: "counters over the current calendar month (UTC), every counter present: api_requests (authenticated requests served), recall_requests and recall_tokens (recall and user recall), papers_stored, documents_ingested, bytes_ingested (paper text and ingested files), fetch_requests, fetch_warm_hits, user_memories. Exact at read time."}

func (s *server) handleUsage(w http.ResponseWriter, r *http.Request) error {
	u, err := s.hostedWorkspace(r).Usage(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, u)
}

var billingOp = op{tag: "billing", summary: "The workspace's bill this month so far", resp: papermem.Bill{},
	notes: "line_items: the plan's monthly fee, then one item per counter over its quota, priced per started block (item \"<counter> overage (per <block>)\", quantity in blocks). Money in integer cents; total is total_cents as a decimal string."}

func (s *server) handleBilling(w http.ResponseWriter, r *http.Request) error {
	b, err := s.workspace(r).Billing(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, b)
}

var analyticsOp = op{tag: "billing", summary: "Memory size, fetch cache efficiency and top domains", resp: hosted.Analytics{},
	notes: "memory: nodes, papers, documents, analyses, memories and bytes of stored source text; cache: paper fetches over the workspace's history, warm hits (answered from memory), hit_rate (4 decimals) and bytes_saved; top_domains: the 10 domains with most papers and documents."}

func (s *server) handleAnalytics(w http.ResponseWriter, r *http.Request) error {
	a, err := s.hostedWorkspace(r).Analytics(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}
