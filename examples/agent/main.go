// Command agent is a small research agent that keeps its memory in
// papermem, talking to it over the /v1 HTTP API the way a tool-calling LLM
// agent framework would: JSON over HTTP, an API key, and X-User-Id for the
// person it works for. It needs no network and no model:
//
//	go run ./examples/agent
//
// starts papermem in-process on a loopback port (a fresh database in a
// temporary directory, removed on exit) and prints a transcript of five
// steps:
//
//  1. credentials: sign up, create an API key for the agent, and from then
//     on send that key with X-User-Id, as an agent process would;
//  2. a literature memory: seven abstracts on sleep and memory
//     consolidation stored in one batch, the lab's journal-club notes
//     ingested as a Markdown file (multipart POST /v1/ingest), and the
//     agent's analysis of one paper;
//  3. two research questions answered from memory within a 300-token
//     budget, with scope signals, printed as a cited answer skeleton
//     ("[1] span — title, DOI, section, chars a–b") that a model would
//     turn into prose;
//  4. a user preference remembered, then recalled in a later session
//     (a new connection with the same credential) and applied;
//  5. the session record exported (its steps and the papers and claims it
//     recalled), the later session linked, related sessions materialised,
//     and the session graph's nodes and edges counted.
//
// With -base URL it talks to a running server instead, signing up there,
// or with -key KEY (and -user ID, default the workspace's first user)
// working in an existing workspace.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// Names the agent uses for itself and its two sessions.
const (
	agentName       = "research-agent"
	firstSession    = "sleep-review"
	followUpSession = "sleep-followup"
	budget          = 300 // tokens of evidence per question
)

// run parses args, starts papermem in-process unless -base is given, and
// runs the agent, writing its transcript to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	base := fs.String("base", "", "URL of a running papermem server; empty starts one in-process on a loopback port")
	key := fs.String("key", "", "API key of an existing workspace (with -base); empty signs up a new account")
	user := fs.String("user", "", "user id sent as X-User-Id with -key; empty means the workspace's first user")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *key != "" && *base == "":
		return errors.New("-key needs -base: an in-process server starts empty")
	case *user != "" && *key == "":
		return errors.New("-user needs -key: a new account's user is the one signed up")
	}
	if *base == "" {
		url, stop, err := serve(ctx)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stop()) }()
		*base = url
		fmt.Fprintf(stdout, "papermem serving in-process at %s (temporary database)\n", url)
	} else {
		fmt.Fprintf(stdout, "papermem at %s\n", *base)
	}

	a := &agent{out: stdout, c: &client{base: strings.TrimRight(*base, "/"), trace: stdout,
		http: &http.Client{Timeout: 2 * time.Minute}}}
	for _, step := range []func(context.Context) error{
		func(ctx context.Context) error { return a.credentials(ctx, *key, *user) },
		a.buildMemory,
		a.answerQuestions,
		a.rememberPreference,
		a.exportAndGraph,
	} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// serve starts papermem on 127.0.0.1 over a database in a new temporary
// directory. stop shuts the server down, closes the database and removes
// the directory.
func serve(ctx context.Context) (baseURL string, stop func() error, err error) {
	dir, err := os.MkdirTemp("", "papermem-agent-")
	if err != nil {
		return "", nil, err
	}
	quiet := slog.New(slog.DiscardHandler) // the transcript is the output
	m, err := papermem.Open(ctx, filepath.Join(dir, "papermem.db"), &papermem.Options{Logger: quiet})
	if err != nil {
		return "", nil, errors.Join(err, os.RemoveAll(dir))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, errors.Join(err, m.Close(), os.RemoveAll(dir))
	}
	srv := &http.Server{Handler: httpapi.New(m, httpapi.Config{Logger: quiet}), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stop = func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return errors.Join(err, m.Close(), os.RemoveAll(dir))
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// client calls the /v1 API with a bearer credential and, for per-user
// memory, X-User-Id. It prints each call to trace.
type client struct {
	base  string
	token string // Authorization: Bearer; an API key after step 1
	user  string // X-User-Id; sent only with an API key
	http  *http.Client
	trace io.Writer
}

// apiError is an error answer: {"error":{"code","message"}}.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// call sends in as JSON (nil: no body) and decodes the answer into out
// (nil: discarded).
func (c *client) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.send(req, out)
}

// upload posts a file and form fields as multipart/form-data.
func (c *client) upload(ctx context.Context, path, filename string, content []byte, fields map[string]string, out any) error {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			return err
		}
	}
	part, err := mw.CreateFormFile("file", filename)
	if err != nil {
		return err
	}
	if _, err := part.Write(content); err != nil {
		return err
	}
	if err := mw.Close(); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.send(req, out)
}

