package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
)

const paySecret = "pay-secret-for-tests"

// billingEnv is a server whose paid plans are paid through the built-in
// signed-order provider keyed by paySecret.
func billingEnv(t *testing.T, cfg httpapi.Config) *env {
	return newHostedEnv(t, cfg, nil, &hosted.Options{Payments: hosted.NewSignedOrders(paySecret)})
}

func TestAccount(t *testing.T) {
	e := billingEnv(t, httpapi.Config{})
	ada := e.signup("ada@example.org", "lab-ada")
	bob := e.signup("bob@example.org", "lab-bob")
	e.apiKey(ada.auth()...)

	t.Run("View", func(t *testing.T) {
		r := e.do("GET", "/v1/account", nil, ada.auth()...)
		want(t, r, http.StatusOK, "")
		var raw map[string]any
		r.json(t, &raw)
		for _, k := range []string{"profile", "notifications", "billing_contact", "plan", "payment_method", "api_keys", "invoices", "current_invoice"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("account view lacks %s: %s", k, r.body)
			}
		}
		var a papermem.Account
		r.json(t, &a)
		if a.WorkspaceID != "lab-ada" || a.Plan.Slug != "starter" || a.Plan.Price != "0.00" || !a.Plan.Free ||
			a.Plan.RequestsPerMinute == 0 || a.Plan.Quotas.APIRequests == 0 || a.PaymentMethod != nil ||
			len(a.APIKeys) != 1 || len(a.Invoices) != 0 || a.CurrentInvoice == nil || a.CurrentInvoice.Total != "0.00" {
			t.Errorf("account %s", r.body)
		}
	})
	t.Run("PatchMerges", func(t *testing.T) {
		r := e.do("PATCH", "/v1/account", map[string]any{"profile": map[string]any{"name": "Ada", "country": "fr"},
			"billing_contact": map[string]any{"email": "bills@lab.example"}}, ada.auth()...)
		want(t, r, http.StatusOK, "")
		r = e.do("PATCH", "/v1/account", map[string]any{"profile": map[string]any{"company": "Lab"}, "notifications": map[string]any{"invoices": false},
			"payment_method": map[string]any{"type": "card", "brand": "visa", "last4": "1881", "exp_month": 1, "exp_year": 2031}, "plan": "Starter Tier"}, ada.auth()...)
		want(t, r, http.StatusOK, "")
		var a papermem.Account
		r.json(t, &a)
		if diff := cmp.Diff(papermem.Profile{Name: "Ada", Company: "Lab", Country: "FR"}, a.Profile); diff != "" {
			t.Errorf("profile (-want +got):\n%s", diff)
		}
		if a.Notifications.Invoices || !a.Notifications.UsageAlerts || a.BillingContact.Email != "bills@lab.example" ||
			a.PaymentMethod == nil || a.PaymentMethod.Last4 != "1881" {
			t.Errorf("account %s", r.body)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		before := e.do("GET", "/v1/account", nil, ada.auth()...)
		for _, tc := range []struct {
			body any
			code string
		}{
			{map[string]any{"plan": "team"}, "invalid_input"},
			{map[string]any{"profile": map[string]any{"name": "Eve"}, "plan": "Enterprise Tier"}, "invalid_input"},
			{map[string]any{"plan": "gold"}, "unknown_plan"},
			{map[string]any{"plan": map[string]any{"tier": "platinum"}}, "unknown_plan"},
			{map[string]any{"profile": "Ada"}, "invalid_input"},
			{map[string]any{"profile": map[string]any{"name": 7}}, "invalid_input"},
			{map[string]any{"billing_contact": map[string]any{"email": "nope"}}, "invalid_input"},
			{map[string]any{"payment_method": map[string]any{"type": "card", "last4": "4242424242424242"}}, "invalid_input"},
			{`{"profile": {`, "invalid_input"},
			{"", "invalid_input"},
		} {
			r := e.do("PATCH", "/v1/account", tc.body, ada.auth()...)
			want(t, r, http.StatusBadRequest, tc.code)
		}
		after := e.do("GET", "/v1/account", nil, ada.auth()...)
		if string(before.body) != string(after.body) {
			t.Errorf("refused patches changed the account:\n%s\n%s", before.body, after.body)
		}
	})
	t.Run("ErrUnauthorized", func(t *testing.T) {
		want(t, e.do("GET", "/v1/account", nil), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("PATCH", "/v1/account", map[string]any{}, bearer("pm_not-a-key")...), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("Tenancy", func(t *testing.T) {
		var a papermem.Account
		r := e.do("GET", "/v1/account", nil, bob.auth()...)
		want(t, r, http.StatusOK, "")
		r.json(t, &a)
		if a.WorkspaceID != "lab-bob" || a.Profile.Name != "" || a.PaymentMethod != nil || len(a.APIKeys) != 0 {
			t.Errorf("bob sees %s", r.body)
		}
	})
}

func TestCheckoutFlow(t *testing.T) {
	e := billingEnv(t, httpapi.Config{})
	ada := e.signup("ada@example.org", "lab-ada")
	bob := e.signup("bob@example.org", "lab-bob")

	r := e.do("POST", "/v1/billing/checkout", map[string]any{"plan": "TEAM tier"}, ada.auth()...)
	want(t, r, http.StatusOK, "")
	var co struct {
		Free        bool `json:"free"`
		Plan        struct{ Slug, Price string }
		AmountCents int64  `json:"amount_cents"`
		Amount      string `json:"amount"`
		Currency    string `json:"currency"`
		CheckoutID  string `json:"checkout_id"`
		Provider    struct {
			Name    string `json:"name"`
			OrderID string `json:"order_id"`
			KeyID   string `json:"key_id"`
		} `json:"provider"`
	}
	r.json(t, &co)
	if co.Free || co.Plan.Slug != "team" || co.Plan.Price != "49.00" || co.AmountCents != 4900 || co.Amount != "49.00" ||
		co.Currency != "USD" || co.CheckoutID == "" || co.Provider.Name == "" || co.Provider.OrderID == "" || co.Provider.KeyID == "" {
		t.Fatalf("checkout %s", r.body)
	}
	sig := hosted.SignPayment(paySecret, co.CheckoutID, "pay_42")
	confirm := func(a account, id, payment, signature string) resp {
		return e.do("POST", "/v1/billing/checkout/confirm", map[string]any{"checkout_id": id, "payment_id": payment, "signature": signature}, a.auth()...)
	}
	type confirmation struct {
		Paid    bool              `json:"paid"`
		Status  string            `json:"status"`
		Invoice *papermem.Invoice `json:"invoice"`
		Account papermem.Account  `json:"account"`
	}

	t.Run("ErrOtherWorkspace", func(t *testing.T) {
		want(t, confirm(bob, co.CheckoutID, "pay_42", sig), http.StatusNotFound, "not_found")
	})
	t.Run("BadSignature", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"checkout_id": co.CheckoutID, "payment_id": "pay_42", "signature": hosted.SignPayment("guess", co.CheckoutID, "pay_42")},
			{"checkout_id": co.CheckoutID, "payment_id": "pay_43", "signature": sig},
			{"checkout_id": co.CheckoutID, "payment_id": nil, "signature": nil},
		} {
			r := e.do("POST", "/v1/billing/checkout/confirm", body, ada.auth()...)
			want(t, r, http.StatusOK, "")
			var c confirmation
			r.json(t, &c)
			if c.Paid || c.Status != "failed" || c.Invoice != nil || c.Account.Plan.Slug != "starter" || len(c.Account.Invoices) != 0 {
				t.Errorf("bad signature: %s", r.body)
			}
		}
	})
	t.Run("Paid", func(t *testing.T) {
		r := confirm(ada, co.CheckoutID, "pay_42", sig)
		want(t, r, http.StatusOK, "")
		var c confirmation
		r.json(t, &c)
		if !c.Paid || c.Status != "paid" || c.Invoice == nil || c.Invoice.AmountCents != 4900 || c.Invoice.Amount != "49.00" ||
			c.Account.Plan.Slug != "team" || len(c.Account.Invoices) != 1 {
			t.Fatalf("confirm: %s", r.body)
		}
	})
	t.Run("ReplayCreatesNoSecondInvoice", func(t *testing.T) {
		for range 3 {
			r := confirm(ada, co.CheckoutID, "pay_42", sig)
			want(t, r, http.StatusOK, "")
		}
		var a papermem.Account
		e.do("GET", "/v1/account", nil, ada.auth()...).json(t, &a)
		if len(a.Invoices) != 1 || a.Plan.Slug != "team" {
			t.Errorf("after replays: plan %s, %d invoices", a.Plan.Slug, len(a.Invoices))
		}
	})
	t.Run("InvoicesInvisibleToOthers", func(t *testing.T) {
		var a papermem.Account
		e.do("GET", "/v1/account", nil, bob.auth()...).json(t, &a)
		if len(a.Invoices) != 0 || a.Plan.Slug != "starter" {
			t.Errorf("bob: plan %s, %d invoices", a.Plan.Slug, len(a.Invoices))
		}
	})
	t.Run("FreeActivatesAtOnce", func(t *testing.T) {
		r := e.do("POST", "/v1/billing/checkout", map[string]any{"plan": "starter"}, ada.auth()...)
		want(t, r, http.StatusOK, "")
		var c struct {
			Free    bool              `json:"free"`
			Plan    papermem.Plan     `json:"plan"`
			Account *papermem.Account `json:"account"`
		}
		r.json(t, &c)
		if !c.Free || c.Plan.Slug != "starter" || c.Account == nil || c.Account.Plan.Slug != "starter" {
			t.Errorf("free checkout %s", r.body)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for _, tc := range []struct {
			path string
			body any
			code string
		}{
			{"/v1/billing/checkout", map[string]any{"plan": "gold"}, "unknown_plan"},
			{"/v1/billing/checkout", map[string]any{}, "invalid_input"},
			{"/v1/billing/checkout", map[string]any{"plan": 5}, "invalid_input"},
			{"/v1/billing/checkout", "{", "invalid_input"},
			{"/v1/billing/checkout/confirm", map[string]any{"payment_id": "x"}, "invalid_input"},
			{"/v1/billing/checkout/confirm", map[string]any{"checkout_id": 7}, "invalid_input"},
		} {
			r := e.do("POST", tc.path, tc.body, ada.auth()...)
			want(t, r, http.StatusBadRequest, tc.code)
		}
		want(t, confirm(ada, "co_unknown", "pay_1", "00"), http.StatusNotFound, "not_found")
		want(t, e.do("POST", "/v1/billing/checkout", map[string]any{"plan": "team"}), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("ErrNoProvider", func(t *testing.T) {
		e := newEnv(t, httpapi.Config{}, nil)
		a := e.signup("cy@example.org", "lab-cy")
		want(t, e.do("POST", "/v1/billing/checkout", map[string]any{"plan": "team"}, a.auth()...), http.StatusBadGateway, "upstream_failed")
	})
}

func TestUsageBillingAnalytics(t *testing.T) {
	e := billingEnv(t, httpapi.Config{})
	ada := e.signup("ada@example.org", "lab-ada")
	bob := e.signup("bob@example.org", "lab-bob")
	const papers, recalls, remembers, fetches = 3, 4, 2, 5
	requests := 0
	call := func(method, path string, body any) resp {
		t.Helper()
		r := e.do(method, path, body, ada.auth()...)
		if r.status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
		requests++
		return r
	}
	text := "Abstract\nMetformin lowered HbA1c by 1.1 points in adults with type 2 diabetes.\n\nMethods\nWe randomised 400 adults."
	var bytes int64
	for i := range papers {
		call("POST", "/v1/papers", map[string]any{"doi": fmt.Sprintf("10.1000/m-%d", i), "title": "Metformin trial", "text": text, "domain": "medicine"})
		bytes += int64(len(text))
	}
	var tokens int64
	for range recalls {
		var res papermem.RecallResult
		call("POST", "/v1/recall", map[string]any{"question": "metformin HbA1c", "label": "Any"}).json(t, &res)
		tokens += int64(res.TotalTokens)
	}
	for i := range remembers {
		call("POST", "/v1/user/remember", map[string]any{"text": fmt.Sprintf("Ada reads trial %d", i)})
	}
	for range fetches {
		call("POST", "/v1/papers/"+url.PathEscape("10.1000/m-0")+"/fetch", nil)
	}
	e.do("GET", "/v1/usage", nil, bob.auth()...) // another workspace's request

	r := e.do("GET", "/v1/usage", nil, ada.auth()...)
	want(t, r, http.StatusOK, "")
	requests++ // the usage request itself is counted before it runs
	var u hosted.Usage
	r.json(t, &u)
	wantCounters := map[string]int64{
		"api_requests": int64(requests), "recall_requests": recalls, "recall_tokens": tokens,
		"papers_stored": papers, "documents_ingested": 0, "bytes_ingested": bytes,
		"fetch_requests": fetches, "fetch_warm_hits": fetches, "user_memories": remembers,
	}
	if diff := cmp.Diff(wantCounters, u.Counters); diff != "" || u.WorkspaceID != "lab-ada" {
		t.Errorf("usage of %s (-want +got):\n%s", u.WorkspaceID, diff)
	}

	r = e.do("GET", "/v1/billing", nil, ada.auth()...)
	want(t, r, http.StatusOK, "")
	var b papermem.Bill
	r.json(t, &b)
	wantItems := []papermem.LineItem{{Item: "Starter Tier monthly fee", Quantity: 1}}
	if diff := cmp.Diff(wantItems, b.LineItems); diff != "" || b.WorkspaceID != "lab-ada" || b.Total != "0.00" || b.Currency != "USD" {
		t.Errorf("billing %s (-want +got):\n%s", r.body, diff)
	}

	r = e.do("GET", "/v1/analytics", nil, ada.auth()...)
	want(t, r, http.StatusOK, "")
	var a hosted.Analytics
	r.json(t, &a)
	wantCache := hosted.CacheStats{Fetches: fetches, WarmHits: fetches, HitRate: 1, BytesSaved: fetches * int64(len(text))}
	if diff := cmp.Diff(wantCache, a.Cache); diff != "" {
		t.Errorf("cache (-want +got):\n%s", diff)
	}
	if a.Memory.Papers != papers || a.Memory.Memories != remembers || a.Memory.Nodes == 0 ||
		len(a.TopDomains) != 1 || a.TopDomains[0] != (hosted.DomainCount{Domain: "medicine", Count: papers}) {
		t.Errorf("analytics %s", r.body)
	}

	var ub hosted.Usage
	e.do("GET", "/v1/usage", nil, bob.auth()...).json(t, &ub)
	if ub.Counters["api_requests"] != 2 || ub.Counters["papers_stored"] != 0 {
		t.Errorf("bob's usage %+v", ub.Counters)
	}
	for _, p := range []string{"/v1/usage", "/v1/billing", "/v1/analytics"} {
		want(t, e.do("GET", p, nil), http.StatusUnauthorized, "unauthorized")
	}
}
