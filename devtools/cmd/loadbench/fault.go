package main

// The fault and load modes: -mixed (a mixed load over HTTP), -crash (kill -9
// during ingest, round after round) and -fulldisk (ingest into a small
// tmpfs). Each runs the server in a child process of this binary (-serve),
// as cmd/server serves: httpapi.Serve over papermem.Open, API keys, rate
// limiting, a JSON request log (to a file).

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/store"
)

// serveChild serves the API on database db until SIGTERM, printing
// "listening ADDR" once it accepts connections. The request log goes to
// logPath, db + ".log" when empty. The rate limits' buckets are kept in
// the database (httpapi.Config.SharedLimits) when sharedLimits is set or
// db is PostgreSQL, as cmd/server keeps them by default.
func serveChild(db, logPath string, sharedLimits bool, out io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	m, err := papermem.Open(ctx, db, &papermem.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer m.Close()
	svc, err := hosted.New(m, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	if logPath == "" {
		logPath = db + ".log"
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "listening %s\n", ln.Addr())
	log := slog.New(slog.NewJSONHandler(logFile, nil))
	shared := sharedLimits || store.EngineOf(db) == store.Postgres
	h := httpapi.New(svc, httpapi.Config{Logger: log, RateLimit: 1 << 30, SharedLimits: shared})
	return httpapi.Serve(ctx, ln, h, slog.NewLogLogger(log.Handler(), slog.LevelWarn))
}

// startSignedUp starts a child server on db and signs up its workspace
// faultOrg (signUp).
func startSignedUp(db string) (c *child, key, user string, err error) {
	if c, err = startChild(db); err != nil {
		return nil, "", "", err
	}
	if key, user, err = signUp(c.addr, faultOrg); err != nil {
		c.kill()
		return nil, "", "", err
	}
	return c, key, user, nil
}

// child is a server in a child process.
type child struct {
	cmd  *exec.Cmd
	addr string
	done chan error
}

// startChild starts this binary with -serve db, and any further arguments
// of the child (-log, -shared-limits), and waits until it listens.
func startChild(db string, args ...string) (*child, error) {
	return spawn(append([]string{"-serve", db}, args...), nil, func(line string) string {
		addr, _ := strings.CutPrefix(line, "listening ")
		return addr
	})
}

// spawn starts this binary with args and the environment plus env, and
// reads its output until addrOf finds the address it listens on in a
// line; the rest of the output is discarded.
func spawn(args, env []string, addrOf func(line string) string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, done: make(chan error, 1)}
	lines := bufio.NewScanner(stdout)
	for c.addr == "" && lines.Scan() {
		c.addr = addrOf(lines.Text())
	}
	go func() {
		io.Copy(io.Discard, stdout)
		c.done <- cmd.Wait()
	}()
	if c.addr == "" {
		c.kill()
		return nil, fmt.Errorf("child server did not start: %v", lines.Err())
	}
	return c, nil
}

// stop sends SIGTERM (a graceful shutdown) and waits for the exit.
func (c *child) stop() error {
	c.cmd.Process.Signal(syscall.SIGTERM)
	return <-c.done
}

// kill sends SIGKILL and waits for the exit.
func (c *child) kill() {
	c.cmd.Process.Kill()
	<-c.done
}

// faultOrg is the workspace the fault modes sign up.
const faultOrg = "load"

// client is a net/http client for set-up, ingest and checks.
var client = &http.Client{Timeout: roundTripTimeout}

// call sends a request with the API key (and the content type, JSON when
// empty) and returns the status and body.
func call(addr, key, method, path, ctype string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if ctype == "" {
		ctype = "application/json"
	}
	req.Header.Set("Content-Type", ctype)
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// signUp creates the workspace org and its first user (org@example.org),
// and returns an API key for it and the user's id.
func signUp(addr, org string) (key, user string, err error) {
	status, body, err := call(addr, "", "POST", "/v1/auth/signup", "",
		[]byte(`{"email":"`+org+`@example.org","password":"load test password","org_id":"`+org+`"}`))
	if err != nil || status != http.StatusCreated {
		return "", "", fmt.Errorf("signup: %d %s %v", status, body, err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		User        struct {
			UserID string `json:"user_id"`
		} `json:"user"`
	}
	if err := json.Unmarshal(body, &tok); err != nil {
		return "", "", err
	}
	status, body, err = call(addr, tok.AccessToken, "POST", "/v1/account/api-keys", "", []byte(`{"name":"load"}`))
	if err != nil || status != http.StatusCreated {
		return "", "", fmt.Errorf("api key: %d %s %v", status, body, err)
	}
	var k struct {
		Key string `json:"key"`
	}
	err = json.Unmarshal(body, &k)
	return k.Key, tok.User.UserID, err
}

// paperJSON is a store-paper request body for a synthetic paper.
func paperJSON(rng *rand.Rand, doi, marker string) map[string]any {
	return map[string]any{"doi": doi, "title": paperTitle(rng), "text": paperText(rng, marker), "year": 2000 + rng.IntN(25)}
}

// mixedOps are the calls of the mixed load and their shares in percent.
var mixedOps = []struct {
	name  string
	share int
}{{"recall", 60}, {"store-paper", 20}, {"remember", 10}, {"paper-exists", 10}}

// tally is what a load saw: latencies and statuses per call, connection
// errors, wrong answers, and the writes acknowledged.
type tally struct {
	mu         sync.Mutex
	lat        map[string][]time.Duration
	status     map[int]int
	connErrs   int
	firstConn  error
	wrong      int
	firstWrong string
	first5xx   string          // the call and body of the first 5xx answer
	papers     map[string]bool // DOIs acknowledged
	memories   map[string]bool // remembered texts acknowledged
}

func newTally() *tally {
	return &tally{lat: map[string][]time.Duration{}, status: map[int]int{}, papers: map[string]bool{}, memories: map[string]bool{}}
}

// runMixed runs the mixed load at conns connections for d against a child
// server seeded with seedPapers papers, then stops the server gracefully
// and checks the database for every acknowledged write.
func runMixed(out io.Writer, conns int, d time.Duration, seedPapers int) error {
	dir, err := os.MkdirTemp("", "papermem-mixed")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "mixed.db")
	c, key, user, err := startSignedUp(db)
	if err != nil {
		return err
	}
	defer func() {
		if c != nil {
			c.kill()
		}
	}()
	dois, err := seedHTTP(c.addr, key, seedPapers)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "mixed load: %d connections for %v over HTTP against a child server process (%d papers seeded);\n", conns, d, len(dois))
	fmt.Fprintf(out, "calls: recall 60%%, store paper 20%%, remember 10%%, paper-exists 10%%; closed loop, API key, JSON request log\n")

	load0 := loadAverage()
	t := mixedLoad([]string{c.addr}, key, user, conns, d, dois)
	load1 := loadAverage()
	err = c.stop()
	c = nil
	if err != nil {
		return fmt.Errorf("graceful stop: %w", err)
	}
	lost, _, err := checkDB(db, t.papers, t.memories, nil)
	if err != nil {
		return err
	}
	t.print(out, d)
	if _, err := os.Stat(db + "-wal"); err == nil {
		fmt.Fprintln(out, "a -wal file was left after the graceful stop")
	}
	fmt.Fprintf(out, "lost acknowledged writes: %d (of %d papers and %d memories acknowledged); integrity_check ok after a graceful stop\n",
		lost, len(t.papers), len(t.memories))
	fmt.Fprintf(out, "load average (1 min) before / after: %s / %s\n", load0, load1)
	return nil
}

// seedHTTP stores n synthetic papers through the server at addr, 100 a
// request, and returns their DOIs.
func seedHTTP(addr, key string, n int) ([]string, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	var dois []string
	for len(dois) < n {
		var batch []map[string]any
		for range min(100, n-len(dois)) {
			doi := fmt.Sprintf("10.5555/seed.%d", len(dois)+len(batch))
			batch = append(batch, paperJSON(rng, doi, ""))
		}
		body, _ := json.Marshal(map[string]any{"papers": batch})
		status, b, err := call(addr, key, "POST", "/v1/papers/batch", "", body)
		if err != nil || status != http.StatusOK {
			return nil, fmt.Errorf("seed: %d %.200s %v", status, b, err)
		}
		for _, p := range batch {
			dois = append(dois, p["doi"].(string))
		}
	}
	return dois, nil
}

// mixedLoad runs the mixed load for d from conns connections, connection
// w sending to server addrs[w mod len(addrs)] with the API key (and user,
// for remember), and returns what it saw.
func mixedLoad(addrs []string, key, user string, conns int, d time.Duration, dois []string) *tally {
	t := newTally()
	deadline := time.Now().Add(d)
	auth := "Bearer " + key
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			addr := addrs[w%len(addrs)]
			conn := leanConn{addr: addr, timeout: roundTripTimeout}
			defer conn.close()
			for k := 0; time.Now().Before(deadline); k++ {
				name, req := mixedRequest(rng, w, k, dois, user)
				start := time.Now()
				status, body, err := conn.do(req.build(addr, auth))
				t.record(name, req, status, body, err, time.Since(start))
			}
		})
	}
	wg.Wait()
	return t
}