func (c *client) send(req *http.Request, out any) error {
	fmt.Fprintf(c.trace, "  → %s %s\n", req.Method, req.URL.RequestURI())
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.user != "" {
		req.Header.Set("X-User-Id", c.user)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || e.Error.Code == "" {
			return &apiError{Status: resp.StatusCode, Code: "unexpected", Message: resp.Status}
		}
		return &apiError{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
	}
	if out == nil {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", req.Method, req.URL.Path, err)
	}
	return nil
}

// The wire shapes the agent reads (see GET /v1/openapi.json).
type (
	recallRequest struct {
		Question     string   `json:"question"`
		Keywords     []string `json:"keywords,omitempty"`
		Label        string   `json:"label,omitempty"`
		BudgetTokens int      `json:"budget_tokens"`
		SectionTypes []string `json:"section_types,omitempty"`
		ScopeSignals []string `json:"scope_signals,omitempty"`
	}
	provenance struct {
		Kind      string `json:"kind"`
		DOI       string `json:"doi"`
		Title     string `json:"title"`
		Source    string `json:"source"`
		Section   string `json:"section"`
		Page      int    `json:"page"`
		CharStart int    `json:"char_start"`
		CharEnd   int    `json:"char_end"`
		Key       string `json:"key"`
	}
	span struct {
		NodeID     int64      `json:"node_id"`
		Label      string     `json:"label"`
		Text       string     `json:"text"`
		Score      float64    `json:"score"`
		Tokens     int        `json:"tokens"`
		Provenance provenance `json:"provenance"`
	}
	recallResult struct {
		Spans       []span `json:"spans"`
		TotalTokens int    `json:"total_tokens"`
	}
	step struct {
		Agent     string `json:"agent"`
		Tool      string `json:"tool"`
		Args      any    `json:"args"`
		ResultRef string `json:"result_ref"`
	}
)

// agent is the research agent's state: its connection to papermem, the
// steps of its first session and what that session recalled.
type agent struct {
	out    io.Writer
	c      *client
	steps  []step
	papers []string // DOIs the first session's answers cite, in order
	claims []int64  // node ids of the spans it recalled
}

func (a *agent) section(title string) { fmt.Fprintf(a.out, "\n%s\n", title) }

func (a *agent) say(format string, args ...any) {
	fmt.Fprintf(a.out, "    "+format+"\n", args...)
}

// record adds a tool call to the first session's record.
func (a *agent) record(tool string, args any, resultRef string) {
	a.steps = append(a.steps, step{Agent: agentName, Tool: tool, Args: args, ResultRef: resultRef})
}

// credentials signs up and switches to a new API key, or adopts the given
// key and user.
func (a *agent) credentials(ctx context.Context, key, user string) error {
	a.section("1. Credentials")
	if key != "" {
		a.c.token = key
		if user == "" {
			var users struct {
				Users []struct {
					UserID string `json:"user_id"`
				} `json:"users"`
			}
			if err := a.c.call(ctx, http.MethodGet, "/v1/users", nil, &users); err != nil {
				return err
			}
			if len(users.Users) == 0 {
				return errors.New("the key's workspace has no user; pass -user")
			}
			user = users.Users[0].UserID
		}
		a.c.user = user
		a.say("using the given API key with X-User-Id: %s", user)
		return nil
	}

	var signup struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		User        struct {
			UserID string `json:"user_id"`
			OrgID  string `json:"org_id"`
			Email  string `json:"email"`
		} `json:"user"`
	}
	email := "ada-" + randomHex(4) + "@example.org"
	err := a.c.call(ctx, http.MethodPost, "/v1/auth/signup", map[string]string{"email": email,
		"password": randomHex(16), "name": "Ada", "workspace_name": "Sleep lab"}, &signup)
	if err != nil {
		return err
	}
	a.say("signed up %s: user %s, workspace %s, session token for %s",
		signup.User.Email, signup.User.UserID, signup.User.OrgID, time.Duration(signup.ExpiresIn)*time.Second)
	a.c.token = signup.AccessToken

	var k struct {
		KeyID  string `json:"key_id"`
		Prefix string `json:"prefix"`
		Key    string `json:"key"`
	}
	if err := a.c.call(ctx, http.MethodPost, "/v1/account/api-keys", map[string]string{"name": agentName}, &k); err != nil {
		return err
	}
	a.c.token, a.c.user = k.Key, signup.User.UserID
	a.say("API key %s (%s…) created for %s; its value is shown once and kept only in this process", k.KeyID, k.Prefix, agentName)
	a.say("from now on: Authorization: Bearer <API key>, X-User-Id: %s", a.c.user)
	return nil
}

