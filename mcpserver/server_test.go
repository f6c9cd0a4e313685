package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/fetch"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/mcpserver"
)

// The tools the issue names, exactly.
// (#42 added citation_gaps, citations, references and related_papers; #41 the
// library's get_paper, list_papers, delete_paper, delete_document,
// import_library and import_status.)
var toolNames = []string{"citation_gaps", "citations", "cite", "delete_document", "delete_paper", "export_session", "fetch_paper", "forget", "get_analysis", "get_paper", "graph", "import_library", "import_status", "ingest_file", "link_session", "list_papers", "paper_exists", "recall", "recall_papers", "recall_user", "references", "related_papers", "remember", "store_analysis", "store_paper"}

const doi = "10.1000/vitd"

var quiet = slog.New(slog.DiscardHandler)

// open returns a Memory over a real file that can fetch from loopback
// origins, and an origin serving a paper's text.
func open(t testing.TB) (*papermem.Memory, string) {
	t.Helper()
	m := testutil.Open(t, &papermem.Options{Fetcher: fetch.New(fetch.Options{AllowPrivate: true})})
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Statins lowered LDL cholesterol by 30 percent in adults (p < 0.001).")
	}))
	t.Cleanup(origin.Close)
	return m, origin.URL + "/statin.txt"
}

// connect runs server over an in-memory transport and returns the SDK
// client's session.
func connect(t testing.TB, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientSession(t, ct)
}