// The writes of the mixed load: request k of connection w stores the
// paper mixedDOI or the note mixedNote, each with the word mixedMarker(w, k)
// found in no other paper or note.
const (
	mixedDOI  = "10.5555/mixed.%d.%d"                           // w, k
	mixedNote = "Note %d-%d, %s: the agent prefers %s studies." // w, k, marker, cohort
)

func mixedMarker(w, k int) string { return fmt.Sprintf("zq%dx%dy", w, k) }

// mixedRequest picks the call of request k of connection w.
func mixedRequest(rng *rand.Rand, w, k int, dois []string, user string) (string, request) {
	p := rng.IntN(100)
	name := mixedOps[len(mixedOps)-1].name
	for _, op := range mixedOps {
		if p < op.share {
			name = op.name
			break
		}
		p -= op.share
	}
	switch name {
	case "recall":
		body, _ := json.Marshal(map[string]any{"question": questions[rng.IntN(len(questions))], "budget_tokens": 2000})
		return name, request{method: "POST", path: "/v1/recall", body: string(body)}
	case "store-paper":
		body, _ := json.Marshal(paperJSON(rng, fmt.Sprintf(mixedDOI, w, k), mixedMarker(w, k)))
		return name, request{method: "POST", path: "/v1/papers", body: string(body)}
	case "remember":
		body, _ := json.Marshal(map[string]any{"text": fmt.Sprintf(mixedNote, w, k, mixedMarker(w, k), cohorts[rng.IntN(len(cohorts))])})
		return name, request{method: "POST", path: "/v1/user/remember", body: string(body), header: "X-User-Id: " + user + "\r\n"}
	}
	return name, request{method: "GET", path: "/v1/papers/" + dois[rng.IntN(len(dois))] + "/exists"}
}

