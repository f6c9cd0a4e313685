package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testhook"
)

// Several servers over one database behave as one service. Each test here
// runs two or three real handlers, each over its own papermem.Open of one
// database, as separate processes sharing it would.

// sharedDatabase is the database the servers of a test share: a SQLite
// file, or a fresh PostgreSQL schema when the tests run on PostgreSQL
// (testdb.Path).
func sharedDatabase(t *testing.T) string { return testdb.Path(t) }

// servers starts n servers configured with cfg, each over its own Memory
// on one shared database and its own hosted service, opened with hopts
// (see serversOn).
func servers(t *testing.T, n int, cfg httpapi.Config, hopts *hosted.Options) []*env {
	t.Helper()
	return serversOn(t, sharedDatabase(t), n, cfg, nil, hopts)
}

// recallDOIs returns the DOIs of the spans a recall for q finds through e.
func recallDOIs(t *testing.T, e *env, q string, hdr []string) []string {
	t.Helper()
	r := e.do("POST", "/v1/recall", map[string]any{"question": q, "label": "Any", "budget_tokens": 2000}, hdr...)
	want(t, r, http.StatusOK, "")
	var res papermem.RecallResult
	r.json(t, &res)
	var dois []string
	for _, s := range res.Spans {
		dois = append(dois, s.Provenance.DOI)
	}
	return dois
}

// TestClusterWritesSeenEverywhere writes through each of three servers and
// reads through the others at once, with no wait: a stored paper is
// recalled and exists, a remembered note is recalled for its user, and a
// deleted paper is gone. Every server has searched the workspace before,
// so each must follow the others' writes, not load them for the first time.
func TestClusterWritesSeenEverywhere(t *testing.T) {
	es := servers(t, 3, httpapi.Config{}, nil)
	a := es[0].signup("ada@example.org", "lab-one")
	for _, e := range es {
		if dois := recallDOIs(t, e, "anything at all", a.auth()); len(dois) != 0 {
			t.Fatalf("recall in an empty workspace found %v", dois)
		}
	}
	for i, writer := range es {
		doi := fmt.Sprintf("10.1000/cluster-%d", i)
		marker := fmt.Sprintf("zorblax%d", i)
		text := fmt.Sprintf("Abstract\nThe %s protocol cut relapse by a third in adults.", marker)
		want(t, writer.do("POST", "/v1/papers", map[string]any{"doi": doi, "title": "Trial " + marker, "text": text}, a.auth()...), http.StatusCreated, "")
		note := fmt.Sprintf("I keep the %s samples in freezer %d.", marker, i)
		want(t, writer.do("POST", "/v1/user/remember", map[string]any{"text": note}, a.auth()...), http.StatusOK, "")
		for j, reader := range es {
			if dois := recallDOIs(t, reader, "Which protocol is "+marker+"?", a.auth()); len(dois) == 0 || dois[0] != doi {
				t.Errorf("paper stored through server %d, recalled through %d: DOIs %v, want %s first", i, j, dois, doi)
			}
			r := reader.do("GET", "/v1/papers/"+doi+"/exists", nil, a.auth()...)
			if want(t, r, http.StatusOK, ""); !strings.Contains(string(r.body), `"exists":true`) {
				t.Errorf("paper stored through server %d, through %d: %s", i, j, r.body)
			}
			r = reader.do("POST", "/v1/user/recall", map[string]any{"question": "Where are the " + marker + " samples?"}, a.auth()...)
			if want(t, r, http.StatusOK, ""); !strings.Contains(string(r.body), "freezer "+fmt.Sprint(i)) {
				t.Errorf("note remembered through server %d, recalled through %d: %s", i, j, r.body)
			}
		}
	}
	// Deleted through the last server: gone through every one.
	want(t, es[2].do("DELETE", "/v1/papers/10.1000/cluster-0", nil, a.auth()...), http.StatusOK, "")
	for j, reader := range es {
		if dois := recallDOIs(t, reader, "Which protocol is zorblax0?", a.auth()); len(dois) != 0 && dois[0] == "10.1000/cluster-0" {
			t.Errorf("deleted paper still recalled through server %d: %v", j, dois)
		}
		r := reader.do("GET", "/v1/papers/10.1000/cluster-0/exists", nil, a.auth()...)
		if want(t, r, http.StatusOK, ""); !strings.Contains(string(r.body), `"exists":false`) {
			t.Errorf("deleted paper through server %d: %s", j, r.body)
		}
	}
}

