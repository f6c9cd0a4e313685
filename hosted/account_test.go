package hosted_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

func TestUsageCountsCalls(t *testing.T) {
	path := testdb.Path(t)
	c := &clock{t: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)}
	m, err := papermem.Open(ctx, path, &papermem.Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := hosted.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, hw := m.Workspace("lab-usage"), svc.Workspace("lab-usage")
	other := svc.Workspace("lab-other")
	want := map[string]int64{}
	for _, name := range papermem.Counters {
		want[name] = 0
	}
	const papers, recalls, userRecalls, memories, fetches, requests = 3, 4, 2, 5, 2, 7
	for i := range papers {
		in := vitaminD
		in.DOI = fmt.Sprintf("10.1000/usage-%d", i)
		mustStore(t, w, in)
		want[papermem.CounterBytesIngested] += int64(len(in.Text))
	}
	want[papermem.CounterPapersStored] = papers
	for range recalls {
		r, err := w.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture risk", Label: papermem.LabelAny})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalTokens == 0 {
			t.Fatal("recall found nothing")
		}
		want[papermem.CounterRecallTokens] += int64(r.TotalTokens)
	}
	for i := range memories {
		if _, err := w.Remember(ctx, "ada", papermem.NoteInput{Text: fmt.Sprintf("Ada prefers trial %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for range userRecalls {
		r, err := w.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: "which trial does Ada prefer"})
		if err != nil {
			t.Fatal(err)
		}
		want[papermem.CounterRecallTokens] += int64(r.TotalTokens)
	}
	want[papermem.CounterRecallRequests] = recalls + userRecalls
	want[papermem.CounterUserMemories] = memories
	for range fetches {
		if r, err := w.FetchPaper(ctx, "10.1000/usage-0"); err != nil || !r.Warm {
			t.Fatalf("fetch: %+v, %v", r, err)
		}
	}
	if _, err := w.FetchPaper(ctx, "10.1000/unknown"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Fatalf("fetch unknown: %v", err)
	}
	want[papermem.CounterFetchRequests] = fetches
	want[papermem.CounterFetchWarmHits] = fetches
	const doc = "# Field notes\n\nThe Rhone glacier lost 2.1 m of ice per year.\n"
	if _, err := w.IngestFile(ctx, "notes.md", strings.NewReader(doc), papermem.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	want[papermem.CounterDocumentsIngested] = 1
	want[papermem.CounterBytesIngested] += int64(len(doc))
	for range requests {
		hw.CountAPIRequest()
	}
	want[papermem.CounterAPIRequests] = requests
	other.CountAPIRequest()

	u, err := hw.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, u.Counters); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
	if u.PeriodStart != "2026-03-01T00:00:00.000Z" || u.PeriodEnd != "2026-04-01T00:00:00.000Z" {
		t.Errorf("period = %s .. %s", u.PeriodStart, u.PeriodEnd)
	}

	t.Run("EmbeddedMemoryCountsNothing", func(t *testing.T) {
		if err := svc.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recall(ctx, papermem.RecallRequest{Question: "vitamin D fracture risk"}); err != nil {
			t.Fatal(err)
		}
		svc, err = hosted.New(m, nil) // the memory serves a new service once the first is closed
		if err != nil {
			t.Fatal(err)
		}
		u, err := svc.Workspace("lab-usage").Usage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, u.Counters); diff != "" {
			t.Errorf("counters after a recall of the memory alone (-want +got):\n%s", diff)
		}
		if _, err := hosted.New(m, nil); papermem.ErrorCode(err) != papermem.ECONFLICT {
			t.Errorf("a second service over the memory: err = %v, want ECONFLICT", err)
		}
	})
	t.Run("CountsSurviveClose", func(t *testing.T) {
		svc.Workspace("lab-usage").CountAPIRequest() // not yet flushed: Close must write it
		if err := svc.Close(); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		svc2 := openAt(t, path, &papermem.Options{Now: c.now})
		u, err := svc2.Workspace("lab-usage").Usage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Counters[papermem.CounterAPIRequests]; got != requests+1 {
			t.Errorf("api_requests after reopen = %d, want %d", got, requests+1)
		}
		uo, err := svc2.Workspace("lab-other").Usage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := uo.Counters[papermem.CounterAPIRequests]; got != 1 {
			t.Errorf("other workspace api_requests = %d, want 1", got)
		}
		c.set(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
		u, err = svc2.Workspace("lab-usage").Usage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Counters[papermem.CounterAPIRequests]; got != 0 {
			t.Errorf("api_requests in a new month = %d, want 0", got)
		}
	})
}