func clientSession(t testing.TB, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// headers adds fixed headers to every request.
type headers struct {
	h    map[string]string
	next http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}

// overHTTP connects the SDK's Streamable HTTP client to /mcp of srv with
// the given headers.
func overHTTP(t *testing.T, srv *httptest.Server, h map[string]string) *mcp.ClientSession {
	t.Helper()
	return clientSession(t, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: headers{h: h, next: http.DefaultTransport}}})
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok calls a tool that must succeed and decodes its structured content.
func ok[T any](t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (T, string) {
	t.Helper()
	res := call(t, cs, name, args)
	var out T
	if res.IsError {
		t.Fatalf("%s failed: %s", name, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return out, text(res)
}

// fails calls a tool that must fail with the API's code.
func fails(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, code string) {
	t.Helper()
	res := call(t, cs, name, args)
	var body api.ErrorBody
	if !res.IsError || json.Unmarshal([]byte(text(res)), &body) != nil || body.Error.Code != code || body.Error.Message == "" {
		t.Fatalf("%s: got %s (isError %v), want a tool error with code %s", name, text(res), res.IsError, code)
	}
}

// exercise calls every tool once and checks what each answers and what it
// left in memory. file names the ingest_file arguments to use.
func exercise(t *testing.T, cs *mcp.ClientSession, sourceURL string, file map[string]any) {
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tl.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, toolNames) {
		t.Fatalf("tools = %v, want %v", names, toolNames)
	}

	stored, txt := ok[api.StorePaperResponse](t, cs, "store_paper", map[string]any{"doi": doi, "title": "Vitamin D and fractures",
		"text": "## Results\n\nVitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98)."})
	want := fmt.Sprintf("Stored paper doi:%s \"Vitamin D and fractures\": %d characters, 1 section, %d nodes, 1 claim.",
		doi, stored.Report.CharsRead, stored.Report.NodesStored)
	if stored.DOI != doi || stored.Report.NodesStored < 2 || stored.Report.ClaimsFound != 1 || txt != want {
		t.Errorf("store_paper = %+v, %q, want %q", stored, txt, want)
	}
	if ex, _ := ok[api.ExistsResponse](t, cs, "paper_exists", map[string]any{"doi": doi}); !ex.Exists {
		t.Error("paper_exists: false after store_paper")
	}
	type cited struct{ DOI, Format, Citation string }
	if c, txt := ok[cited](t, cs, "cite", map[string]any{"doi": "DOI:10.1000/VitD", "format": "RIS"}); c.DOI != doi || c.Format != "ris" ||
		txt != c.Citation || !strings.HasPrefix(txt, "TY  - JOUR\r\nTI  - Vitamin D and fractures\r\n") || !strings.Contains(txt, "\r\nDO  - "+doi+"\r\n") {
		t.Errorf("cite as RIS = %+v, %q", c, txt)
	}
	if c, _ := ok[cited](t, cs, "cite", map[string]any{"doi": doi}); c.Format != "bibtex" || !strings.HasPrefix(c.Citation, "@article{") {
		t.Errorf("cite = %+v", c)
	}
	fails(t, cs, "cite", map[string]any{"doi": doi, "format": "apa"}, api.CodeInvalidInput)
	fails(t, cs, "cite", map[string]any{"doi": "10.1000/none"}, api.CodeNotFound)
	rec, txt := ok[papermem.RecallResult](t, cs, "recall", map[string]any{"question": "Does vitamin D prevent fractures?",
		"budget_tokens": 300, "label": "Any", "keywords": []string{"fracture"}, "scope_signals": []string{"evidence"}})
	if len(rec.Spans) == 0 || rec.TotalTokens > 300 {
		t.Fatalf("recall = %+v", rec)
	}
	for _, s := range rec.Spans {
		if !strings.Contains(txt, s.Provenance.Citation()) {
			t.Errorf("recall text does not cite span %d: %q not in %q", s.NodeID, s.Provenance.Citation(), txt)
		}
	}
	if !strings.Contains(txt, "Vitamin D and fractures, doi:"+doi) {
		t.Errorf("recall text lacks the title and DOI: %q", txt)
	}
	fails(t, cs, "recall", map[string]any{"question": "q", "budget_tokens": 0}, api.CodeInvalidInput)

	ok[api.StorePaperResponse](t, cs, "store_paper", map[string]any{"doi": "10.1000/statin", "title": "Statins", "source_url": sourceURL})
	if f, _ := ok[papermem.FetchResult](t, cs, "fetch_paper", map[string]any{"doi": "10.1000/statin"}); f.Source != "origin" || f.Bytes == 0 {
		t.Errorf("fetch_paper = %+v", f)
	}
	// Scoped by dois, recall keeps to those papers; a DOI not in memory
	// matches nothing.
	for _, scope := range []string{doi, "10.1000/statin"} {
		rec, _ := ok[papermem.RecallResult](t, cs, "recall", map[string]any{"question": "Do vitamin D or statins lower risk in adults?",
			"label": "Any", "dois": []string{scope}})
		if len(rec.Spans) == 0 {
			t.Errorf("recall scoped to %s: no spans", scope)
		}
		for _, s := range rec.Spans {
			if s.Provenance.DOI != scope {
				t.Errorf("recall scoped to %s: span of %s", scope, s.Provenance.DOI)
			}
		}
	}
	if rec, _ := ok[papermem.RecallResult](t, cs, "recall", map[string]any{"question": "vitamin D", "dois": []string{"10.9999/absent"}}); len(rec.Spans) != 0 {
		t.Errorf("recall scoped to an absent DOI: %+v", rec.Spans)
	}
	fails(t, cs, "recall", map[string]any{"question": "q", "dois": []string{"not a doi"}}, api.CodeInvalidInput)

	papers, txt := ok[struct{ Papers []papermem.Paper }](t, cs, "recall_papers", map[string]any{"query": "statins LDL cholesterol", "limit": 5})
	if len(papers.Papers) == 0 || papers.Papers[0].DOI != "10.1000/statin" || !strings.Contains(txt, "doi:10.1000/statin") {
		t.Errorf("recall_papers = %+v, %q", papers, txt)
	}
	// fill lists the papers the stop leaves out after the best one.
	stopped, _ := ok[struct{ Papers []papermem.Paper }](t, cs, "recall_papers", map[string]any{"query": "vitamin D fracture risk statins", "limit": 5})
	filled, _ := ok[struct{ Papers []papermem.Paper }](t, cs, "recall_papers", map[string]any{"query": "vitamin D fracture risk statins", "limit": 5, "fill": true})
	if len(stopped.Papers) == 0 || len(filled.Papers) <= len(stopped.Papers) {
		t.Errorf("recall_papers lists %d papers, %d with fill; want more with fill", len(stopped.Papers), len(filled.Papers))
	}

	rep, _ := ok[papermem.IngestReport](t, cs, "ingest_file", file)
	if rep.Kind != "document" || rep.NodesStored == 0 {
		t.Errorf("ingest_file = %+v", rep)
	}
	fails(t, cs, "ingest_file", map[string]any{"name": "x.exe", "content_base64": base64.StdEncoding.EncodeToString([]byte("MZ"))}, api.CodeUnsupportedFormat)

	if a, _ := ok[api.StoredAnalysis](t, cs, "store_analysis", map[string]any{"doi": doi, "markdown": "# Appraisal\n\nUnderpowered for hip fractures."}); !a.Stored {
		t.Errorf("store_analysis = %+v", a)
	}
	if a, txt := ok[papermem.Analysis](t, cs, "get_analysis", map[string]any{"doi": doi}); !strings.Contains(a.Markdown, "Underpowered") || !strings.Contains(txt, "Underpowered") {
		t.Errorf("get_analysis = %+v", a)
	}
	fails(t, cs, "get_analysis", map[string]any{"doi": "10.1000/none"}, api.CodeNotFound)

	if r, _ := ok[papermem.Remembered](t, cs, "remember", map[string]any{"key": "style", "text": "Ada wants effect sizes with confidence intervals."}); r.Key != "style" {
		t.Errorf("remember = %+v", r)
	}
	ur, txt := ok[papermem.RecallResult](t, cs, "recall_user", map[string]any{"question": "How does Ada like answers?"})
	if len(ur.Spans) == 0 || !strings.Contains(txt, `memory "style"`) {
		t.Errorf("recall_user = %+v, %q", ur, txt)
	}
	if d, _ := ok[api.DeletedResponse](t, cs, "forget", map[string]any{"key": "style"}); d.Deleted != "style" {
		t.Errorf("forget = %+v", d)
	}
	fails(t, cs, "forget", map[string]any{"key": "style"}, api.CodeNotFound)

	if l, _ := ok[papermem.SessionLinks](t, cs, "link_session", map[string]any{"session_id": "s1", "papers": []string{doi}, "claims": []int64{rec.Spans[0].NodeID}}); l.LinkedPapers != 1 || l.LinkedClaims != 1 {
		t.Errorf("link_session = %+v", l)
	}
	if e, _ := ok[papermem.Exported](t, cs, "export_session", map[string]any{"session_id": "s1",
		"steps": []map[string]any{{"agent": "a", "tool": "recall", "args": map[string]any{"question": "q"}}}}); !e.Written {
		t.Errorf("export_session = %+v", e)
	}
	g, txt := ok[papermem.Subgraph](t, cs, "graph", map[string]any{"seed_session": "s1", "hops": 2})
	ids := map[string]bool{}
	for _, n := range g.Nodes {
		ids[n.ID] = true
	}
	if !ids["session:s1"] || !ids["paper:"+doi] || !strings.Contains(txt, "paper:"+doi) {
		t.Errorf("graph = %+v", g)
	}
	fails(t, cs, "graph", map[string]any{"seed_session": "nope"}, api.CodeNotFound)

	// The document ingested above, its number written with a leading zero:
	// the answer names it as documents lists it (doc:<n>), as HTTP does.
	padded := "doc:0" + strings.TrimPrefix(rep.DocID, "doc:")
	if d, _ := ok[api.DeletedResponse](t, cs, "delete_document", map[string]any{"doc_id": padded}); d.Deleted != rep.DocID {
		t.Errorf("delete_document %s = %+v, want %s", padded, d, rep.DocID)
	}
}

// markdown is a file for ingest_file.
const markdown = "# Night shifts\n\nCoffee raised alertness in 40 of 50 night-shift nurses."

func contentArgs() map[string]any {
	return map[string]any{"name": "notes.md", "domain": "sleep", "content_base64": base64.StdEncoding.EncodeToString([]byte(markdown))}
}

func TestInProcess(t *testing.T) {
	m, src := open(t)
	path := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(path, []byte(markdown), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(mcpserver.Local(m.Workspace("lab-ada"), "ada"), &mcpserver.Options{Files: true, Logger: quiet}))
	exercise(t, cs, src, map[string]any{"path": path, "domain": "sleep"})

	t.Run("ErrMissingUser", func(t *testing.T) {
		cs := connect(t, mcpserver.New(mcpserver.Local(m.Workspace("lab-ada"), ""), nil))
		fails(t, cs, "remember", map[string]any{"text": "no user"}, api.CodeMissingUserID)
		fails(t, cs, "recall_user", map[string]any{"question": "q"}, api.CodeMissingUserID)
	})
	t.Run("ErrPathOverHTTP", func(t *testing.T) {
		cs := connect(t, mcpserver.New(mcpserver.Local(m.Workspace("lab-ada"), "ada"), nil))
		fails(t, cs, "ingest_file", map[string]any{"path": path}, api.CodeInvalidInput)
	})
}

// TestRemote drives the server over a client.Client of a running server,
// as `papermem mcp --url` does.
func TestRemote(t *testing.T) {
	m, src := open(t)
	srv := httptest.NewServer(httpapi.New(testutil.Hosted(t, m, nil), httpapi.Config{Logger: quiet}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	tok, err := client.New(srv.URL, nil).Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(srv.URL, &client.Options{Token: tok.AccessToken})
	cs := connect(t, mcpserver.New(c, nil))
	exercise(t, cs, src, contentArgs())
	if ok, err := m.Workspace(tok.User.WorkspaceID).PaperExists(ctx, doi); err != nil || !ok {
		t.Errorf("the paper is not in the token's workspace: %v %v", ok, err)
	}
}

// TestHTTP drives /mcp of the real server with the SDK's Streamable HTTP
// client.
func TestHTTP(t *testing.T) {
	m, src := open(t)
	svc := testutil.Hosted(t, m, nil)
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{Logger: quiet}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	anon := client.New(srv.URL, nil)
	ada, err := anon.Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse", WorkspaceID: "lab-ada"})
	if err != nil {
		t.Fatal(err)
	}
	cs := overHTTP(t, srv, map[string]string{"Authorization": "Bearer " + ada.AccessToken})
	exercise(t, cs, src, contentArgs())

	t.Run("OtherWorkspaceSeesNothing", func(t *testing.T) {
		bob, err := anon.Signup(ctx, api.SignupRequest{Email: "bob@example.org", Password: "bob password", WorkspaceID: "lab-bob"})
		if err != nil {
			t.Fatal(err)
		}
		cs := overHTTP(t, srv, map[string]string{"Authorization": "Bearer " + bob.AccessToken})
		if rec, _ := ok[papermem.RecallResult](t, cs, "recall", map[string]any{"question": "Does vitamin D prevent fractures?", "label": "Any"}); len(rec.Spans) != 0 {
			t.Errorf("another workspace recalled %d spans", len(rec.Spans))
		}
		if ex, _ := ok[api.ExistsResponse](t, cs, "paper_exists", map[string]any{"doi": doi}); ex.Exists {
			t.Error("another workspace sees the paper")
		}
		if ps, _ := ok[struct{ Papers []papermem.Paper }](t, cs, "recall_papers", map[string]any{"query": "vitamin D"}); len(ps.Papers) != 0 {
			t.Errorf("another workspace ranks %d papers", len(ps.Papers))
		}
		fails(t, cs, "get_analysis", map[string]any{"doi": doi}, api.CodeNotFound)
		fails(t, cs, "graph", map[string]any{"seed_session": "s1"}, api.CodeNotFound)
		fails(t, cs, "fetch_paper", map[string]any{"doi": "10.1000/statin"}, api.CodeNotFound)
	})

	t.Run("ErrMissingUser", func(t *testing.T) {
		key, err := anon.WithToken(ada.AccessToken).CreateAPIKey(ctx, api.CreateKeyRequest{Name: "agent"})
		if err != nil {
			t.Fatal(err)
		}
		cs := overHTTP(t, srv, map[string]string{"Authorization": "Bearer " + key.Key})
		fails(t, cs, "remember", map[string]any{"text": "no user"}, api.CodeMissingUserID)
		if rec, _ := ok[papermem.RecallResult](t, cs, "recall", map[string]any{"question": "vitamin D fractures", "label": "Any"}); len(rec.Spans) == 0 {
			t.Error("an API key of the workspace recalls nothing")
		}
		cs = overHTTP(t, srv, map[string]string{"Authorization": "Bearer " + key.Key, "X-User-Id": ada.User.UserID})
		if r, _ := ok[papermem.Remembered](t, cs, "remember", map[string]any{"text": "via key"}); r.Key == "" {
			t.Errorf("remember with X-User-Id = %+v", r)
		}
	})

	t.Run("ErrNoCredential", func(t *testing.T) {
		list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		h, _ := wantHTTPError(t, srv.URL, nil, list, http.StatusUnauthorized, api.CodeUnauthorized)
		if got := h.Get("WWW-Authenticate"); got != `Bearer realm="papermem"` {
			t.Errorf("no credential: WWW-Authenticate %q", got)
		}
		h, _ = wantHTTPError(t, srv.URL, map[string]string{"Authorization": "Bearer pm_not-a-key"}, list, http.StatusUnauthorized, api.CodeUnauthorized)
		if got := h.Get("WWW-Authenticate"); got != `Bearer realm="papermem", error="invalid_token"` {
			t.Errorf("invalid credential: WWW-Authenticate %q", got)
		}

		// The SDK's client is refused with the same challenge.
		rec := &recorder{next: http.DefaultTransport}
		_, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: rec}}, nil)
		if err == nil {
			t.Fatal("the SDK's client connected without a credential")
		}
		if rec.status != http.StatusUnauthorized || rec.header.Get("WWW-Authenticate") != `Bearer realm="papermem"` {
			t.Errorf("SDK client without a credential: %d, WWW-Authenticate %q (%v)", rec.status, rec.header.Get("WWW-Authenticate"), err)
		}
	})

	// Refusals of the transport itself are the API's error body too.
	t.Run("ErrTransport", func(t *testing.T) {
		auth := "Bearer " + ada.AccessToken
		both := "application/json, text/event-stream"
		ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		for name, tt := range map[string]struct {
			h      map[string]string
			body   string
			status int
			code   string
			msg    string
		}{
			"NoAccept":        {map[string]string{"Authorization": auth}, ping, http.StatusBadRequest, api.CodeInvalidInput, "Accept must contain"},
			"AcceptJSONOnly":  {map[string]string{"Authorization": auth, "Accept": "application/json"}, ping, http.StatusBadRequest, api.CodeInvalidInput, "text/event-stream"},
			"ContentType":     {map[string]string{"Authorization": auth, "Accept": both, "Content-Type": "text/plain"}, ping, http.StatusUnsupportedMediaType, api.CodeUnsupportedFormat, "Content-Type"},
			"MalformedJSON":   {map[string]string{"Authorization": auth, "Accept": both}, `{"jsonrpc":`, http.StatusBadRequest, api.CodeInvalidInput, "alformed"},
			"ProtocolVersion": {map[string]string{"Authorization": auth, "Accept": both, "MCP-Protocol-Version": "1999-01-01"}, ping, http.StatusBadRequest, api.CodeInvalidInput, "protocol version"},
		} {
			t.Run(name, func(t *testing.T) {
				h, msg := wantHTTPError(t, srv.URL, tt.h, tt.body, tt.status, tt.code)
				if !strings.Contains(msg, tt.msg) || !strings.HasSuffix(msg, ".") || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
					t.Errorf("message %q (Content-Type %q), want one naming %q", msg, h.Get("Content-Type"), tt.msg)
				}
			})
		}
	})

	t.Run("ErrTooLarge", func(t *testing.T) {
		small := testutil.OpenHosted(t, &papermem.Options{MaxIngestBytes: 1024}, nil)
		srv := httptest.NewServer(httpapi.New(small, httpapi.Config{Logger: quiet}))
		t.Cleanup(srv.Close)
		tok, err := client.New(srv.URL, nil).Signup(ctx, api.SignupRequest{Email: "ada@example.org", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		auth := map[string]string{"Authorization": "Bearer " + tok.AccessToken}
		cs := overHTTP(t, srv, auth)
		big := strings.Repeat("Coffee raised alertness. ", 60) // 1500 bytes, over the 1 KiB limit
		fails(t, cs, "ingest_file", map[string]any{"name": "big.txt", "content_base64": base64.StdEncoding.EncodeToString([]byte(big))}, api.CodePayloadTooLarge)
		if an, err := small.Workspace(tok.User.WorkspaceID).Analytics(ctx); err != nil || an.Memory.Documents != 0 {
			t.Errorf("a refused file left %+v (%v)", an.Memory, err)
		}

		huge := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ingest_file","arguments":{"name":"x.txt","content_base64":"` +
			strings.Repeat("A", 128<<10) + `"}}}`
		wantHTTPError(t, srv.URL, auth, huge, http.StatusRequestEntityTooLarge, api.CodePayloadTooLarge)
	})

	t.Run("RateLimited", func(t *testing.T) {
		limited := httptest.NewServer(httpapi.New(svc, httpapi.Config{RateLimit: 2, Logger: quiet}))
		t.Cleanup(limited.Close)
		hc := &http.Client{Transport: headers{h: map[string]string{"Authorization": "Bearer " + ada.AccessToken,
			"Accept": "application/json, text/event-stream"}, next: http.DefaultTransport}}
		var last int
		for range 3 {
			res, err := hc.Post(limited.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			last = res.StatusCode
		}
		if last != http.StatusTooManyRequests {
			t.Errorf("third request of a 2/min credential: %d, want 429", last)
		}
	})
}

// wantHTTPError posts body to /mcp of base with headers h and checks the
// answer is the API's error body with status and code. It returns the
// answer's headers and message.
func wantHTTPError(t *testing.T, base string, h map[string]string, body string, status int, code string) (http.Header, string) {
	t.Helper()
	hc := &http.Client{Transport: headers{h: h, next: http.DefaultTransport}}
	res, err := hc.Post(base+"/mcp", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var eb api.ErrorBody
	if err := json.NewDecoder(res.Body).Decode(&eb); err != nil || res.StatusCode != status || eb.Error.Code != code || eb.Error.Message == "" {
		t.Errorf("POST /mcp: %d %+v %v, want %d %s", res.StatusCode, eb, err, status, code)
	}
	return res.Header, eb.Error.Message
}

// recorder keeps the status and headers of the last response.
type recorder struct {
	next   http.RoundTripper
	status int
	header http.Header
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.next.RoundTrip(req)
	if err == nil {
		r.status, r.header = res.StatusCode, res.Header
	}
	return res, err
}
