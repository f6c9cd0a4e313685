// Command agent is a small research agent that keeps its memory in
// papermem, talking to it over the /v1 HTTP API through the typed Go client
// (package client) the way a tool-calling LLM agent would: an API key, and
// X-User-Id for the person it works for. It needs no network and no model:
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
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/hosted"
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

	a := &agent{out: stdout, base: *base, c: newClient(*base, "", "", stdout)}
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
	svc, err := hosted.New(m, nil)
	if err != nil {
		return "", nil, errors.Join(err, m.Close(), os.RemoveAll(dir))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, errors.Join(err, svc.Close(), m.Close(), os.RemoveAll(dir))
	}
	srv := &http.Server{Handler: httpapi.New(svc, httpapi.Config{Logger: quiet}), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stop = func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return errors.Join(err, svc.Close(), m.Close(), os.RemoveAll(dir))
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// newClient returns a client of base acting with token and user (either
// may be empty) over a connection of its own, printing each call to trace.
func newClient(base, token, user string, trace io.Writer) *client.Client {
	return client.New(base, &client.Options{Token: token, UserID: user,
		HTTPClient: &http.Client{Timeout: 2 * time.Minute, Transport: tracer{trace}}})
}

// tracer prints each request's method and path before sending it.
type tracer struct{ w io.Writer }

func (t tracer) RoundTrip(r *http.Request) (*http.Response, error) {
	fmt.Fprintf(t.w, "  → %s %s\n", r.Method, r.URL.RequestURI())
	return http.DefaultTransport.RoundTrip(r)
}

// agent is the research agent's state: its connection to papermem, the
// steps of its first session and what that session recalled.
type agent struct {
	out    io.Writer
	base   string         // the server's URL
	c      *client.Client // with the agent's credential after step 1
	token  string         // the agent's credential
	user   string         // X-User-Id sent with it
	steps  []api.StepRequest
	papers []string // DOIs the first session's answers cite, in order
	claims []int64  // node ids of the spans it recalled
}

func (a *agent) section(title string) { fmt.Fprintf(a.out, "\n%s\n", title) }

func (a *agent) say(format string, args ...any) {
	fmt.Fprintf(a.out, "    "+format+"\n", args...)
}

// record adds a tool call to the first session's record.
func (a *agent) record(tool string, args any, resultRef string) {
	raw, _ := json.Marshal(args) // the arguments are plain data
	a.steps = append(a.steps, api.StepRequest{Agent: agentName, Tool: tool, Args: raw, ResultRef: resultRef})
}

// use makes token and user the agent's credential.
func (a *agent) use(token, user string) {
	a.token, a.user = token, user
	a.c = newClient(a.base, token, user, a.out)
}

// credentials signs up and switches to a new API key, or adopts the given
// key and user.
func (a *agent) credentials(ctx context.Context, key, user string) error {
	a.section("1. Credentials")
	if key != "" {
		if user == "" {
			users, err := a.c.WithToken(key).Users(ctx)
			if err != nil {
				return err
			}
			if len(users.Users) == 0 {
				return errors.New("the key's workspace has no user; pass -user")
			}
			user = users.Users[0].UserID
		}
		a.use(key, user)
		a.say("using the given API key with X-User-Id: %s", user)
		return nil
	}

	email := "ada-" + randomHex(4) + "@example.org"
	signup, err := a.c.Signup(ctx, api.SignupRequest{Email: email, Password: randomHex(16), Name: "Ada", WorkspaceName: "Sleep lab"})
	if err != nil {
		return err
	}
	a.say("signed up %s: user %s, workspace %s, session token for %s",
		signup.User.Email, signup.User.UserID, signup.User.WorkspaceID, time.Duration(signup.ExpiresIn)*time.Second)
	k, err := a.c.WithToken(signup.AccessToken).CreateAPIKey(ctx, api.CreateKeyRequest{Name: agentName})
	if err != nil {
		return err
	}
	a.use(k.Key, signup.User.UserID)
	a.say("API key %s (%s…) created for %s; its value is shown once and kept only in this process", k.KeyID, k.Prefix, agentName)
	a.say("from now on: Authorization: Bearer <API key>, X-User-Id: %s", a.user)
	return nil
}

// buildMemory stores the abstracts, ingests the notes and stores an
// analysis.
func (a *agent) buildMemory(ctx context.Context) error {
	a.section("2. Literature memory")
	reqs := make([]api.PaperRequest, len(papers))
	dois := make([]string, len(papers))
	for i, p := range papers {
		reqs[i] = api.PaperRequest{DOI: &p.DOI, Title: p.Title, Authors: p.Authors, Year: &p.Year, OA: p.OA, Domain: p.Domain, Text: p.Text}
		dois[i] = p.DOI
	}
	batch, err := a.c.StorePapers(ctx, api.BatchRequest{Papers: reqs})
	if err != nil {
		return err
	}
	if batch.Failed > 0 {
		return fmt.Errorf("%d papers refused: %v", batch.Failed, batch.Errors)
	}
	a.say("%d abstracts stored: %d nodes, %d claims found", batch.Ingested, batch.NodesStored, batch.ClaimsFound)
	a.record("papermem.store_papers", map[string]any{"dois": dois}, fmt.Sprintf("batch: %d papers, %d nodes", batch.Ingested, batch.NodesStored))

	notes := notesMarkdown()
	rep, err := a.c.Ingest(ctx, notesFile, strings.NewReader(notes), papermem.IngestOptions{Domain: domain})
	if err != nil {
		return err
	}
	a.say("%s ingested as %s %s (%s): %d sections, %d nodes, %d claims",
		notesFile, rep.Kind, rep.DocID, rep.Format, rep.Sections, rep.NodesStored, rep.ClaimsFound)
	a.record("papermem.ingest", map[string]any{"file": notesFile, "domain": domain, "bytes": len(notes)}, rep.DocID)

	stored, err := a.c.StoreAnalysis(ctx, analysis)
	if err != nil {
		return err
	}
	a.say("analysis of %s stored: %d claims", stored.DOI, stored.ClaimsExtracted)
	a.record("papermem.store_analysis", map[string]any{"doi": stored.DOI}, "analysis:"+stored.DOI)
	return nil
}

// The first session's research questions.
var questions = []api.RecallRequest{
	{Question: "Does closed-loop auditory stimulation during slow-wave sleep improve overnight memory retention?",
		BudgetTokens: ptr(budget), SectionTypes: []string{"results", "conclusion"}, ScopeSignals: []string{"evidence", "mechanisms"}},
	{Question: "How reliable is the evidence that sleep loss or naps change memory in humans?",
		BudgetTokens: ptr(budget), ScopeSignals: []string{"reliability", "limitations"}},
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
func (a *agent) ask(ctx context.Context, name string, q api.RecallRequest) (*papermem.RecallResult, error) {
	fmt.Fprintf(a.out, "  %s: %s\n", name, q.Question)
	res, err := a.c.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	sum := 0
	for i, s := range res.Spans {
		sum += s.Tokens
		a.say("[%d] %s — %s", i+1, s.Text, cite(s.Provenance))
	}
	if sum != res.TotalTokens || res.TotalTokens > *q.BudgetTokens {
		return nil, fmt.Errorf("%s: total_tokens %d, spans sum to %d, budget %d", name, res.TotalTokens, sum, *q.BudgetTokens)
	}
	a.say("%d spans, total_tokens %d ≤ budget_tokens %d (scope_signals %s)",
		len(res.Spans), res.TotalTokens, *q.BudgetTokens, strings.Join(q.ScopeSignals, ", "))
	return res, nil
}

// cite formats a span's provenance as a reference a reader can follow.
func cite(p papermem.Provenance) string {
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
	for _, m := range []api.RememberRequest{preference, distraction} {
		got, err := a.c.Remember(ctx, m)
		if err != nil {
			return err
		}
		a.say("remembered %q for %s (node %d)", got.Key, a.user, got.NodeID)
		a.record("papermem.remember", map[string]any{"key": got.Key}, "memory:"+got.Key)
	}

	fmt.Fprintf(a.out, "  -- session %s ends; later, session %s starts with a new connection --\n", firstSession, followUpSession)
	later := newClient(a.base, a.token, a.user, a.out)
	pref, err := later.RecallUser(ctx, api.UserRecallRequest{Question: "How does Ada want effect sizes reported?", BudgetTokens: ptr(100)})
	if err != nil {
		return err
	}
	if len(pref.Spans) == 0 {
		return errors.New("the preference was not recalled")
	}
	top := pref.Spans[0]
	a.say("recalled preference [%s]: %s", top.Provenance.Key, top.Text)

	q := api.RecallRequest{Question: "Do daytime naps improve memory consolidation in older adults?",
		BudgetTokens: ptr(budget), ScopeSignals: []string{"evidence"}}
	res, err := (&agent{out: a.out, c: later}).ask(ctx, "Q3", q)
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

	linked, err := later.LinkSession(ctx, api.LinkRequest{SessionID: followUpSession, Papers: papers, Claims: claims})
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
	exp, err := a.c.ExportSession(ctx, api.ExportRequest{SessionID: firstSession, Steps: a.steps,
		RecalledPapers: a.papers, RecalledClaims: a.claims,
		Metadata: map[string]json.RawMessage{"domain": jsonString(domain), "agent": jsonString(agentName)}})
	if err != nil {
		return err
	}
	if !exp.Written {
		return fmt.Errorf("export of %s not written", firstSession)
	}

	page, err := a.c.Exports(ctx, papermem.ExportQuery{SessionID: exp.SessionID})
	if err != nil {
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

	mat, err := a.c.Materialize(ctx, api.MaterializeRequest{Threshold: ptr(0.2)})
	if err != nil {
		return err
	}
	a.say("related edges (Jaccard ≥ 0.2): %d created, %d in the workspace", mat.Created, mat.Total)

	g, err := a.c.Graph(ctx, firstSession, 2)
	if err != nil {
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

// jsonString is s as a JSON value.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func ptr[T any](v T) *T { return &v }

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
