package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/fetch"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

const paySecret = "client-test-payment-secret"

// server runs the real handler over a real database file.
func server(t *testing.T, cfg httpapi.Config) (*hosted.Service, *httptest.Server) {
	t.Helper()
	svc := testutil.OpenHosted(t, &papermem.Options{Fetcher: fetch.New(fetch.Options{AllowPrivate: true})},
		&hosted.Options{Payments: hosted.NewSignedOrders(paySecret)})
	srv := httptest.NewServer(httpapi.New(svc, cfg))
	t.Cleanup(srv.Close)
	return svc, srv
}

// must(f())(t) is f's value, failing t on f's error.
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// wantCode checks that err is a *client.Error with the API's code and a
// message, and that the library's vocabulary it wraps reads as that code
// again (api.Code).
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	ce, ok := err.(*client.Error)
	if !ok || ce.Code != code || ce.Message == "" || ce.StatusCode < 400 || api.Code(err) != code {
		t.Fatalf("err = %v (api.Code %q), want a *client.Error with code %s and a message", err, api.Code(err), code)
	}
}

func ptr[T any](v T) *T { return &v }

// TestRoutes calls every method once against the real server and checks
// each answer against the library or the state it left.
func TestRoutes(t *testing.T) {
	ctx := context.Background()
	backups := t.TempDir()
	svc, srv := server(t, httpapi.Config{FounderEmails: []string{"root@example.org"}, BackupDir: backups})
	m := svc.Memory()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Fetched text: statins lowered LDL cholesterol by 30 percent in adults (p < 0.001).")
	}))
	t.Cleanup(origin.Close)
	anon := client.New(srv.URL, nil)

	t.Run("Health", func(t *testing.T) {
		if r := must(anon.Root(ctx))(t); r.Service != "papermem" || r.APIVersion != "v1" {
			t.Errorf("root = %+v", r)
		}
		if h := must(anon.Health(ctx))(t); h.Status != "ok" || h.StorageMode != testdb.Engine() {
			t.Errorf("health = %+v", h)
		}
		if s := must(anon.Status(ctx))(t); s.Components["database"] != "ok" {
			t.Errorf("status = %+v", s)
		}
		var doc struct {
			Paths map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(must(anon.OpenAPI(ctx))(t), &doc); err != nil || doc.Paths["/v1/recall"] == nil {
			t.Errorf("openapi: %v, %d paths", err, len(doc.Paths))
		}
	})

	tok := must(anon.Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse", WorkspaceID: "lab-ada"}))(t)
	ada := anon.WithToken(tok.AccessToken)
	rootTok := must(anon.Signup(ctx, api.SignupRequest{Email: "root@example.org", Password: "root password", WorkspaceID: "lab-root"}))(t)
	root := anon.WithToken(rootTok.AccessToken)
	ws := m.Workspace("lab-ada")

	t.Run("Auth", func(t *testing.T) {
		login := must(anon.Login(ctx, api.LoginRequest{Email: "ada@example.org", Password: "correct horse"}))(t)
		if login.User.UserID != tok.User.UserID || login.AccessToken == "" {
			t.Errorf("login = %+v", login)
		}
		me := must(anon.WithToken(login.AccessToken).Me(ctx))(t)
		if me.Email != "ada@example.org" || me.WorkspaceID != "lab-ada" || me.IsFounder {
			t.Errorf("me = %+v", me)
		}
		_, err := anon.Login(ctx, api.LoginRequest{Email: "ada@example.org", Password: "wrong horse"})
		wantCode(t, err, api.CodeUnauthorized)
		_, err = anon.Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse"})
		wantCode(t, err, api.CodeDuplicateEmail)
	})

	const doi = "10.1000/vitd"
	t.Run("Papers", func(t *testing.T) {
		sp := must(ada.StorePaper(ctx, api.PaperRequest{DOI: ptr(doi), Title: "Vitamin D and fractures",
			Text: "Vitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98)."}))(t)
		if sp.DOI != doi || sp.Report == nil || sp.Report.NodesStored == 0 {
			t.Errorf("store = %+v", sp)
		}
		batch := must(ada.StorePapers(ctx, api.BatchRequest{Papers: []api.PaperRequest{
			{DOI: ptr("10.1000/statin"), Title: "Statins", SourceURL: ptr(origin.URL + "/statin.txt")},
			{Title: ""}}}))(t)
		if batch.Ingested != 1 || batch.Failed != 1 || batch.Errors[0].Code != api.CodeInvalidInput {
			t.Errorf("batch = %+v", batch)
		}
		if !must(ada.PaperExists(ctx, doi))(t) || must(ada.PaperExists(ctx, "10.1000/none"))(t) {
			t.Error("exists is wrong")
		}
		if p := must(ada.Paper(ctx, doi))(t); p.DOI != doi || p.Metadata != papermem.MetadataUnavailable {
			t.Errorf("paper = %+v, want it with metadata unavailable (origins off)", p)
		}
		if _, err := ada.Paper(ctx, "10.1000/none"); papermem.ErrorCode(err) != papermem.ENOTFOUND {
			t.Errorf("unknown paper: %v, want ErrNotFound", err)
		}
		f := must(ada.FetchPaper(ctx, "10.1000/statin"))(t)
		if f.Source != "origin" || f.Warm || f.Bytes == 0 {
			t.Errorf("fetch = %+v", f)
		}
		papers := must(ada.RecallPapers(ctx, "vitamin D fracture", 5))(t)
		want := must(ws.RecallPapers(ctx, papermem.PaperRecallRequest{Query: "vitamin D fracture", Limit: 5}))(t)
		if diff := cmp.Diff(want, papers); diff != "" || len(papers) == 0 {
			t.Errorf("recall papers differ from the library's (-lib +client):\n%s", diff)
		}
		_, err := ada.RecallPapers(ctx, "", 0)
		wantCode(t, err, api.CodeInvalidInput)
		// fill lists the papers the stop leaves out after the best one.
		lens := map[bool]int{}
		for _, fill := range []bool{false, true} {
			req := papermem.PaperRecallRequest{Query: "vitamin D fracture risk statins", Limit: 5, Fill: fill}
			papers := must(ada.RecallPapersIn(ctx, req))(t)
			want := must(ws.RecallPapers(ctx, req))(t)
			if diff := cmp.Diff(want, papers); diff != "" {
				t.Errorf("fill %v: recall papers differ from the library's (-lib +client):\n%s", fill, diff)
			}
			lens[fill] = len(papers)
		}
		if lens[false] == 0 || lens[true] <= lens[false] {
			t.Errorf("papers listed without and with fill: %d, %d; want more with fill", lens[false], lens[true])
		}
	})

	t.Run("Cite", func(t *testing.T) {
		for _, format := range append([]string{""}, papermem.CitationFormats...) {
			got := must(ada.Cite(ctx, doi, format))(t)
			want := must(ws.Cite(ctx, doi, format))(t)
			if got != want.Text || !strings.Contains(got, "Vitamin D and fractures") {
				t.Errorf("cite %q = %q, the library's %q", format, got, want.Text)
			}
		}
		_, err := ada.Cite(ctx, doi, "apa")
		wantCode(t, err, api.CodeInvalidInput)
		_, err = ada.Cite(ctx, "10.1000/none", "ris")
		wantCode(t, err, api.CodeNotFound)
	})

	t.Run("Recall", func(t *testing.T) {
		req := api.RecallRequest{Question: "Does vitamin D prevent fractures?", Label: "Any", BudgetTokens: ptr(300)}
		got := must(ada.Recall(ctx, req))(t)
		in, _ := req.Input()
		want := must(ws.Recall(ctx, in))(t)
		if len(got.Spans) == 0 || got.Spans[0].Provenance.DOI != doi {
			t.Fatalf("recall = %+v", got)
		}
		if diff := cmp.Diff(want.Spans, got.Spans); diff != "" {
			t.Errorf("spans differ from the library's (-lib +client):\n%s", diff)
		}
		_, err := ada.Recall(ctx, api.RecallRequest{Question: "x", BudgetTokens: ptr(0)})
		wantCode(t, err, api.CodeInvalidInput)
	})

	t.Run("RecallDOIs", func(t *testing.T) {
		req := api.RecallRequest{Question: "Do statins lower LDL cholesterol?", Label: "Any", DOIs: []string{"10.1000/statin", "10.9999/absent"}}
		got := must(ada.Recall(ctx, req))(t)
		in, _ := req.Input()
		want := must(ws.Recall(ctx, in))(t)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("scoped recall differs from the library's (-lib +client):\n%s", diff)
		}
		if len(got.Spans) == 0 {
			t.Error("scoped recall: no spans")
		}
		for _, s := range got.Spans {
			if s.Provenance.DOI != "10.1000/statin" {
				t.Errorf("scoped to 10.1000/statin, a span of %s", s.Provenance.DOI)
			}
		}
		_, err := ada.Recall(ctx, api.RecallRequest{Question: "x", DOIs: []string{"not a doi"}})
		wantCode(t, err, api.CodeInvalidInput)
	})

	t.Run("Ingest", func(t *testing.T) {
		formats := must(ada.IngestFormats(ctx))(t)
		if len(formats.Formats) != 7 || formats.MaxFileBytes != m.MaxIngestBytes() {
			t.Errorf("formats = %+v", formats)
		}
		rep := must(ada.Ingest(ctx, "notes.md", strings.NewReader("# Notes\n\nCoffee raised alertness in 40 of 50 night-shift nurses."),
			papermem.IngestOptions{Domain: "sleep"}))(t)
		if rep.Kind != "document" || rep.NodesStored == 0 {
			t.Errorf("ingest = %+v", rep)
		}
		docs := must(ada.Documents(ctx, 10))(t)
		want := must(ws.Documents(ctx, 10))(t)
		if diff := cmp.Diff(want, docs.Documents); diff != "" || docs.Count != 1 || docs.Documents[0].ID != rep.DocID {
			t.Errorf("documents = %+v, differ from the library's (-lib +client):\n%s", docs, diff)
		}
		_, err := ada.Ingest(ctx, "notes.exe", strings.NewReader("MZ"), papermem.IngestOptions{})
		wantCode(t, err, api.CodeUnsupportedFormat)
	})

	t.Run("Analysis", func(t *testing.T) {
		st := must(ada.StoreAnalysis(ctx, api.AnalysisRequest{DOI: doi, Markdown: "# Analysis\n\nThe trial was underpowered.", CoreClaim: "no effect"}))(t)
		if !st.Stored || st.DOI != doi {
			t.Errorf("store analysis = %+v", st)
		}
		a := must(ada.Analysis(ctx, doi))(t)
		if a.CoreClaim != "no effect" || !strings.Contains(a.Markdown, "underpowered") {
			t.Errorf("analysis = %+v", a)
		}
		_, err := ada.Analysis(ctx, "10.1000/none")
		wantCode(t, err, api.CodeNotFound)
	})

	t.Run("UserMemory", func(t *testing.T) {
		r := must(ada.Remember(ctx, api.RememberRequest{Key: "style", Text: "Ada wants effect sizes with confidence intervals."}))(t)
		if r.Key != "style" || r.NodeID == 0 {
			t.Errorf("remember = %+v", r)
		}
		got := must(ada.RecallUser(ctx, api.UserRecallRequest{Question: "How does Ada like answers?"}))(t)
		if len(got.Spans) == 0 || !strings.Contains(got.Spans[0].Text, "confidence intervals") {
			t.Errorf("recall user = %+v", got)
		}
		if d := must(ada.Forget(ctx, "style"))(t); d.Deleted != "style" {
			t.Errorf("forget = %+v", d)
		}
		_, err := ada.Forget(ctx, "style")
		wantCode(t, err, api.CodeNotFound)
		key := must(ada.CreateAPIKey(ctx, api.CreateKeyRequest{Name: "agent"}))(t)
		_, err = ada.WithToken(key.Key).Remember(ctx, api.RememberRequest{Text: "no user"})
		wantCode(t, err, api.CodeMissingUserID)
		if _, err := ada.WithToken(key.Key).WithUser(tok.User.UserID).Remember(ctx, api.RememberRequest{Text: "via key"}); err != nil {
			t.Errorf("remember with X-User-Id: %v", err)
		}
	})

	t.Run("Graph", func(t *testing.T) {
		l := must(ada.LinkSession(ctx, api.LinkRequest{SessionID: "s1", Papers: []string{doi, "10.1000/statin"}}))(t)
		if l.LinkedPapers != 2 {
			t.Errorf("link = %+v", l)
		}
		must(ada.LinkSession(ctx, api.LinkRequest{SessionID: "s2", Papers: []string{doi}}))(t)
		mat := must(ada.Materialize(ctx, api.MaterializeRequest{Threshold: ptr(0.4)}))(t)
		if mat.Created != 1 {
			t.Errorf("materialize = %+v", mat)
		}
		g := must(ada.Graph(ctx, "s1", 2))(t)
		want := must(ws.Graph(ctx, "s1", 2))(t)
		if diff := cmp.Diff(want, g); diff != "" {
			t.Errorf("graph differs (-lib +client):\n%s", diff)
		}
		n := must(ada.Neighborhood(ctx, "paper:"+doi, 1))(t)
		if n.Seed != "paper:"+doi || len(n.Nodes) < 3 {
			t.Errorf("neighborhood = %+v", n)
		}
		_, err := ada.Graph(ctx, "nope", 0)
		wantCode(t, err, api.CodeNotFound)
	})

	t.Run("Export", func(t *testing.T) {
		ex := must(ada.ExportSession(ctx, api.ExportRequest{SessionID: "s1", Steps: []api.StepRequest{
			{Agent: "a", Tool: "recall", Args: json.RawMessage(`{"question":"q"}`)}}, RecalledPapers: []string{doi}}))(t)
		if !ex.Written || ex.SessionID != "s1" {
			t.Errorf("export = %+v", ex)
		}
		must(ada.ExportSession(ctx, api.ExportRequest{SessionID: "s2"}))(t)
		page := must(ada.Exports(ctx, papermem.ExportQuery{Limit: 1}))(t)
		if page.Count != 1 || page.NextCursor == "" {
			t.Fatalf("page = %+v", page)
		}
		next := must(ada.Exports(ctx, papermem.ExportQuery{Limit: 1, Cursor: page.NextCursor}))(t)
		if next.Count != 1 || next.Records[0].SessionID == page.Records[0].SessionID {
			t.Errorf("next page = %+v", next)
		}
		rc := must(ada.ExportDownload(ctx, papermem.ExportQuery{SessionID: "s1"}))(t)
		defer rc.Close()
		sc := bufio.NewScanner(rc)
		var lines []papermem.SessionRecord
		for sc.Scan() {
			var rec papermem.SessionRecord
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, rec)
		}
		if len(lines) != 1 || lines[0].SessionID != "s1" || len(lines[0].Steps) != 1 {
			t.Errorf("download = %+v", lines)
		}
	})

	t.Run("Workspaces", func(t *testing.T) {
		us := must(ada.Users(ctx))(t)
		if us.Count != 1 || us.Current == nil || *us.Current != tok.User.UserID {
			t.Errorf("users = %+v", us)
		}
		cw := must(ada.CreateWorkspace(ctx, api.CreateWorkspaceRequest{WorkspaceID: "lab-ada-2", Name: "Second"}))(t)
		if cw.WorkspaceID != "lab-ada-2" || cw.APIKey == nil || cw.APIKey.Key == "" {
			t.Errorf("create workspace = %+v", cw)
		}
		list := must(ada.Workspaces(ctx))(t)
		if list.Current != "lab-ada" || len(list.Workspaces) != 2 {
			t.Errorf("workspaces = %+v", list)
		}
		_, err := ada.CreateWorkspace(ctx, api.CreateWorkspaceRequest{WorkspaceID: "lab-ada-2"})
		wantCode(t, err, api.CodeInvalidWorkspace)
	})

	t.Run("Keys", func(t *testing.T) {
		k := must(ada.CreateAPIKey(ctx, api.CreateKeyRequest{Name: "ci"}))(t)
		keys := must(ada.APIKeys(ctx))(t)
		found := false
		for _, kk := range keys.APIKeys {
			found = found || kk.KeyID == k.KeyID
		}
		if !found {
			t.Errorf("key %s not listed in %+v", k.KeyID, keys)
		}
		if r := must(ada.RevokeAPIKey(ctx, k.KeyID))(t); r.Revoked != k.KeyID {
			t.Errorf("revoke = %+v", r)
		}
		_, err := ada.WithToken(k.Key).Account(ctx)
		wantCode(t, err, api.CodeUnauthorized)
	})

	t.Run("Account", func(t *testing.T) {
		a := must(ada.Account(ctx))(t)
		if a.Plan.Slug != "starter" {
			t.Errorf("account plan = %+v", a.Plan)
		}
		up := must(ada.UpdateAccount(ctx, api.AccountPatch{Profile: &papermem.Profile{Name: "Ada L."}}))(t)
		if up.Profile.Name != "Ada L." {
			t.Errorf("update = %+v", up.Profile)
		}
		_, err := ada.UpdateAccount(ctx, api.AccountPatch{Plan: ptr("platinum")})
		wantCode(t, err, api.CodeUnknownPlan)
	})

	t.Run("Billing", func(t *testing.T) {
		co := must(ada.Checkout(ctx, api.CheckoutRequest{Plan: "team"}))(t)
		if co.Free || co.CheckoutID == "" || co.AmountCents != 4900 {
			t.Fatalf("checkout = %+v", co)
		}
		sig := hosted.SignPayment(paySecret, co.CheckoutID, "pay_1")
		conf := must(ada.ConfirmCheckout(ctx, api.ConfirmRequest{CheckoutID: co.CheckoutID, PaymentID: ptr("pay_1"), Signature: &sig}))(t)
		if !conf.Paid || conf.Account.Plan.Slug != "team" {
			t.Errorf("confirm = %+v", conf)
		}
		u := must(ada.Usage(ctx))(t)
		want := must(svc.Workspace("lab-ada").Usage(ctx))(t)
		if u.Counters["papers_stored"] != want.Counters["papers_stored"] || u.Counters["papers_stored"] < 2 {
			t.Errorf("usage = %+v, library %+v", u.Counters, want.Counters)
		}
		b := must(ada.Billing(ctx))(t)
		if b.TotalCents < 4900 {
			t.Errorf("bill = %+v", b)
		}
		an := must(ada.Analytics(ctx))(t)
		if an.Memory.Papers < 2 || an.Cache.Fetches != 1 {
			t.Errorf("analytics = %+v", an)
		}
	})

	t.Run("Admin", func(t *testing.T) {
		if !must(root.AdminMe(ctx))(t).IsFounder || must(ada.AdminMe(ctx))(t).IsFounder || must(anon.AdminMe(ctx))(t).IsFounder {
			t.Error("admin me is wrong")
		}
		o := must(root.AdminOverview(ctx))(t)
		if o.OrgCount < 3 || o.UserCount != 2 {
			t.Errorf("overview = %+v", o)
		}
		if w := must(root.AdminWorkspaces(ctx))(t); len(w.Workspaces) < 3 {
			t.Errorf("admin workspaces = %+v", w)
		}
		if u := must(root.AdminUsers(ctx))(t); len(u.Users) != 2 {
			t.Errorf("admin users = %+v", u)
		}
		if h := must(root.AdminHealth(ctx))(t); h.Status != "ok" {
			t.Errorf("admin health = %+v", h)
		}
		act := must(root.AdminActivity(ctx, "lab-ada"))(t)
		if act.WorkspaceID != "lab-ada" || len(act.Users) != 1 {
			t.Errorf("activity = %+v", act)
		}
		acc := must(root.AdminSetPlan(ctx, "lab-ada", api.SetPlanRequest{Tier: "enterprise"}))(t)
		if acc.Plan.Slug != "enterprise" {
			t.Errorf("set plan = %+v", acc.Plan)
		}
		u := must(root.AdminCreateUser(ctx, "lab-ada", api.CreateUserRequest{Email: "bob@example.org", Password: "bob password"}))(t)
		if u.WorkspaceID != "lab-ada" || u.Email != "bob@example.org" {
			t.Errorf("create user = %+v", u)
		}
		_, err := ada.AdminOverview(ctx)
		wantCode(t, err, api.CodeForbidden)
		if testdb.Postgres() {
			_, err = root.AdminBackup(ctx)
			wantCode(t, err, api.CodeUnsupportedFormat) // pg_dump backs PostgreSQL up
		} else {
			b := must(root.AdminBackup(ctx))(t)
			if st, err := os.Stat(b.Path); err != nil || filepath.Dir(b.Path) != backups || st.Size() != b.Bytes || b.Bytes == 0 {
				t.Errorf("backup = %+v (%v)", b, err)
			}
		}
		_, err = ada.AdminBackup(ctx)
		wantCode(t, err, api.CodeForbidden)
		_, err = root.AdminActivity(ctx, "no-such-lab")
		wantCode(t, err, api.CodeNotFound)

		bob := must(anon.Login(ctx, api.LoginRequest{Email: "bob@example.org", Password: "bob password"}))(t)
		if d := must(root.AdminDisableUser(ctx, "lab-ada", u.UserID))(t); !d.Disabled || d.UserID != u.UserID {
			t.Errorf("disable = %+v", d)
		}
		_, err = anon.WithToken(bob.AccessToken).Me(ctx)
		wantCode(t, err, api.CodeUnauthorized)
		_, err = anon.Login(ctx, api.LoginRequest{Email: "bob@example.org", Password: "bob password"})
		wantCode(t, err, api.CodeUnauthorized)
		if e := must(root.AdminEnableUser(ctx, "lab-ada", u.UserID))(t); e.Disabled {
			t.Errorf("enable = %+v", e)
		}
		must(anon.Login(ctx, api.LoginRequest{Email: "bob@example.org", Password: "bob password"}))(t)
		_, err = anon.WithToken(bob.AccessToken).Me(ctx)
		wantCode(t, err, api.CodeUnauthorized) // sessions from before the disabling stay ended
		_, err = ada.AdminDisableUser(ctx, "lab-ada", u.UserID)
		wantCode(t, err, api.CodeForbidden)
		_, err = root.AdminEnableUser(ctx, "lab-ada", "usr_none")
		wantCode(t, err, api.CodeNotFound)
	})

	t.Run("DeletePaper", func(t *testing.T) {
		if d := must(ada.DeletePaper(ctx, doi))(t); d.Deleted != doi {
			t.Errorf("delete = %+v", d)
		}
		if must(ada.PaperExists(ctx, doi))(t) {
			t.Error("deleted paper still exists")
		}
		_, err := ada.DeletePaper(ctx, doi)
		wantCode(t, err, api.CodeNotFound)
	})

	// Last: a password change and logout-all end ada's signup token too.
	t.Run("Sessions", func(t *testing.T) {
		login := func() *client.Client {
			t.Helper()
			r := must(anon.Login(ctx, api.LoginRequest{Email: "ada@example.org", Password: "correct horse"}))(t)
			return anon.WithToken(r.AccessToken)
		}
		one, two := login(), login()
		if out := must(one.Logout(ctx))(t); !out.LoggedOut {
			t.Errorf("logout = %+v", out)
		}
		_, err := one.Me(ctx)
		wantCode(t, err, api.CodeUnauthorized)
		must(two.Me(ctx))(t) // other sessions stay
		key := must(two.CreateAPIKey(ctx, api.CreateKeyRequest{Name: "sessions"}))(t)
		_, err = two.WithToken(key.Key).Logout(ctx)
		wantCode(t, err, api.CodeUnauthorized)

		_, err = two.ChangePassword(ctx, api.PasswordRequest{CurrentPassword: "wrong horse", NewPassword: "battery staple"})
		wantCode(t, err, api.CodeForbidden)
		pw := must(two.ChangePassword(ctx, api.PasswordRequest{CurrentPassword: "correct horse", NewPassword: "battery staple"}))(t)
		if pw.AccessToken == "" || pw.User.UserID != tok.User.UserID {
			t.Errorf("password = %+v", pw)
		}
		for _, old := range []*client.Client{ada, two} {
			_, err = old.Me(ctx)
			wantCode(t, err, api.CodeUnauthorized)
		}
		must(two.WithToken(key.Key).Account(ctx))(t) // API keys are not affected
		three := anon.WithToken(pw.AccessToken)
		must(three.Me(ctx))(t)

		if out := must(three.LogoutAll(ctx))(t); !out.LoggedOut {
			t.Errorf("logout-all = %+v", out)
		}
		_, err = three.Me(ctx)
		wantCode(t, err, api.CodeUnauthorized)
		must(anon.Login(ctx, api.LoginRequest{Email: "ada@example.org", Password: "battery staple"}))(t)
	})

	t.Run("Unauthenticated", func(t *testing.T) {
		_, err := anon.Recall(ctx, api.RecallRequest{Question: "q"})
		wantCode(t, err, api.CodeUnauthorized)
	})
}