// record counts one response (or connection error) of the mixed load.
func (t *tally) record(name string, req request, status int, body []byte, err error, lat time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.connErrs++
		if t.firstConn == nil {
			t.firstConn = err
		}
		return
	}
	t.status[status]++
	t.lat[name] = append(t.lat[name], lat)
	if status >= 500 && t.first5xx == "" {
		t.first5xx = fmt.Sprintf("%s: %d %.200s", name, status, bytes.TrimSpace(body))
	}
	if status/100 != 2 {
		return
	}
	var bad error
	switch name {
	case "recall":
		bad = checkRecall(body, false)
	case "paper-exists":
		bad = checkExists(body, false)
	case "store-paper":
		var in struct{ DOI string }
		json.Unmarshal([]byte(req.body), &in)
		t.papers[in.DOI] = true
	case "remember":
		var in struct{ Text string }
		json.Unmarshal([]byte(req.body), &in)
		t.memories[in.Text] = true
	}
	if bad != nil {
		t.wrong++
		if t.firstWrong == "" {
			t.firstWrong = bad.Error()
		}
	}
}

// all returns the latencies of every answered call and the number of
// 5xx answers.
func (t *tally) all() (lat []time.Duration, fivexx int) {
	for _, op := range mixedOps {
		lat = append(lat, t.lat[op.name]...)
	}
	for s, n := range t.status {
		if s >= 500 {
			fivexx += n
		}
	}
	return lat, fivexx
}