// buildMemory stores the abstracts, ingests the notes and stores an
// analysis.
func (a *agent) buildMemory(ctx context.Context) error {
	a.section("2. Literature memory")
	var batch struct {
		Ingested    int   `json:"ingested"`
		Failed      int   `json:"failed"`
		Errors      []any `json:"errors"`
		NodesStored int   `json:"nodes_stored"`
		ClaimsFound int   `json:"claims_found"`
	}
	if err := a.c.call(ctx, http.MethodPost, "/v1/papers/batch", map[string]any{"papers": papers}, &batch); err != nil {
		return err
	}
	if batch.Failed > 0 {
		return fmt.Errorf("%d papers refused: %v", batch.Failed, batch.Errors)
	}
	a.say("%d abstracts stored: %d nodes, %d claims found", batch.Ingested, batch.NodesStored, batch.ClaimsFound)
	dois := make([]string, len(papers))
	for i, p := range papers {
		dois[i] = p.DOI
	}
	a.record("papermem.store_papers", map[string]any{"dois": dois}, fmt.Sprintf("batch: %d papers, %d nodes", batch.Ingested, batch.NodesStored))

	var rep struct {
		DocID       string `json:"doc_id"`
		Kind        string `json:"kind"`
		Format      string `json:"format"`
		Sections    int    `json:"sections"`
		NodesStored int    `json:"nodes_stored"`
		ClaimsFound int    `json:"claims_found"`
	}
	notes := notesMarkdown()
	if err := a.c.upload(ctx, "/v1/ingest", notesFile, []byte(notes), map[string]string{"domain": domain}, &rep); err != nil {
		return err
	}
	a.say("%s ingested as %s %s (%s): %d sections, %d nodes, %d claims",
		notesFile, rep.Kind, rep.DocID, rep.Format, rep.Sections, rep.NodesStored, rep.ClaimsFound)
	a.record("papermem.ingest", map[string]any{"file": notesFile, "domain": domain, "bytes": len(notes)}, rep.DocID)

	var stored struct {
		DOI             string `json:"doi"`
		ClaimsExtracted int    `json:"claims_extracted"`
	}
	if err := a.c.call(ctx, http.MethodPost, "/v1/analysis", analysis, &stored); err != nil {
		return err
	}
	a.say("analysis of %s stored: %d claims", stored.DOI, stored.ClaimsExtracted)
	a.record("papermem.store_analysis", map[string]any{"doi": stored.DOI}, "analysis:"+stored.DOI)
	return nil
}

// The first session's research questions.
var questions = []recallRequest{
	{Question: "Does closed-loop auditory stimulation during slow-wave sleep improve overnight memory retention?",
		BudgetTokens: budget, SectionTypes: []string{"results", "conclusion"}, ScopeSignals: []string{"evidence", "mechanisms"}},
	{Question: "How reliable is the evidence that sleep loss or naps change memory in humans?",
		BudgetTokens: budget, ScopeSignals: []string{"reliability", "limitations"}},
}