func TestCheckout(t *testing.T) {
	svc, _ := openBilling(t)
	w, acct := svc.Workspace("lab-pay"), svc.Memory().Workspace("lab-pay")

	t.Run("Free", func(t *testing.T) {
		r, err := w.Checkout(ctx, "STARTER tier")
		if err != nil {
			t.Fatal(err)
		}
		if !r.Free || r.Plan.Slug != papermem.PlanStarter || r.Account == nil || r.Account.Plan.Slug != papermem.PlanStarter || r.CheckoutID != "" {
			t.Errorf("free checkout = %+v", r)
		}
	})
	t.Run("ErrUnknownPlan", func(t *testing.T) {
		if _, err := w.Checkout(ctx, "gold"); papermem.ErrorCode(err) != papermem.EUNKNOWNPLAN {
			t.Errorf("err = %v", err)
		}
	})

	r, err := w.Checkout(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	if r.Free || r.AmountCents != 4900 || r.Amount != "49.00" || r.Currency != "USD" || r.Status != hosted.CheckoutPending ||
		!strings.HasPrefix(r.CheckoutID, "co_") || r.Provider == nil || r.Provider.Name != hosted.SignedOrdersName ||
		r.Provider.OrderID == "" || !strings.HasPrefix(r.Provider.KeyID, "pk_") || strings.Contains(r.Provider.KeyID, paySecret) {
		t.Fatalf("paid checkout = %+v", r)
	}
	if a, _ := acct.Account(ctx); a.Plan.Slug != papermem.PlanStarter {
		t.Fatalf("plan before confirm = %s", a.Plan.Slug)
	}

	t.Run("ErrOtherWorkspace", func(t *testing.T) {
		sig := hosted.SignPayment(paySecret, r.CheckoutID, "pay_1")
		_, err := svc.Workspace("lab-thief").ConfirmCheckout(ctx, hosted.ConfirmInput{CheckoutID: r.CheckoutID, PaymentID: "pay_1", Signature: sig})
		if papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrNoCheckoutID", func(t *testing.T) {
		if _, err := w.ConfirmCheckout(ctx, hosted.ConfirmInput{}); papermem.ErrorCode(err) != papermem.EINVALID {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("BadSignatureChangesNothing", func(t *testing.T) {
		for _, in := range []hosted.ConfirmInput{
			{CheckoutID: r.CheckoutID, PaymentID: "pay_1", Signature: hosted.SignPayment("wrong secret", r.CheckoutID, "pay_1")},
			{CheckoutID: r.CheckoutID, PaymentID: "pay_2", Signature: hosted.SignPayment(paySecret, r.CheckoutID, "pay_1")},
			{CheckoutID: r.CheckoutID, PaymentID: "pay_1", Signature: "not hex"},
			{CheckoutID: r.CheckoutID, PaymentID: "pay_1"},
		} {
			c, err := w.ConfirmCheckout(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if c.Paid || c.Status != hosted.CheckoutFailed || c.Invoice != nil || c.Account.Plan.Slug != papermem.PlanStarter || len(c.Account.Invoices) != 0 {
				t.Errorf("confirm %+v = %+v", in, c)
			}
		}
	})
	t.Run("OK", func(t *testing.T) {
		sig := hosted.SignPayment(paySecret, r.CheckoutID, "pay_1")
		c, err := w.ConfirmCheckout(ctx, hosted.ConfirmInput{CheckoutID: r.CheckoutID, PaymentID: "pay_1", Signature: sig})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Paid || c.Status != hosted.CheckoutPaid || c.Account.Plan.Slug != papermem.PlanTeam || c.Invoice == nil {
			t.Fatalf("confirm = %+v", c)
		}
		want := papermem.Invoice{InvoiceID: c.Invoice.InvoiceID, CheckoutID: r.CheckoutID, Plan: papermem.PlanTeam,
			AmountCents: 4900, Amount: "49.00", Currency: "USD", Status: papermem.InvoicePaid, PaymentID: "pay_1",
			PeriodStart: "2026-03-14T12:00:00.000Z", PeriodEnd: "2026-04-14T12:00:00.000Z", CreatedAt: "2026-03-14T12:00:00.000Z"}
		if diff := cmp.Diff([]papermem.Invoice{want}, c.Account.Invoices); diff != "" {
			t.Errorf("invoices (-want +got):\n%s", diff)
		}
	})
	t.Run("ReplayCreatesNoSecondInvoice", func(t *testing.T) {
		sig := hosted.SignPayment(paySecret, r.CheckoutID, "pay_1")
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				c, err := w.ConfirmCheckout(ctx, hosted.ConfirmInput{CheckoutID: r.CheckoutID, PaymentID: "pay_1", Signature: sig})
				if err != nil || !c.Paid {
					t.Errorf("replay: %+v, %v", c, err)
				}
			})
		}
		wg.Wait()
		inv, err := acct.Invoices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(inv) != 1 {
			t.Errorf("%d invoices after replays, want 1", len(inv))
		}
	})
	t.Run("ReplayAfterDowngradeKeepsPlan", func(t *testing.T) {
		if _, err := w.Checkout(ctx, "starter"); err != nil {
			t.Fatal(err)
		}
		sig := hosted.SignPayment(paySecret, r.CheckoutID, "pay_1")
		c, err := w.ConfirmCheckout(ctx, hosted.ConfirmInput{CheckoutID: r.CheckoutID, PaymentID: "pay_1", Signature: sig})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Paid || c.Account.Plan.Slug != papermem.PlanStarter || len(c.Account.Invoices) != 1 {
			t.Errorf("replay after downgrade = paid %v, plan %s, %d invoices", c.Paid, c.Account.Plan.Slug, len(c.Account.Invoices))
		}
	})
	t.Run("InvoicesInvisibleElsewhere", func(t *testing.T) {
		a, err := svc.Memory().Workspace("lab-thief").Account(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Invoices) != 0 {
			t.Errorf("another workspace sees %d invoices", len(a.Invoices))
		}
	})
	t.Run("ErrNoProvider", func(t *testing.T) {
		svc := open(t)
		if _, err := svc.Workspace("lab-free").Checkout(ctx, "Enterprise Tier"); papermem.ErrorCode(err) != papermem.EUPSTREAM {
			t.Errorf("err = %v", err)
		}
	})
}

func TestUpdateAccount(t *testing.T) {
	svc, _ := openBilling(t)
	w := svc.Memory().Workspace("lab-acct")
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }

	a, err := w.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.Plan.Slug != papermem.PlanStarter || a.PaymentMethod != nil || !a.Notifications.Invoices ||
		a.Notifications.UsageAlertPercent != 80 || len(a.APIKeys) != 0 || len(a.Invoices) != 0 ||
		a.CurrentInvoice == nil || a.CurrentInvoice.Total != "0.00" {
		t.Fatalf("fresh account = %+v", a)
	}
	key, err := svc.Workspace("lab-acct").CreateAPIKey(ctx, "ci", "")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Merge", func(t *testing.T) {
		_, err := w.UpdateAccount(ctx, papermem.AccountUpdate{
			Profile:        raw(`{"name":"Ada","company":"Lab","country":"gb"}`),
			BillingContact: raw(`{"email":"billing@lab.example"}`),
			PaymentMethod:  raw(`{"type":"card","brand":"Visa","last4":"4242","exp_month":12,"exp_year":2030,"number":"4242424242424242"}`),
		})
		if err != nil {
			t.Fatal(err)
		}
		a, err := w.UpdateAccount(ctx, papermem.AccountUpdate{
			Profile:       raw(`{"company":"Lab Two"}`),
			Notifications: raw(`{"product_updates":true}`),
			PaymentMethod: raw(`null`),
		})
		if err != nil {
			t.Fatal(err)
		}
		wantProfile := papermem.Profile{Name: "Ada", Company: "Lab Two", Country: "GB"}
		if diff := cmp.Diff(wantProfile, a.Profile); diff != "" {
			t.Errorf("profile (-want +got):\n%s", diff)
		}
		wantNotes := papermem.Notifications{Invoices: true, UsageAlerts: true, UsageAlertPercent: 80, ProductUpdates: true}
		if diff := cmp.Diff(wantNotes, a.Notifications); diff != "" {
			t.Errorf("notifications (-want +got):\n%s", diff)
		}
		wantPM := &papermem.PaymentMethod{Type: "card", Brand: "visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030}
		if diff := cmp.Diff(wantPM, a.PaymentMethod); diff != "" {
			t.Errorf("payment method (-want +got):\n%s", diff)
		}
		if a.BillingContact.Email != "billing@lab.example" {
			t.Errorf("billing contact = %+v", a.BillingContact)
		}
		if len(a.APIKeys) != 1 || a.APIKeys[0].KeyID != key.KeyID {
			t.Errorf("api keys = %+v", a.APIKeys)
		}
		b, _ := json.Marshal(a)
		if strings.Contains(string(b), key.Key) || strings.Contains(string(b), "4242424242424242") {
			t.Errorf("account view leaks a secret: %s", b)
		}
	})
	t.Run("ErrInvalidChangesNothing", func(t *testing.T) {
		before, _ := w.Account(ctx)
		for _, up := range []papermem.AccountUpdate{
			{Profile: raw(`"Ada"`)},
			{Profile: raw(`{"name":7}`)},
			{Profile: raw(`{"name":"Eve","website":"ftp://x"}`)},
			{Profile: raw(`{"name":"Eve","country":"England"}`)},
			{BillingContact: raw(`{"email":"not an email"}`)},
			{Notifications: raw(`{"usage_alert_percent":0}`)},
			{Profile: raw(`{"name":"Eve"}`), PaymentMethod: raw(`{"last4":"42424242"}`)},
			{PaymentMethod: raw(`{"type":"cash"}`)},
			{Profile: raw(`{"name":"Eve"}`), Plan: raw(`"team"`)},
			{Plan: raw(`7`)},
		} {
			if _, err := w.UpdateAccount(ctx, up); papermem.ErrorCode(err) != papermem.EINVALID {
				t.Errorf("update %s: err = %v", mustJSON(up), err)
			}
		}
		if _, err := w.UpdateAccount(ctx, papermem.AccountUpdate{Profile: raw(`{"name":"Eve"}`), Plan: raw(`"gold"`)}); papermem.ErrorCode(err) != papermem.EUNKNOWNPLAN {
			t.Errorf("unknown plan: err = %v", err)
		}
		after, _ := w.Account(ctx)
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("a refused update changed the account (-before +after):\n%s", diff)
		}
	})
	t.Run("FreePlan", func(t *testing.T) {
		if _, err := svc.SetPlan(ctx, "lab-acct", "enterprise"); err != nil {
			t.Fatal(err)
		}
		a, err := w.UpdateAccount(ctx, papermem.AccountUpdate{Plan: raw(`{"tier":"Starter Tier"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if a.Plan.Slug != papermem.PlanStarter {
			t.Errorf("plan = %s", a.Plan.Slug)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestBillingOverage(t *testing.T) {
	svc, _ := openBilling(t)
	if _, _, err := svc.CreateWorkspace(ctx, "lab-bill", "Bill", ""); err != nil {
		t.Fatal(err)
	}
	w := svc.Memory().Workspace("lab-bill")
	b, err := w.Billing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []papermem.LineItem{{Item: "Starter Tier monthly fee", Quantity: 1}}
	if diff := cmp.Diff(want, b.LineItems); diff != "" || b.Total != "0.00" || b.TotalCents != 0 || b.Currency != "USD" {
		t.Errorf("empty bill %+v (-want +got):\n%s", b, diff)
	}
	starter, _ := papermem.LookupPlan("starter")
	for range starter.Quotas.APIRequests + 10_001 { // 10,001 over: two started blocks of 10,000
		svc.Workspace("lab-bill").CountAPIRequest()
	}
	b, err = w.Billing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, papermem.LineItem{Item: "api_requests overage (per 10000)", Quantity: 2, UnitCents: 100, AmountCents: 200})
	if diff := cmp.Diff(want, b.LineItems); diff != "" || b.Total != "2.00" || b.TotalCents != 200 {
		t.Errorf("bill total %s (-want +got):\n%s", b.Total, diff)
	}
	if _, err := svc.SetPlan(ctx, "lab-bill", "Team Tier"); err != nil {
		t.Fatal(err)
	}
	b, err = w.Billing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = []papermem.LineItem{{Item: "Team Tier monthly fee", Quantity: 1, UnitCents: 4900, AmountCents: 4900}}
	if diff := cmp.Diff(want, b.LineItems); diff != "" || b.Total != "49.00" {
		t.Errorf("team bill total %s (-want +got):\n%s", b.Total, diff)
	}
}

// BenchmarkCountAPIRequest measures the metering a request pays: an
// in-memory add, no database write.
func BenchmarkCountAPIRequest(b *testing.B) {
	w := testutil.OpenHosted(b, nil, nil).Workspace("lab-bench")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w.CountAPIRequest()
		}
	})
	b.StopTimer()
	u, err := w.Usage(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if u.Counters[papermem.CounterAPIRequests] == 0 {
		b.Fatal("nothing counted")
	}
}

func TestBuiltInPayments(t *testing.T) {
	if so := open(t).BuiltInPayments(); so != nil {
		t.Fatalf("without a provider: %v", so)
	}
	svc, _ := openBilling(t)
	so := svc.BuiltInPayments()
	if so == nil || so.Sign("co_1", "pay_1") != hosted.SignPayment(paySecret, "co_1", "pay_1") {
		t.Fatal("the built-in provider signs otherwise than SignPayment")
	}
}