// TestClusterRevokedKey revokes an API key through one of three servers,
// each of which has verified it before (and remembers it): all three
// refuse it on its next use, and accept another key of the workspace.
func TestClusterRevokedKey(t *testing.T) {
	es := servers(t, 3, httpapi.Config{}, nil)
	a := es[0].signup("ada@example.org", "lab-one")
	revoked, kept := newKey(t, es[0], a), newKey(t, es[1], a)
	for _, e := range es {
		for _, k := range []hosted.NewAPIKey{revoked, kept} {
			want(t, e.do("GET", "/v1/papers/10.1000/xyz/exists", nil, bearer(k.Key)...), http.StatusOK, "")
		}
	}
	want(t, es[1].do("DELETE", "/v1/account/api-keys/"+revoked.KeyID, nil, a.auth()...), http.StatusOK, "")
	for i, e := range es {
		r := e.do("GET", "/v1/papers/10.1000/xyz/exists", nil, bearer(revoked.Key)...)
		if r.status != http.StatusUnauthorized {
			t.Errorf("revoked key through server %d: %d %s", i, r.status, r.body)
		}
		want(t, e.do("GET", "/v1/papers/10.1000/xyz/exists", nil, bearer(kept.Key)...), http.StatusOK, "")
	}
}

// newKey creates an API key for a through e and records its value for the
// leak check.
func newKey(t *testing.T, e *env, a account) hosted.NewAPIKey {
	t.Helper()
	r := e.do("POST", "/v1/account/api-keys", map[string]any{"name": "agent"}, a.auth()...)
	want(t, r, http.StatusCreated, "")
	var k hosted.NewAPIKey
	r.json(t, &k)
	e.mu.Lock()
	e.keys = append(e.keys, k.Key)
	e.mu.Unlock()
	return k
}