// answerQuestions recalls evidence for each question and prints it as a
// cited answer skeleton.
func (a *agent) answerQuestions(ctx context.Context) error {
	a.section("3. Research questions")
	for i, q := range questions {
		res, err := a.ask(ctx, fmt.Sprintf("Q%d", i+1), q)
		if err != nil {
			return err
		}
		ref := make([]string, len(res.Spans))
		for j, s := range res.Spans {
			ref[j] = fmt.Sprint(s.NodeID)
			a.claims = appendNew(a.claims, s.NodeID)
			if s.Provenance.Kind == "paper" {
				a.papers = appendNew(a.papers, s.Provenance.DOI)
			}
		}
		a.record("papermem.recall", q, fmt.Sprintf("Q%d: nodes %s (%d tokens)", i+1, strings.Join(ref, ","), res.TotalTokens))
	}
	return nil
}

// ask recalls evidence for q, checks the budget invariant and prints the
// spans as numbered citations.
func (a *agent) ask(ctx context.Context, name string, q recallRequest) (*recallResult, error) {
	fmt.Fprintf(a.out, "  %s: %s\n", name, q.Question)
	var res recallResult
	if err := a.c.call(ctx, http.MethodPost, "/v1/recall", q, &res); err != nil {
		return nil, err
	}
	sum := 0
	for i, s := range res.Spans {
		sum += s.Tokens
		a.say("[%d] %s — %s", i+1, s.Text, cite(s.Provenance))
	}
	if sum != res.TotalTokens || res.TotalTokens > q.BudgetTokens {
		return nil, fmt.Errorf("%s: total_tokens %d, spans sum to %d, budget %d", name, res.TotalTokens, sum, q.BudgetTokens)
	}
	a.say("%d spans, total_tokens %d ≤ budget_tokens %d (scope_signals %s)",
		len(res.Spans), res.TotalTokens, q.BudgetTokens, strings.Join(q.ScopeSignals, ", "))
	return &res, nil
}

// cite formats a span's provenance as a reference a reader can follow.
func cite(p provenance) string {
	var parts []string
	section := p.Section
	// trim drops a section's lead when it repeats what the citation names.
	trim := func(lead string) { section = strings.TrimLeft(strings.TrimPrefix(section, lead), " >") }
	switch p.Kind {
	case "paper":
		parts = append(parts, p.Title, p.DOI)
	case "analysis":
		parts = append(parts, "analysis of "+p.DOI)
	case "document":
		parts = append(parts, p.Title+" ("+p.Source+")")
		trim(p.Title)
	default:
		parts = append(parts, p.Kind+" "+p.Key)
	}
	if section != "" {
		parts = append(parts, section)
	}
	if p.Page > 0 {
		parts = append(parts, fmt.Sprintf("p. %d", p.Page))
	}
	parts = append(parts, fmt.Sprintf("chars %d–%d", p.CharStart, p.CharEnd))
	return strings.Join(parts, ", ")
}

// rememberPreference stores the user's preference, then, as a later
// session would, recalls it and applies it to a follow-up question.
func (a *agent) rememberPreference(ctx context.Context) error {
	a.section("4. User memory")
	for _, m := range []map[string]any{preference, distraction} {
		var got struct {
			NodeID int64  `json:"node_id"`
			Key    string `json:"key"`
		}
		if err := a.c.call(ctx, http.MethodPost, "/v1/user/remember", m, &got); err != nil {
			return err
		}
		a.say("remembered %q for %s (node %d)", got.Key, a.c.user, got.NodeID)
		a.record("papermem.remember", map[string]any{"key": got.Key}, "memory:"+got.Key)
	}

	fmt.Fprintf(a.out, "  -- session %s ends; later, session %s starts with a new connection --\n", firstSession, followUpSession)
	later := *a.c
	later.http = &http.Client{Timeout: a.c.http.Timeout}
	var pref recallResult
	if err := later.call(ctx, http.MethodPost, "/v1/user/recall",
		map[string]any{"question": "How does Ada want effect sizes reported?", "budget_tokens": 100}, &pref); err != nil {
		return err
	}
	if len(pref.Spans) == 0 {
		return errors.New("the preference was not recalled")
	}
	top := pref.Spans[0]
	a.say("recalled preference [%s]: %s", top.Provenance.Key, top.Text)

	q := recallRequest{Question: "Do daytime naps improve memory consolidation in older adults?",
		BudgetTokens: budget, ScopeSignals: []string{"evidence"}}
	res, err := (&agent{out: a.out, c: &later}).ask(ctx, "Q3", q)
	if err != nil {
		return err
	}
	var withCI []string
	var papers []string
	var claims []int64
	for i, s := range res.Spans {
		if strings.Contains(s.Text, "95% CI") {
			withCI = append(withCI, fmt.Sprintf("[%d]", i+1))
		}
		if s.Provenance.Kind == "paper" {
			papers = appendNew(papers, s.Provenance.DOI)
		}
		claims = appendNew(claims, s.NodeID)
	}
	a.say("preference applied: only %s of %d spans report a 95%% CI; the answer says so for the others",
		strings.Join(withCI, ", "), len(res.Spans))

	var linked struct {
		LinkedPapers int `json:"linked_papers"`
		LinkedClaims int `json:"linked_claims"`
	}
	err = later.call(ctx, http.MethodPost, "/v1/sessions/link",
		map[string]any{"session_id": followUpSession, "papers": papers, "claims": claims}, &linked)
	if err != nil {
		return err
	}
	a.say("session %s linked to %d papers and %d claims", followUpSession, linked.LinkedPapers, linked.LinkedClaims)
	return nil
}