// print writes the mixed load's table.
func (t *tally) print(out io.Writer, d time.Duration) {
	fmt.Fprintf(out, "\n%-13s %8s %8s %9s %9s\n", "call", "requests", "/s", "p50", "p99")
	for _, op := range mixedOps {
		l := t.lat[op.name]
		n := len(l)
		fmt.Fprintf(out, "%-13s %8d %8.1f %9s %9s\n", op.name, n, float64(n)/d.Seconds(), fmtDur(evalcmd.Percentile(l, 50)), fmtDur(evalcmd.Percentile(l, 99)))
	}
	all, fivexx := t.all()
	n := len(all)
	fmt.Fprintf(out, "%-13s %8d %8.1f %9s %9s\n", "all", n, float64(n)/d.Seconds(), fmtDur(evalcmd.Percentile(all, 50)), fmtDur(evalcmd.Percentile(all, 99)))
	var codes []string
	for _, s := range slices.Sorted(maps.Keys(t.status)) {
		codes = append(codes, fmt.Sprintf("%d: %d", s, t.status[s]))
	}
	fmt.Fprintf(out, "responses by status: %s; 5xx: %d; connection errors: %d; wrong answers: %d\n", strings.Join(codes, ", "), fivexx, t.connErrs, t.wrong)
	if t.firstConn != nil {
		fmt.Fprintf(out, "  first connection error: %v\n", t.firstConn)
	}
	if t.first5xx != "" {
		fmt.Fprintf(out, "  first 5xx answer: %s\n", t.first5xx)
	}
	if t.firstWrong != "" {
		fmt.Fprintf(out, "  first wrong answer: %s\n", t.firstWrong)
	}
}

// loadAverage is the machine's 1-minute load average.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// checkDB opens db (recovering its WAL, as any process opening it after a
// crash does) and checks: integrity_check is ok; every acknowledged paper
// (by DOI), memory (by text) and document (by id) is stored; no paper or
// document is half-stored: each has nodes, each node its vector, and each
// acknowledged ingest as many nodes as its answer said (nodes, by DOI or
// "doc:ID"). It returns the number of lost writes and of half-stored
// items, and fails on anything else.
func checkDB(db string, papers, memories map[string]bool, nodes map[string]int) (lost, half int, err error) {
	conn, err := sql.Open("sqlite3", "file:"+db+"?_busy_timeout=10000")
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	var check string
	if err := conn.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil {
		return 0, 0, err
	}
	if check != "ok" {
		return 0, 0, fmt.Errorf("integrity_check: %s", check)
	}
	count := func(q string, args ...any) int {
		var n int
		if e := conn.QueryRow(q, args...).Scan(&n); e != nil && err == nil {
			err = e
		}
		return n
	}
	for doi := range papers {
		if count(`SELECT count(*) FROM papers WHERE org_id = ? AND doi = ?`, faultOrg, doi) != 1 {
			lost++
		}
	}
	for text := range memories {
		if count(`SELECT count(*) FROM memories WHERE org_id = ? AND text = ?`, faultOrg, text) != 1 {
			lost++
		}
	}
	for id, want := range nodes {
		q := `SELECT count(*) FROM nodes n JOIN papers p ON n.kind = 'paper' AND n.owner_id = p.id WHERE p.org_id = ? AND p.doi = ?`
		arg := any(id)
		if doc, ok := strings.CutPrefix(id, "doc:"); ok {
			q = `SELECT count(*) FROM nodes WHERE org_id = ? AND kind = 'document' AND owner_id = ?`
			arg = doc
		}
		switch got := count(q, faultOrg, arg); {
		case got == 0:
			lost++
		case got != want:
			half++
		}
	}
	half += count(`SELECT count(*) FROM papers p WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.kind = 'paper' AND n.owner_id = p.id)`)
	half += count(`SELECT count(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.kind = 'document' AND n.owner_id = d.id)`)
	half += count(`SELECT count(*) FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_vectors v WHERE v.node_id = n.id)`)
	return lost, half, err
}