// TestClusterUsageAddsUp meters requests and memories through three
// servers; each buffers its counts and flushes them as increments, so the
// workspace's usage is their sum. A usage read flushes the counts of the
// server it goes through; the others' reach the database within
// hosted.DefaultUsageFlushInterval, and here by their own reads.
func TestClusterUsageAddsUp(t *testing.T) {
	es := servers(t, 3, httpapi.Config{}, nil)
	a := es[0].signup("ada@example.org", "lab-one")
	requests, memories := 0, 0
	for i, e := range es {
		for k := range 2 + 3*i {
			want(t, e.do("POST", "/v1/user/remember", map[string]any{"text": fmt.Sprintf("note %d-%d", i, k)}, a.auth()...), http.StatusOK, "")
			requests++
			memories++
		}
		for range 1 + i {
			want(t, e.do("GET", "/v1/users", nil, a.auth()...), http.StatusOK, "")
			requests++
		}
	}
	// Each server's usage read flushes its own counts; the last one, through
	// the first server again, sees everything.
	var u hosted.Usage
	for _, e := range append(es, es[0]) {
		r := e.do("GET", "/v1/usage", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		requests++
		r.json(t, &u)
	}
	if got := u.Counters[papermem.CounterAPIRequests]; got != int64(requests) {
		t.Errorf("api_requests = %d, want %d (the sum over the servers)", got, requests)
	}
	if got := u.Counters[papermem.CounterUserMemories]; got != int64(memories) {
		t.Errorf("user_memories = %d, want %d", got, memories)
	}
}

// TestClusterCheckoutPaidOnce confirms one checkout many times at once,
// through two servers, with the same and with different payments: every
// confirmation reports it paid with the same invoice, and the workspace
// has exactly one invoice.
func TestClusterCheckoutPaidOnce(t *testing.T) {
	es := servers(t, 2, httpapi.Config{}, &hosted.Options{Payments: hosted.NewSignedOrders(paySecret)})
	a := es[0].signup("ada@example.org", "lab-one")
	r := es[0].do("POST", "/v1/billing/checkout", map[string]any{"plan": "team"}, a.auth()...)
	want(t, r, http.StatusOK, "")
	var co struct {
		CheckoutID string `json:"checkout_id"`
	}
	r.json(t, &co)

	const confirms = 16
	invoices := make([]string, confirms)
	var wg sync.WaitGroup
	for i := range confirms {
		wg.Go(func() {
			payment := fmt.Sprintf("pay_%d", i%3)
			r := es[i%2].do("POST", "/v1/billing/checkout/confirm", map[string]any{"checkout_id": co.CheckoutID,
				"payment_id": payment, "signature": hosted.SignPayment(paySecret, co.CheckoutID, payment)}, a.auth()...)
			var c struct {
				Paid    bool              `json:"paid"`
				Invoice *papermem.Invoice `json:"invoice"`
			}
			if r.status != http.StatusOK {
				t.Errorf("confirm %d: %d %s", i, r.status, r.body)
				return
			}
			r.json(t, &c)
			if !c.Paid || c.Invoice == nil {
				t.Errorf("confirm %d: %s", i, r.body)
				return
			}
			invoices[i] = c.Invoice.InvoiceID
		})
	}
	wg.Wait()
	for i, id := range invoices {
		if id != invoices[0] {
			t.Errorf("confirm %d answered invoice %q, confirm 0 %q", i, id, invoices[0])
		}
	}
	for i, e := range es {
		var acc papermem.Account
		r := e.do("GET", "/v1/account", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		r.json(t, &acc)
		if len(acc.Invoices) != 1 || acc.Plan.Slug != "team" {
			t.Errorf("through server %d: plan %s, %d invoices, want team and 1", i, acc.Plan.Slug, len(acc.Invoices))
		}
	}
}

// TestClusterRateLimit sends requests of one credential, and sign-ins of
// one client address, round the servers. With SharedLimits the servers
// spend from buckets in the database: the limit holds over all of them,
// and each reports the same remaining count; in-process buckets (the
// default) limit each server on its own.
func TestClusterRateLimit(t *testing.T) {
	const perMin, authPerMin = 5, 4
	t.Run("Shared", func(t *testing.T) {
		es := servers(t, 3, httpapi.Config{RateLimit: perMin, AuthRateLimit: authPerMin, SharedLimits: true,
			FounderEmails: []string{"root@example.org"}}, nil)
		a := es[0].signup("ada@example.org", "lab-one") // the address's first sign-in
		for i := range perMin {
			r := es[i%3].do("GET", "/v1/users", nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			if got := r.header.Get("X-RateLimit-Limit") + "/" + r.header.Get("X-RateLimit-Remaining"); got != fmt.Sprintf("%d/%d", perMin, perMin-1-i) {
				t.Errorf("request %d through server %d: limit/remaining %s", i, i%3, got)
			}
		}
		for i, e := range es {
			r := e.do("GET", "/v1/users", nil, a.auth()...)
			want(t, r, http.StatusTooManyRequests, "rate_limited")
			if r.header.Get("Retry-After") == "" || r.header.Get("X-RateLimit-Remaining") != "0" {
				t.Errorf("429 through server %d: headers %v", i, r.header)
			}
		}
		root := es[1].signup("root@example.org", "lab-root") // the second sign-in
		for i := range authPerMin - 2 {
			r := es[(i+2)%3].do("POST", "/v1/auth/login", map[string]any{"email": "ada@example.org", "password": password("ada@example.org")})
			want(t, r, http.StatusOK, "")
		}
		for _, e := range es {
			want(t, e.do("POST", "/v1/auth/login", map[string]any{"email": "ada@example.org", "password": password("ada@example.org")}),
				http.StatusTooManyRequests, "rate_limited")
		}
		var h papermem.Health
		r := es[2].do("GET", "/v1/admin/health", nil, root.auth()...)
		want(t, r, http.StatusOK, "")
		r.json(t, &h)
		for _, c := range h.Components {
			if c.Name == "rate_limiter" && (c.Status != papermem.HealthOK || !strings.Contains(c.Detail, "shared in the database")) {
				t.Errorf("rate_limiter health %+v", c)
			}
		}
	})
	t.Run("InProcessPerServer", func(t *testing.T) {
		es := servers(t, 3, httpapi.Config{RateLimit: perMin}, nil)
		a := es[0].signup("ada@example.org", "lab-one")
		for i, e := range es {
			for range perMin {
				want(t, e.do("GET", "/v1/users", nil, a.auth()...), http.StatusOK, "")
			}
			if r := e.do("GET", "/v1/users", nil, a.auth()...); r.status != http.StatusTooManyRequests {
				t.Errorf("server %d granted request %d: %d", i, perMin+1, r.status)
			}
		}
	})
}

// seedGraph links sessions sessions of 20 papers each in workspace
// through m, from several goroutines (the writes share commits): each
// session draws 16 papers from one of sessions/25 topics of 60 papers and
// 4 from a pool of 5,000, so that Materialize has thousands of pairs to
// weigh.
func seedGraph(t *testing.T, m *papermem.Memory, org string, sessions int) {
	t.Helper()
	w := m.Workspace(org)
	inParallel(t, sessions, func(s int) error {
		set := map[string]bool{}
		for k := 0; len(set) < 16; k++ {
			set[fmt.Sprintf("10.1/t%d-%d", s%(sessions/25), (s*7+k*13)%60)] = true
		}
		for k := 0; len(set) < 20; k++ {
			set[fmt.Sprintf("10.1/g%d", (s*31+k*97)%5000)] = true
		}
		papers := make([]string, 0, len(set))
		for p := range set {
			papers = append(papers, p)
		}
		_, err := w.LinkSession(context.Background(), papermem.SessionLink{SessionID: fmt.Sprintf("s%05d", s), Papers: papers})
		return err
	})
}

// seedPapers stores n papers in workspace through m, from several
// goroutines.
func seedPapers(t *testing.T, m *papermem.Memory, org string, n int) {
	t.Helper()
	w := m.Workspace(org)
	inParallel(t, n, func(i int) error {
		text := fmt.Sprintf("Abstract\nIn cohort %d, sleep deprivation impaired memory consolidation by %d%%.\n\n"+
			"Results\nCaffeine improved reaction time in %d older adults. Vitamin D slowed cognitive decline.", i, i%40, 100+i)
		_, _, err := w.StorePaper(context.Background(), papermem.PaperInput{DOI: fmt.Sprintf("10.2/p%d", i), Title: "Cohort study", Text: text})
		return err
	})
}

// inParallel runs do(0) … do(n-1) from 8 goroutines, each stopping at its
// first error, which fails the test.
func inParallel(t *testing.T, n int, do func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < n; i += 8 {
				if err := do(i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestClusterLongOperationsBlockNoServer runs, through one server,
// operations that take long over a large workspace — Materialize, and the
// first recall of a server that has not loaded the workspace's search
// index — while another server stores notes and recalls in the same
// workspace: the other server's writes and recalls complete while the long
// operation is under way. (Over SQLite, writes from every server take the
// file's one write lock in turn, so what holds is that Materialize
// computes its pairs and a server loads its index from read snapshots,
// holding that lock for Materialize's short final write only.)
//
// The clock decides nothing: the long operation is stopped at its test
// hook (internal/testhook), holding what it holds there, until the other
// server has completed its writes and recalls. Were the other server
// blocked by it, the test would fail after waiting half a minute, a guard
// against a deadlock rather than a measure of speed.
func TestClusterLongOperationsBlockNoServer(t *testing.T) {
	var h hold
	testhook.Materialize, testhook.IndexLoad = h.hook, h.hook
	t.Cleanup(func() { testhook.Materialize, testhook.IndexLoad = nil, nil }) // after the servers are closed
	es := servers(t, 3, httpapi.Config{RateLimit: 1 << 20}, nil)
	busy, other, cold := es[0], es[1], es[2]
	a := other.signup("ada@example.org", "lab-one")
	seedGraph(t, other.m, a.org, 3000)
	seedPapers(t, other.m, a.org, 400)
	recall := map[string]any{"question": "Does caffeine improve reaction time?", "label": "Any"}
	want(t, other.do("POST", "/v1/recall", recall, a.auth()...), http.StatusOK, "")
	want(t, busy.do("POST", "/v1/graph/materialize", map[string]any{}, a.auth()...), http.StatusOK, "") // creates the edges

	// during runs long (through busy or cold) and, once long reached its
	// hook, has other store n notes in one goroutine and recall n times in
	// another; it lets long go on when both are done, and returns long's
	// response. It fails the test if long ends without reaching its hook,
	// or if other has not completed its requests within the guard.
	const n = 5
	const guard = 30 * time.Second
	during := func(t *testing.T, long func() resp) (out resp) {
		t.Helper()
		reached, release := h.arm()
		var r resp
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			r = long()
		}()
		var others sync.WaitGroup
		defer func() {
			h.disarm()
			close(release) // lets long go on, whatever happened
			<-ended
			others.Wait()
			out = r
		}()
		select {
		case <-reached:
		case <-ended:
			t.Fatalf("the long operation ended (%d %.300s) without reaching its test hook", r.status, r.body)
		case <-time.After(guard):
			t.Fatalf("the long operation has not reached its test hook after %v", guard)
		}
		var mu sync.Mutex
		var writes, recalls int
		loop := func(count *int, req func(k int) resp) {
			others.Go(func() {
				for k := range n {
					if got := req(k); got.status != http.StatusOK {
						t.Errorf("other server: %d %s", got.status, got.body)
					}
					mu.Lock()
					*count++
					mu.Unlock()
				}
			})
		}
		loop(&writes, func(k int) resp {
			return other.do("POST", "/v1/user/remember", map[string]any{"text": fmt.Sprintf("note %d", k)}, a.auth()...)
		})
		loop(&recalls, func(int) resp { return other.do("POST", "/v1/recall", recall, a.auth()...) })
		done := make(chan struct{})
		go func() {
			others.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(guard):
			mu.Lock()
			w, rc := writes, recalls
			mu.Unlock()
			t.Fatalf("while the long operation was held, the other server completed %d of %d writes and %d of %d recalls in %v: it is blocked",
				w, n, rc, n, guard)
		}
		return // the deferred function waits for long's response
	}

	t.Run("Materialize", func(t *testing.T) {
		r := during(t, func() resp {
			return busy.do("POST", "/v1/graph/materialize", map[string]any{}, a.auth()...)
		})
		want(t, r, http.StatusOK, "")
	})
	t.Run("IndexLoad", func(t *testing.T) {
		r := during(t, func() resp { return cold.do("POST", "/v1/recall", recall, a.auth()...) })
		if want(t, r, http.StatusOK, ""); !strings.Contains(string(r.body), "10.2/p") {
			t.Errorf("cold recall found no paper: %.300s", r.body)
		}
	})
}

// A hold stops the first operation that calls hook after arm, until the
// test closes the release channel arm returned. Unarmed, hook returns at
// once.
type hold struct {
	mu      sync.Mutex
	reached chan struct{} // closed when an operation reaches the hook
	release chan struct{} // closed by the test to let it go on
}

// arm makes the next call of hook stop, and returns the channels of that
// call.
func (h *hold) arm() (reached, release chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reached, h.release = make(chan struct{}), make(chan struct{})
	return h.reached, h.release
}

// disarm makes hook return at once again, if no call has stopped.
func (h *hold) disarm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reached, h.release = nil, nil
}

// hook is the test hook: armed, it reports that the operation reached it
// and waits to be released.
func (h *hold) hook() {
	h.mu.Lock()
	reached, release := h.reached, h.release
	h.reached, h.release = nil, nil // one operation stops per arm
	h.mu.Unlock()
	if reached == nil {
		return
	}
	close(reached)
	<-release
}
