// Command loadbench measures what the HTTP layer adds to papermem calls:
// recall and paper-exists requests over loopback HTTP at 16 and 64
// concurrent connections, beside the same calls made in-process, printing
// one table of throughput, p50/p99 latency, errors and CPU time per call of
// both sides, the p50 HTTP adds and the throughput ratio.
//
//	go run ./devtools/cmd/loadbench [-duration 30s] [-papers 500] [-client lean|net/http] [-rate N | -share 0.5]
//	go run ./devtools/cmd/loadbench -mixed [-duration 60s] [-conns 64] [-papers 500]
//	go run ./devtools/cmd/loadbench -crash 5
//	go run ./devtools/cmd/loadbench -fulldisk 24   (root: mounts a tmpfs)
//	go run ./devtools/cmd/loadbench -servers 3 [-db FILE|postgres://…] [-duration 30s] [-conns 64] [-shared-limits]
//	go run ./devtools/cmd/loadbench -origins 1000 [-rounds 3]
//
// -mixed, -crash and -fulldisk are the fault and load modes (fault.go): a
// mixed load over HTTP against a server in a child process, kill -9 of that
// server during ingest, and a full disk. They print requests, answers by
// status, p50/p99 and the acknowledged writes lost. -servers is the
// scale-out mode (servers.go): the mixed load spread over several server
// processes over one database, every acknowledged write then checked
// through every server, beside one server over SQLite (and one over
// PostgreSQL) measured in the same run.
//
// Each call and number of connections gets two rows:
//   - closed: each connection (or goroutine, in-process) sends its next
//     request as soon as the last is answered, so the row shows the most
//     the side can serve, and latency at that saturation. There p50 is
//     about connections × CPU per round trip / cores, whatever the
//     per-request overhead, because every request waits for the ones
//     queued before it.
//   - paced: open loop, as wrk2 does. The offered rate (-rate, or by
//     default -share of the HTTP closed-loop throughput of the same call
//     and connections, measured just before) is spread over the
//     connections: call j is scheduled at start + (j+1)/rate, on
//     connection j mod n, and timed from its scheduled time, so that a
//     late send (the connection still waiting for its last answer) counts
//     as queueing instead of being hidden (coordinated omission). The
//     in-process side runs the same schedule. The pacer waits on a Linux
//     timerfd, which wakes it within tens of microseconds; Go's own timers
//     wake an idle process only to the millisecond (about 0.55 ms late at
//     the median here), which would count on both sides as latency. The
//     table's last column is the p50 of that start lag on each side:
//     pacer wake-up plus any wait for the connection.
//
// How the two sides are kept comparable:
//   - The same calls with the same arguments (call i uses question or DOI
//     i mod the list), from the same number of goroutines.
//   - The server is configured as cmd/server is: its timeouts, an API key
//     per request (Authorization: Bearer), rate limiting on (sized so it
//     never refuses), and a JSON request log line per request, written to
//     a file.
//   - Each side runs for the duration in interleaved slices (HTTP, then
//     in-process, then HTTP...), after a warm-up of both, so that caches
//     and changes in the machine's load affect both sides alike.
//   - The load generator runs in the same process as the server and
//     shares the cores with it; HTTP CPU per call is client plus server.
//     Hence the default lean client (-client lean): one raw keep-alive TCP
//     connection per connection slot, writing a request built once (Host,
//     Authorization, Content-Type, Content-Length, body) and reading the
//     response with a bufio.Reader (status line, headers, a body framed by
//     Content-Length or chunked). net/http's client (-client net/http)
//     spends tens of microseconds per request of its own on the same
//     cores (a goroutine pair per connection, header maps, allocations),
//     which the closed-loop rows then count as the server's.
//   - Every response is checked: status 200, and a body that is the
//     expected JSON ({"exists":true}; a JSON object with a "spans" array,
//     decoded in full on every 64th response per connection and checked
//     for shape on the others). Anything else counts as an error, as does
//     an in-process error or a paper reported missing.
//
// It listens on 127.0.0.1 only and stops after about 4 × duration per call
// and concurrency (2 × without paced rows), plus seeding and warm-ups.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/scifact"
)