// ingested is what the crash and full-disk modes have had acknowledged.
type ingested struct {
	mu      sync.Mutex
	papers  map[string]bool   // DOIs
	nodes   map[string]int    // nodes stored by DOI or doc:ID, for single ingests
	markers map[string]string // a word found only in the paper, by DOI
	status  map[int]int
}

func newIngested() *ingested {
	return &ingested{papers: map[string]bool{}, nodes: map[string]int{}, markers: map[string]string{}, status: map[int]int{}}
}

// marker is a word found in one paper only.
func marker(seq int64) string { return fmt.Sprintf("zq%dx", seq) }

// ingestOne sends one ingest of the mode: "batch" (20 papers in one
// POST /v1/papers/batch), "file" (a Markdown file through POST /v1/ingest,
// every other one with a DOI: a paper, else a document) or "paper" (one
// POST /v1/papers of about big bytes). It records what was acknowledged and
// returns the status, or a connection error.
func (in *ingested) ingestOne(addr, key, mode string, seq *atomic.Int64, rng *rand.Rand, big int) (int, error) {
	var status int
	var body []byte
	var err error
	type sent struct{ doi, marker string }
	var papers []sent
	switch mode {
	case "batch":
		var batch []map[string]any
		for range 20 {
			n := seq.Add(1)
			p := sent{fmt.Sprintf("10.5555/crash.%d", n), marker(n)}
			papers = append(papers, p)
			batch = append(batch, paperJSON(rng, p.doi, p.marker))
		}
		b, _ := json.Marshal(map[string]any{"papers": batch})
		status, body, err = call(addr, key, "POST", "/v1/papers/batch", "", b)
	case "file":
		n := seq.Add(1)
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		if n%2 == 0 {
			papers = append(papers, sent{fmt.Sprintf("10.5555/file.%d", n), marker(n)})
			mw.WriteField("doi", papers[0].doi)
		}
		fw, _ := mw.CreateFormFile("file", fmt.Sprintf("notes-%d.md", n))
		for range 6 { // a file of a few pages
			io.WriteString(fw, paperText(rng, marker(n)))
		}
		mw.Close()
		status, body, err = call(addr, key, "POST", "/v1/ingest", mw.FormDataContentType(), form.Bytes())
	case "paper":
		n := seq.Add(1)
		p := sent{fmt.Sprintf("10.5555/full.%d", n), marker(n)}
		papers = append(papers, p)
		var text strings.Builder
		for text.Len() < big {
			text.WriteString(paperText(rng, p.marker))
		}
		b, _ := json.Marshal(map[string]any{"doi": p.doi, "title": "Full disk " + p.doi, "text": text.String()})
		status, body, err = call(addr, key, "POST", "/v1/papers", "", b)
	}
	if err != nil {
		return 0, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.status[status]++
	if status/100 != 2 {
		return status, nil
	}
	type report struct {
		DocID       string `json:"doc_id"`
		NodesStored int    `json:"nodes_stored"`
	}
	var rep struct {
		report
		DOIs   []string `json:"dois"`   // batch
		Report *report  `json:"report"` // one paper
	}
	if err := json.Unmarshal(body, &rep); err != nil {
		return status, err
	}
	if rep.Report != nil {
		rep.report = *rep.Report
	}
	if mode != "batch" {
		in.nodes[rep.DocID] = rep.NodesStored
	}
	for _, p := range papers {
		if mode != "batch" || slices.Contains(rep.DOIs, p.doi) {
			in.papers[p.doi] = true
			in.markers[p.doi] = p.marker
		}
	}
	return status, nil
}

// recallable checks up to n acknowledged papers, picked at random: a
// recall for the paper's marker word must cite the paper. It returns how
// many were checked and how many were not recalled.
func (in *ingested) recallable(addr, key string, n int, rng *rand.Rand) (checked, missed int, err error) {
	dois := slices.Sorted(maps.Keys(in.markers))
	rng.Shuffle(len(dois), func(i, j int) { dois[i], dois[j] = dois[j], dois[i] })
	for _, doi := range dois[:min(n, len(dois))] {
		b, _ := json.Marshal(map[string]any{"question": "Which protocol is " + in.markers[doi] + "?", "label": "Any", "budget_tokens": 300})
		status, body, err := call(addr, key, "POST", "/v1/recall", "", b)
		if err != nil || status != http.StatusOK {
			return checked, missed, fmt.Errorf("recall: %d %.200s %v", status, body, err)
		}
		checked++
		if !bytes.Contains(body, []byte(`"doi":"`+doi+`"`)) {
			missed++
		}
	}
	return checked, missed, nil
}

// runCrash kills the child server with SIGKILL during batch ingest and
// during file ingest, rounds times each, at a random moment 0.3–1.8 s into
// the ingest, and after each kill checks the database (checkDB) and, with
// the server restarted, that acknowledged papers are recalled.
func runCrash(out io.Writer, rounds, conns int) error {
	dir, err := os.MkdirTemp("", "papermem-crash")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "crash.db")
	in := newIngested()
	var seq atomic.Int64
	rng := rand.New(rand.NewPCG(3, 4))
	var key string
	fmt.Fprintf(out, "kill -9 during ingest: %d rounds each of batch ingest (20 papers a request) and file ingest (Markdown, half with a DOI), %d connections\n", rounds, conns)
	fmt.Fprintf(out, "%-5s %-5s %8s %9s %10s %5s %5s %10s %s\n", "round", "mode", "killed", "answered", "acked", "lost", "half", "recalled", "integrity")
	totalLost, totalHalf, totalMissed := 0, 0, 0
	for round := 1; round <= rounds; round++ {
		for _, mode := range []string{"batch", "file"} {
			c, err := startChild(db)
			if err != nil {
				return err
			}
			if key == "" {
				if key, _, err = signUp(c.addr, faultOrg); err != nil {
					c.kill()
					return err
				}
			}
			checked, missed, err := in.recallable(c.addr, key, 20, rng)
			if err != nil {
				c.kill()
				return err
			}
			totalMissed += missed
			var requests atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := range conns {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := in.ingestOne(c.addr, key, mode, &seq, rng, 0); err != nil {
							return // the server is gone
						}
						requests.Add(1)
					}
				})
			}
			after := 300*time.Millisecond + time.Duration(rng.IntN(1500))*time.Millisecond
			time.Sleep(after)
			c.kill()
			close(stop)
			wg.Wait()
			lost, half, err := checkDB(db, in.papers, nil, in.nodes)
			if err != nil {
				return fmt.Errorf("round %d %s: %w", round, mode, err)
			}
			totalLost += lost
			totalHalf += half
			fmt.Fprintf(out, "%-5d %-5s %8s %9d %10d %5d %5d %4d of %-3d %s\n", round, mode, after.Round(time.Millisecond), requests.Load(),
				len(in.papers)+in.documents(), lost, half, checked-missed, checked, "ok")
		}
	}
	c, err := startChild(db)
	if err != nil {
		return err
	}
	checked, missed, err := in.recallable(c.addr, key, 50, rng)
	totalMissed += missed
	if serr := c.stop(); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "after the last round: %d of %d acknowledged papers sampled recalled by their marker word\n", checked-missed, checked)
	fmt.Fprintf(out, "total: %d papers and %d documents acknowledged; lost %d; half-stored %d; not recalled %d; statuses %v\n",
		len(in.papers), in.documents(), totalLost, totalHalf, totalMissed, in.status)
	return nil
}