// refusals are the statuses a client retries, with their API codes.
var refusals = map[int]string{http.StatusTooManyRequests: api.CodeRateLimited, http.StatusServiceUnavailable: api.CodeUnavailable}

// TestRetry checks that 429 and 503 are retried after Retry-After, a
// bounded number of times, and not at all when Retry-After is longer than
// MaxRetryWait.
func TestRetry(t *testing.T) {
	ctx := context.Background()
	svc, _ := server(t, httpapi.Config{})
	h := httpapi.New(svc, httpapi.Config{RateLimit: 1})
	var refuse, calls atomic.Int64
	var status atomic.Int64 // of the refusals
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if refuse.Add(-1) >= 0 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(int(status.Load()))
			io.WriteString(w, `{"error":{"code":"`+refusals[int(status.Load())]+`","message":"retry"}}`)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	for st, code := range refusals {
		status.Store(int64(st))
		t.Run(code+"/RetriedThenServed", func(t *testing.T) {
			refuse.Store(2)
			calls.Store(0)
			if _, err := client.New(srv.URL, nil).Health(ctx); err != nil {
				t.Fatal(err)
			}
			if calls.Load() != 3 {
				t.Errorf("%d calls, want 3", calls.Load())
			}
		})
		t.Run(code+"/Bounded", func(t *testing.T) {
			refuse.Store(100)
			calls.Store(0)
			_, err := client.New(srv.URL, &client.Options{MaxRetries: 2}).Health(ctx)
			wantCode(t, err, code)
			if calls.Load() != 3 {
				t.Errorf("%d calls, want 3 (one and two retries)", calls.Load())
			}
		})
	}
	t.Run("WaitTooLong", func(t *testing.T) {
		refuse.Store(0)
		tok := must(client.New(srv.URL, nil).Signup(ctx, api.SignupRequest{Email: "r@example.org", Password: "retry password"}))(t)
		c := client.New(srv.URL, &client.Options{Token: tok.AccessToken, MaxRetryWait: 5e9})
		must(c.Usage(ctx))(t) // the one request a minute
		calls.Store(0)
		_, err := c.Usage(ctx)
		wantCode(t, err, api.CodeRateLimited) // Retry-After is about 60 s: not waited for
		if calls.Load() != 1 {
			t.Errorf("%d calls, want 1", calls.Load())
		}
	})
}