const (
	// roundTripTimeout bounds one HTTP round trip of the load generator.
	roundTripTimeout = 30 * time.Second
	// fullCheckEvery is how often, per connection, a recall response is
	// decoded in full rather than checked for shape only.
	fullCheckEvery = 64
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	duration := fs.Duration("duration", 3*time.Second, "time measured on each side per call, concurrency and mode (the issue's figure: 30s)")
	slice := fs.Duration("slice", 5*time.Second, "length of one interleaved slice of a side")
	warmup := fs.Duration("warmup", time.Second, "warm-up of each side before measuring")
	papers := fs.Int("papers", 500, "papers seeded before measuring")
	conc := fs.String("concurrency", "16,64", "comma-separated numbers of concurrent connections")
	only := fs.String("calls", "recall,paper-exists", "comma-separated calls to measure")
	clientKind := fs.String("client", "lean", "HTTP load generator: lean (raw keep-alive connections, pre-built requests) or net/http")
	rate := fs.Float64("rate", 0, "offered rate of the paced rows, requests/s over all connections; 0 means -share of the closed-loop HTTP throughput")
	share := fs.Float64("share", 0.5, "offered rate of the paced rows as a share of the HTTP closed-loop throughput of the same call and connections; 0 skips paced rows unless -rate is set")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of each call and concurrency (both sides, both modes) to PREFIX.<call>.<conns>.pprof")
	mixed := fs.Bool("mixed", false, "instead: the mixed load (recall 60%, store paper 20%, remember 10%, paper-exists 10%) for -duration at -conns connections against a child server process")
	crash := fs.Int("crash", 0, "instead: this many rounds of kill -9 of a child server during batch ingest and during file ingest, checking the database after each")
	fullDisk := fs.Int("fulldisk", 0, "instead: ingest into a tmpfs of this many MiB until it is full, then grow it (needs root)")
	servers := fs.Int("servers", 0, "instead: the mixed load for -duration at -conns connections spread over this many server processes over -db, then every acknowledged write checked through every server; beside it one server over a fresh SQLite file (and one over PostgreSQL when -db is a PostgreSQL URL)")
	db := fs.String("db", "", "with -servers: the database the servers share, a SQLite file or a postgres:// URL (default: a fresh SQLite file)")
	faultConns := fs.Int("conns", 64, "connections of -mixed and -servers (and, up to 8, of -crash and -fulldisk)")
	serve := fs.String("serve", "", "serve the API on this database until SIGTERM (the child process of -mixed, -crash, -fulldisk and -servers)")
	logPath := fs.String("log", "", "with -serve: the request log file (default: the database file + .log)")
	scale := fs.Int("scale", 0, "instead: a fresh server (cmd/server's wiring, in a child process) stores SciFact's abstracts this many times over with POST /v1/papers/batch from -conns clients (up to 8), answers -questions claims one after another at 2,000 tokens, is restarted and answers them again (issue 29's measurement: 30 gives 1.6M nodes)")
	scaleQuestions := fs.Int("questions", 300, "with -scale: the SciFact claims asked in each round")
	scifactDir := fs.String("scifact", scifact.DefaultDir, "with -scale: the SciFact directory")
	originsN := fs.Int("origins", 0, "instead: issue 39's measurement: this many SciFact abstracts (with DOI, title and text) stored through POST /v1/papers/batch, 100 a request, on a fresh server with origins off, with every origin a port that never answers, and with every origin answering after 2 s (origins.go)")
	originsRounds := fs.Int("rounds", 3, "with -origins: how many times the three configurations are run, one after another (medians printed)")
	server := fs.Bool("server", false, "serve as cmd/server does, configured by PAPERMEM_* variables, until SIGTERM (the child process of -scale)")
	sharedLimits := fs.Bool("shared-limits", false, "with -servers (and -serve): keep the rate limits' buckets in the database over SQLite too (PAPERMEM_SHARED_LIMITS=1); over PostgreSQL they always are, as cmd/server's default")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *serve != "":
		return serveChild(*serve, *logPath, *sharedLimits, out)
	case *server:
		return runServer(out)
	case *originsN > 0:
		docs, err := scifact.Corpus(*scifactDir)
		if err != nil {
			return err
		}
		return runOrigins(out, docs, *originsN, *originsRounds)
	case *scale > 0:
		docs, err := scifact.Corpus(*scifactDir)
		if err != nil {
			return err
		}
		claims, err := scifact.Queries(*scifactDir)
		if err != nil {
			return err
		}
		r := scaleRun{docs: docs, copies: *scale, conns: min(*faultConns, 8)}
		for _, c := range claims[:min(*scaleQuestions, len(claims))] {
			r.questions = append(r.questions, c.Text)
		}
		return runScale(out, r)
	case *servers > 0:
		return runServers(out, *servers, *db, *faultConns, *duration, *papers, *sharedLimits)
	case *mixed:
		return runMixed(out, *faultConns, *duration, *papers)
	case *crash > 0:
		return runCrash(out, *crash, min(*faultConns, 8))
	case *fullDisk > 0:
		return runFullDisk(out, *fullDisk, min(*faultConns, 8))
	}
	var levels []int
	for _, s := range strings.Split(*conc, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(s), &n); err != nil || n < 1 || n > 1024 {
			return fmt.Errorf("bad concurrency %q", s)
		}
		levels = append(levels, n)
	}
	if *duration <= 0 || *slice <= 0 || *warmup < 0 || *rate < 0 || *share < 0 {
		return fmt.Errorf("duration and slice must be positive, warmup, rate and share not negative")
	}
	if *clientKind != "lean" && *clientKind != "net/http" {
		return fmt.Errorf("unknown client %q: lean or net/http", *clientKind)
	}

	ctx := context.Background()
	dir, err := os.MkdirTemp("", "papermem-loadbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	m, err := papermem.Open(ctx, filepath.Join(dir, "bench.db"), &papermem.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer m.Close()
	svc, err := hosted.New(m, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	ws := m.Workspace("bench")
	begin := time.Now()
	dois, err := seed(ctx, ws, *papers)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded %d papers in %v\n", len(dois), time.Since(begin).Round(time.Millisecond))
	key, err := svc.Workspace("bench").CreateAPIKey(ctx, "loadbench", hosted.CreatorWorkspace("bench"))
	if err != nil {
		return err
	}

	// The request log as cmd/server writes it, to a file instead of stdout.
	logFile, err := os.Create(filepath.Join(dir, "requests.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.NewJSONHandler(logFile, nil)), RateLimit: 1 << 30}),
		// cmd/server's timeouts: each sets a deadline per request.
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute, WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute}
	go srv.Serve(ln)
	defer srv.Close()

	recallReqs := make([]request, len(questions))
	for i, q := range questions {
		body, err := json.Marshal(map[string]any{"question": q, "budget_tokens": 2000})
		if err != nil {
			return err
		}
		recallReqs[i] = request{method: "POST", path: "/v1/recall", body: string(body)}
	}
	existsReqs := make([]request, len(dois))
	for i, doi := range dois {
		existsReqs[i] = request{method: "GET", path: "/v1/papers/" + doi + "/exists"}
	}
	calls := []struct {
		name   string
		inProc func(i int) error
		reqs   []request // request i mod len(reqs) makes the in-process call i
		check  func(body []byte, full bool) error
	}{
		{
			name: "recall",
			inProc: func(i int) error {
				_, err := ws.Recall(ctx, papermem.RecallRequest{Question: questions[i%len(questions)], BudgetTokens: 2000})
				return err
			},
			reqs:  recallReqs,
			check: checkRecall,
		},
		{
			name: "paper-exists",
			inProc: func(i int) error {
				doi := dois[i%len(dois)]
				ok, err := ws.PaperExists(ctx, doi)
				if err == nil && !ok {
					err = fmt.Errorf("paper %s reported missing", doi)
				}
				return err
			},
			reqs:  existsReqs,
			check: checkExists,
		},
	}

	rounds := int((*duration + *slice - 1) / *slice)
	fmt.Fprintf(out, "each side %v per row, in %d interleaved slices after a %v warm-up; HTTP over loopback (%s client) with an API key,\n", *duration, rounds, *warmup, *clientKind)
	fmt.Fprintf(out, "keep-alive connections, JSON request log; CPU is user+sys per call (HTTP: load generator and server);\n")
	fmt.Fprintf(out, "closed: next request when the last is answered; paced: open loop at the offered rate, latency from the scheduled send\n\n")
	fmt.Fprintf(out, "%-12s %5s %-6s %7s | %7s %8s %8s %6s %8s | %8s %8s %8s %6s %8s | %9s %6s | %s\n", "call", "conns", "mode", "offered",
		"HTTP/s", "p50", "p99", "errors", "CPU/call", "in-proc/s", "p50", "p99", "errors", "CPU/call", "p50 added", "ratio", "lag p50 HTTP / in-proc")
	for _, c := range calls {
		if !slices.Contains(strings.Split(*only, ","), c.name) {
			continue
		}
		for _, n := range levels {
			send, closeConns := newSender(*clientKind, ln.Addr().String(), "Bearer "+key.Key, c.reqs, n, c.check)
			overHTTP := func(w, k int) error { return send(w, w+k*n, k%fullCheckEvery == 0) }
			inProc := func(w, k int) error { return c.inProc(w + k*n) }
			stop, err := startProfile(*cpuProfile, c.name, n)
			if err != nil {
				return err
			}
			measure(n, *warmup, 0, overHTTP)
			measure(n, *warmup, 0, inProc)
			h, p := interleave(n, *duration, *slice, 0, overHTTP, inProc)
			printRow(out, c.name, n, "closed", 0, h, p)
			offered := *rate
			if offered == 0 {
				offered = *share * h.rps()
			}
			if offered > 0 {
				h, p := interleave(n, *duration, *slice, offered, overHTTP, inProc)
				printRow(out, c.name, n, "paced", offered, h, p)
			}
			if err := stop(); err != nil {
				return err
			}
			closeConns()
		}
	}
	fmt.Fprintf(out, "\ntotal %v\n", time.Since(begin).Round(time.Second))
	return nil
}

// newSender returns the function that sends request i mod len(reqs) over
// connection w of n and checks the response (status 200, then check on the
// body, in full if full is set), with the lean client or net/http's, and
// the function that closes the connections.
func newSender(kind, addr, auth string, reqs []request, n int, check func(body []byte, full bool) error) (send func(w, i int, full bool) error, closeConns func()) {
	if kind == "net/http" {
		client := &http.Client{Timeout: roundTripTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n}}
		bufs := make([]bytes.Buffer, n)
		return func(w, i int, full bool) error {
			r := reqs[i%len(reqs)]
			var body io.Reader
			if r.body != "" {
				body = strings.NewReader(r.body)
			}
			req, err := http.NewRequest(r.method, "http://"+addr+r.path, body)
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", auth)
			if r.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := client.Do(req)
			if err != nil {
				return err
			}
			bufs[w].Reset()
			_, err = bufs[w].ReadFrom(res.Body)
			res.Body.Close()
			if err != nil {
				return err
			}
			if res.StatusCode != http.StatusOK {
				return statusError(res.StatusCode, bufs[w].Bytes())
			}
			return check(bufs[w].Bytes(), full)
		}, client.CloseIdleConnections
	}
	raw := make([][]byte, len(reqs))
	for i, r := range reqs {
		raw[i] = r.build(addr, auth)
	}
	conns := make([]leanConn, n)
	for w := range conns {
		conns[w] = leanConn{addr: addr, timeout: roundTripTimeout}
	}
	return func(w, i int, full bool) error {
			status, body, err := conns[w].do(raw[i%len(raw)])
			if err != nil {
				return err
			}
			if status != http.StatusOK {
				return statusError(status, body)
			}
			return check(body, full)
		}, func() {
			for w := range conns {
				conns[w].close()
			}
		}
}

// checkExists accepts the body of a paper-exists response for a paper in
// memory, and nothing else.
func checkExists(body []byte, _ bool) error {
	if !bytes.Equal(bytes.TrimSpace(body), []byte(`{"exists":true}`)) {
		return fmt.Errorf("paper-exists body %.200q", body)
	}
	return nil
}

// checkRecall accepts a JSON object with a "spans" array: decoded in full
// if full is set, else checked for its outline only (braces, the key and
// the array's opening bracket), which costs the load generator little.
func checkRecall(body []byte, full bool) error {
	b := bytes.TrimSpace(body)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' || !bytes.Contains(b, []byte(`"spans":[`)) {
		return fmt.Errorf("recall body is not an object with a spans array: %.200q", body)
	}
	if !full {
		return nil
	}
	var v struct {
		Spans *[]json.RawMessage `json:"spans"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("recall body: %w", err)
	}
	if v.Spans == nil {
		return fmt.Errorf("recall body without a spans array: %.200q", body)
	}
	return nil
}

// interleave measures the HTTP and in-process sides for d each, in
// alternating slices of at most slice, at the offered rate (0: closed
// loop), and returns their results.
func interleave(n int, d, slice time.Duration, rate float64, overHTTP, inProc func(w, k int) error) (h, p result) {
	for left := d; left > 0; {
		s := min(slice, left)
		left -= s
		h.add(measure(n, s, rate, overHTTP))
		p.add(measure(n, s, rate, inProc))
	}
	return h, p
}

// printRow prints one row of the table: the HTTP side h and the
// in-process side p of a call at n connections.
func printRow(out io.Writer, call string, n int, mode string, offered float64, h, p result) {
	off, lag := "max", ""
	if offered > 0 {
		off = fmt.Sprintf("%.0f", offered)
		lag = fmtDur(h.lagPct(50)) + " / " + fmtDur(p.lagPct(50))
	}
	fmt.Fprintf(out, "%-12s %5d %-6s %7s | %7.0f %8s %8s %6d %8s | %9.0f %8s %8s %6d %8s | %9s %6.2f | %s\n",
		call, n, mode, off,
		h.rps(), fmtDur(h.pct(50)), fmtDur(h.pct(99)), h.errors, fmtDur(h.cpuPerCall()),
		p.rps(), fmtDur(p.pct(50)), fmtDur(p.pct(99)), p.errors, fmtDur(p.cpuPerCall()),
		fmtDur(h.pct(50)-p.pct(50)), h.rps()/p.rps(), lag)
	for _, side := range []struct {
		name string
		r    result
	}{{"HTTP", h}, {"in-process", p}} {
		if side.r.firstErr != nil {
			fmt.Fprintf(out, "  first %s error: %v\n", side.name, side.r.firstErr)
		}
		if side.r.unsent > 0 {
			fmt.Fprintf(out, "  %s fell behind the offered rate: %d scheduled requests not sent in time\n", side.name, side.r.unsent)
		}
	}
}

// startProfile starts a CPU profile to prefix.<call>.<conns>.pprof and
// returns the function that stops and writes it; with no prefix it does
// nothing.
func startProfile(prefix, call string, conns int) (stop func() error, err error) {
	if prefix == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(fmt.Sprintf("%s.%s.%d.pprof", prefix, call, conns))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// result accumulates the measurements of one side.
type result struct {
	lat      []time.Duration // of successful calls
	lag      []time.Duration // paced: from the scheduled to the actual start of each call
	errors   int
	firstErr error
	unsent   int // paced: calls scheduled but not started within twice the duration
	elapsed  time.Duration
	cpu      time.Duration // process user+sys time
}

// add merges another measurement into r.
func (r *result) add(o result) {
	r.lat = append(r.lat, o.lat...)
	r.lag = append(r.lag, o.lag...)
	r.errors += o.errors
	r.firstErr = cmp.Or(r.firstErr, o.firstErr)
	r.unsent += o.unsent
	r.elapsed += o.elapsed
	r.cpu += o.cpu
}

// rps is successful calls a second.
func (r *result) rps() float64 { return float64(len(r.lat)) / r.elapsed.Seconds() }

// pct returns the q-th percentile latency.
func (r *result) pct(q int) time.Duration { return evalcmd.Percentile(r.lat, q) }

// lagPct returns the q-th percentile of the paced calls' start lag.
func (r *result) lagPct(q int) time.Duration { return evalcmd.Percentile(r.lag, q) }

// cpuPerCall is the process's CPU time per call made.
func (r *result) cpuPerCall() time.Duration {
	if n := len(r.lat) + r.errors; n > 0 {
		return r.cpu / time.Duration(n)
	}
	return 0
}

// measure runs fn(w, k) from n goroutines w for d, k counting each
// goroutine's calls, and records every call's latency. With rate 0 the
// loop is closed: each goroutine calls again as soon as its last call
// returned, until d has passed. With a rate (calls a second over all
// goroutines) it is open: a pacer schedules call j at start + (j+1)/rate
// for goroutine j mod n, which makes it when its last call has returned,
// and the call is timed from its scheduled time. Calls scheduled within d
// are all made, except those not started within 2d (counted as unsent).
func measure(n int, d time.Duration, rate float64, fn func(w, k int) error) result {
	var mu sync.Mutex
	var res result
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	deadline := start.Add(d)
	var due []chan time.Time
	if rate > 0 {
		period := time.Duration(float64(time.Second) / rate)
		due = make([]chan time.Time, n)
		for w := range due {
			// Room for all of the goroutine's calls: the pacer never waits.
			due[w] = make(chan time.Time, int(d/period)/n+1)
		}
		wg.Go(func() {
			if err := pace(d, period, due); err != nil {
				mu.Lock()
				res.errors++
				res.firstErr = cmp.Or(res.firstErr, err)
				mu.Unlock()
			}
		})
	}
	for w := range n {
		wg.Go(func() {
			var lat, lag []time.Duration
			errs, unsent := 0, 0
			var first error
			for k := 0; ; k++ {
				t := time.Now()
				if due != nil {
					at, ok := <-due[w]
					if !ok {
						break
					}
					now := time.Now()
					if now.Sub(start) > 2*d {
						unsent++
						continue
					}
					lag = append(lag, now.Sub(at))
					t = at
				} else if !t.Before(deadline) {
					break
				}
				if err := fn(w, k); err != nil {
					errs++
					first = cmp.Or(first, err)
					continue
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			res.add(result{lat: lat, lag: lag, errors: errs, firstErr: first, unsent: unsent})
			mu.Unlock()
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.cpu = cpuTime() - cpu0
	return res
}

// pace sends to due[j mod len(due)] the scheduled time of call j, start +
// (j+1)·period, at that time, for the calls scheduled within d of the
// start, and then closes the channels.
func pace(d, period time.Duration, due []chan time.Time) error {
	defer func() {
		for _, c := range due {
			close(c)
		}
	}()
	t, start, err := newTicker(period)
	if err != nil {
		return err
	}
	defer t.stop()
	total := int(d / period)
	for j := 0; j < total; {
		ticks, err := t.wait()
		if err != nil {
			return fmt.Errorf("pacer: %w", err)
		}
		for ; ticks > 0 && j < total; ticks-- {
			due[j%len(due)] <- start.Add(time.Duration(j+1) * period)
			j++
		}
	}
	return nil
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + fmtDur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
	return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000)
}

// Synthetic corpus: sentences built from a small research vocabulary, so
// that questions match some passages and claims.
var (
	subjects = []string{"sleep deprivation", "caffeine intake", "aerobic exercise", "gut microbiota", "social isolation",
		"intermittent fasting", "blue light exposure", "mindfulness training", "air pollution", "vitamin D"}
	effects = []string{"impairs memory consolidation", "improves reaction time", "reduces inflammation markers",
		"increases hippocampal volume", "alters gene expression", "lowers blood pressure", "raises cortisol levels",
		"slows cognitive decline", "disrupts circadian rhythm", "enhances synaptic plasticity"}
	cohorts   = []string{"adult mice", "older adults", "adolescents", "shift workers", "zebrafish", "a cohort of 1,200 patients"}
	questions = []string{
		"How does sleep deprivation affect memory consolidation?",
		"What is the effect of caffeine on reaction time?",
		"Does aerobic exercise change hippocampal volume?",
		"How do gut microbiota influence inflammation?",
		"What are the limitations of studies on intermittent fasting?",
		"Which mechanisms link blue light exposure to circadian rhythm?",
		"Does vitamin D slow cognitive decline in older adults?",
		"How does air pollution raise cortisol levels?",
	}
)

// seed stores n synthetic papers and returns their DOIs.
func seed(ctx context.Context, ws *papermem.Workspace, n int) ([]string, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	dois := make([]string, n)
	for i := range n {
		text := paperText(rng, "")
		dois[i] = fmt.Sprintf("10.5555/bench.%d", i)
		if _, _, err := ws.StorePaper(ctx, papermem.PaperInput{DOI: dois[i], Title: paperTitle(rng),
			Text: text, Year: 2000 + rng.IntN(25)}); err != nil {
			return nil, err
		}
	}
	return dois, nil
}

// paperText is the text of a synthetic paper: an abstract, results and
// limitations, with the marker (a word found in no other paper) in its
// results, if given.
func paperText(rng *rand.Rand, marker string) string {
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	var b strings.Builder
	b.WriteString("# Abstract\n")
	for range 3 {
		fmt.Fprintf(&b, "We show that %s %s in %s. ", pick(subjects), pick(effects), pick(cohorts))
	}
	b.WriteString("\n\n# Results\n")
	for range 8 {
		fmt.Fprintf(&b, "In %s, %s %s by %d%% (p < 0.0%d). ", pick(cohorts), pick(subjects), pick(effects), 5+rng.IntN(40), 1+rng.IntN(5))
	}
	if marker != "" {
		fmt.Fprintf(&b, "The %s protocol reduced dropout by 12%%. ", marker)
	}
	b.WriteString("\n\n# Limitations\n")
	fmt.Fprintf(&b, "The sample of %s was small, and the effect of %s may not generalize.\n", pick(cohorts), pick(subjects))
	return b.String()
}

// paperTitle is the title of a synthetic paper.
func paperTitle(rng *rand.Rand) string {
	return fmt.Sprintf("On %s and %s", subjects[rng.IntN(len(subjects))], effects[rng.IntN(len(effects))])
}