// documents counts the documents acknowledged.
func (in *ingested) documents() int {
	n := 0
	for k := range in.nodes {
		if strings.HasPrefix(k, "doc:") {
			n++
		}
	}
	return n
}

// runFullDisk mounts a tmpfs of size MiB, serves a database on it and
// stores papers of about 64 KB and ingests files from conns connections
// until writes have been refused for a while: every answer must be 2xx or
// 507 (no other 5xx), and the database must hold every acknowledged paper and no
// half-stored one. Then it grows the tmpfs (space returns) and checks
// that the same server stores and recalls a paper again without a
// restart. It needs root (mount).
func runFullDisk(out io.Writer, size, conns int) (err error) {
	dir, err := os.MkdirTemp("", "papermem-full")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if b, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm", size), "tmpfs", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("mount a tmpfs (needs root; TestStoreFull and TestWriterFull cover a full database with max_page_count instead): %v: %s", err, b)
	}
	defer func() {
		if b, uerr := exec.Command("umount", dir).CombinedOutput(); uerr != nil && err == nil {
			err = fmt.Errorf("umount: %v: %s", uerr, b)
		}
	}()
	db := filepath.Join(dir, "full.db")
	c, key, _, err := startSignedUp(db)
	if err != nil {
		return err
	}
	defer func() {
		if c != nil {
			c.kill()
		}
	}()
	fmt.Fprintf(out, "full disk: a %d MiB tmpfs; papers of ~64 KB (POST /v1/papers) and Markdown files (POST /v1/ingest) from %d connections until refused 20 times\n", size, conns)
	in := newIngested()
	var seq atomic.Int64
	var refused atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(5 * time.Minute)
	for w := range conns {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(5, uint64(w)))
			mode := []string{"paper", "file"}[w%2]
			for refused.Load() < 20 && time.Now().Before(deadline) {
				status, err := in.ingestOne(c.addr, key, mode, &seq, rng, 64<<10)
				if err != nil || status == http.StatusInsufficientStorage {
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	full := maps.Clone(in.status)
	fmt.Fprintf(out, "while full: statuses %v; %d papers acknowledged\n", full, len(in.papers))
	if _, err := os.Stat(db); err != nil {
		return err
	}
	if b, err := exec.Command("mount", "-o", fmt.Sprintf("remount,size=%dm", 4*size), dir).CombinedOutput(); err != nil {
		return fmt.Errorf("grow the tmpfs: %v: %s", err, b)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	for range 3 {
		status, err := in.ingestOne(c.addr, key, "paper", &seq, rng, 64<<10)
		if err != nil || status != http.StatusCreated {
			return fmt.Errorf("after space returned: status %d, %v", status, err)
		}
	}
	checked, missed, err := in.recallable(c.addr, key, 20, rng)
	if err != nil {
		return err
	}
	err = c.stop()
	c = nil
	if err != nil {
		return fmt.Errorf("graceful stop: %w", err)
	}
	lost, half, err := checkDB(db, in.papers, nil, in.nodes)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "space returned: 3 of 3 papers stored by the same server, %d of %d sampled papers recalled; lost %d; half-stored %d; integrity_check ok\n",
		checked-missed, checked, lost, half)
	for s := range full {
		if s/100 != 2 && s != http.StatusInsufficientStorage {
			return errors.New("an answer other than 2xx or 507 while the disk was full")
		}
	}
	return nil
}