// exportAndGraph exports the first session's record, reads it back,
// materialises related sessions and counts the graph around the session.
func (a *agent) exportAndGraph(ctx context.Context) error {
	a.section("5. Session record and graph")
	var exp struct {
		Written   bool   `json:"written"`
		SessionID string `json:"session_id"`
	}
	err := a.c.call(ctx, http.MethodPost, "/v1/export/session", map[string]any{
		"session_id": firstSession, "steps": a.steps, "recalled_papers": a.papers, "recalled_claims": a.claims,
		"metadata": map[string]any{"domain": domain, "agent": agentName}}, &exp)
	if err != nil {
		return err
	}
	if !exp.Written {
		return fmt.Errorf("export of %s not written", firstSession)
	}

	var page struct {
		Records []struct {
			SessionID      string  `json:"session_id"`
			UserID         string  `json:"user_id"`
			Steps          []step  `json:"steps"`
			RecalledPapers []any   `json:"recalled_papers"`
			RecalledClaims []int64 `json:"recalled_claims"`
		} `json:"records"`
	}
	if err := a.c.call(ctx, http.MethodGet, "/v1/export?session_id="+url.QueryEscape(exp.SessionID), nil, &page); err != nil {
		return err
	}
	if len(page.Records) != 1 {
		return fmt.Errorf("export of %s: %d records read back", exp.SessionID, len(page.Records))
	}
	r := page.Records[0]
	a.say("record %s of user %s: %d steps, %d recalled papers, %d recalled claims",
		r.SessionID, r.UserID, len(r.Steps), len(r.RecalledPapers), len(r.RecalledClaims))
	for i, s := range r.Steps {
		a.say("  step %d: %s %s → %s", i+1, s.Agent, s.Tool, s.ResultRef)
	}

	var mat struct {
		Created int `json:"related_edges_created"`
		Total   int `json:"related_edges"`
	}
	if err := a.c.call(ctx, http.MethodPost, "/v1/graph/materialize", map[string]any{"threshold": 0.2}, &mat); err != nil {
		return err
	}
	a.say("related edges (Jaccard ≥ 0.2): %d created, %d in the workspace", mat.Created, mat.Total)

	var g struct {
		Nodes []struct{ ID, Type string } `json:"nodes"`
		Edges []struct{ Source, Target, Type string }
	}
	if err := a.c.call(ctx, http.MethodGet, "/v1/graph?hops=2&seed_session="+url.QueryEscape(firstSession), nil, &g); err != nil {
		return err
	}
	nodes, edges := map[string]int{}, map[string]int{}
	for _, n := range g.Nodes {
		nodes[n.Type]++
	}
	for _, e := range g.Edges {
		edges[e.Type]++
	}
	a.say("graph around session:%s (2 hops): %d nodes (%d session, %d paper, %d claim), %d edges (%d uses, %d cites, %d related)",
		firstSession, len(g.Nodes), nodes["session"], nodes["paper"], nodes["claim"],
		len(g.Edges), edges["uses"], edges["cites"], edges["related"])
	return nil
}

// appendNew appends v unless s holds it.
func appendNew[T comparable](s []T, v T) []T {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b)
}
