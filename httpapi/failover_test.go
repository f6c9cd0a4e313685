package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// as runs a PostgreSQL program of the cluster's binaries, as postgres when
// the test runs as root (as .ci/postgres does).
func (c *pgCluster) as(prog string, args ...string) {
	c.t.Helper()
	args = append([]string{filepath.Join(c.bin, prog)}, args...)
	if os.Getuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		c.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// psql runs sql on the server at port as postgres and returns its output.
func (c *pgCluster) psql(port, sql string) string {
	c.t.Helper()
	args := []string{filepath.Join(c.bin, "psql"), "-X", "-At", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "postgres", "-c", sql}
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("psql -c %q: %v\n%s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}

// standby makes a streaming standby of c with pg_basebackup -R in c's
// directory, starts it on a port of its own and returns that port; it is
// stopped when the test ends. The primary then commits synchronously to
// it (synchronous_standby_names), for sessions with synchronous_commit on.
func (c *pgCluster) standby() string {
	c.t.Helper()
	data := filepath.Join(c.dir, "standby")
	c.as("pg_basebackup", "-h", "127.0.0.1", "-p", c.port, "-U", "postgres", "-D", data, "-R", "-X", "stream", "-c", "fast")
	port, _ := strconv.Atoi(c.port)
	var sport string
	for i := 1; ; i++ {
		sport = strconv.Itoa(20000 + (port-20000+i*7919)%30000)
		args := []string{filepath.Join(c.bin, "pg_ctl"), "-D", data, "-l", filepath.Join(c.dir, "standby.log"), "-w", "-t", "30", "start", "-o",
			"-p " + sport + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + c.dir + " -c max_connections=400 -c fsync=off"}
		if os.Getuid() == 0 {
			args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
		}
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err == nil {
			break
		}
		if i == 5 {
			log, _ := os.ReadFile(filepath.Join(c.dir, "standby.log"))
			c.t.Fatalf("start the standby: %v\n%s\n%s", err, out, log)
		}
	}
	c.t.Cleanup(func() {
		args := []string{filepath.Join(c.bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"}
		if os.Getuid() == 0 {
			args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
		}
		exec.Command(args[0], args[1:]...).Run()
	})
	for end := time.Now().Add(30 * time.Second); c.psql(c.port, `SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'`) != "1"; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			c.t.Fatal("the standby did not stream within 30 s")
		}
	}
	c.psql(c.port, `ALTER SYSTEM SET synchronous_standby_names = '*'`)
	c.psql(c.port, `SELECT pg_reload_conf()`)
	return sport
}

// postmaster returns the pid of the cluster's postmaster.
func (c *pgCluster) postmaster() int {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, "data", "postmaster.pid"))
	if err != nil {
		c.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		c.t.Fatalf("postmaster.pid: %v", err)
	}
	return pid
}

// signal sends sig to the postmaster and every process it started (its
// backends and helpers), each of which PostgreSQL needs to answer.
func (c *pgCluster) signal(sig syscall.Signal) {
	c.t.Helper()
	pm := c.postmaster()
	pids := []int{pm}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pm) {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil {
			c.t.Errorf("kill -%v %d: %v", sig, pid, err)
		}
	}
}

// faultServers is how many servers a faultLoad runs over one database, as
// an operator runs papermem behind a load balancer.
const faultServers = 2

// faultLoad is writers storing papers and readers recalling through
// faultServers servers, each the real handler over a Memory of its own on
// one cluster the test breaks, and what each server's clients saw.
type faultLoad struct {
	t       *testing.T
	servers []*faultServer
	auth    []string
	client  *http.Client
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex // guards what the servers' records hold
}

// faultServer is one server of a faultLoad and what its clients saw.
type faultServer struct {
	e        *env
	acked    []string      // DOIs of the papers it acknowledged
	bad      []string      // answers other than success or 503 with Retry-After
	lastFail time.Time     // of the last request that failed
	backAt   time.Time     // of the first write acknowledged after lastFail; zero until one is
	lastOK   time.Time     // of the last write acknowledged
	slowest  time.Duration // of every request
}

// serversOn starts n servers configured with cfg, each over its own Memory
// opened with opts on the database at db and its own hosted service opened
// with hopts. Each checks its responses and log for leaked secrets when
// the test ends.
func serversOn(t *testing.T, db string, n int, cfg httpapi.Config, opts *papermem.Options, hopts *hosted.Options) []*env {
	t.Helper()
	out := make([]*env, n)
	for i := range out {
		x := &env{t: t, log: &testutil.Buffer{}}
		var err error
		if x.m, err = papermem.Open(context.Background(), db, opts); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.m.Close() })
		x.svc = testutil.Hosted(t, x.m, hopts)
		c := cfg
		if c.Logger == nil {
			c.Logger = slog.New(slog.NewTextHandler(x.log, nil))
		}
		x.srv = httptest.NewServer(httpapi.New(x.svc, c))
		t.Cleanup(x.srv.Close)
		t.Cleanup(x.checkNoLeaks)
		out[i] = x
	}
	return out
}

// startLoad starts faultServers servers, each over a Memory of its own
// opened on db with opts, with shared rate limits, and four writers spread
// over them and a reader on each; they stop when the test ends.
func startLoad(t *testing.T, db string, opts *papermem.Options) *faultLoad {
	t.Helper()
	es := serversOn(t, db, faultServers, httpapi.Config{SharedLimits: true, RateLimit: 1 << 30}, opts, nil)
	l := &faultLoad{t: t, auth: es[0].signup("ada@example.org", "lab-one").auth(), client: &http.Client{Timeout: 60 * time.Second}}
	for _, e := range es {
		l.servers = append(l.servers, &faultServer{e: e})
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	t.Cleanup(l.stop)
	for w := range 4 {
		s := l.servers[w%len(l.servers)]
		l.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				doi := fmt.Sprintf("10.1000/w%d-%d", w, i)
				if !l.check(s, "store "+doi, doi, http.StatusCreated, "POST", "/v1/papers", map[string]any{"doi": doi, "title": "Paper " + doi, "text": "Abstract\nCaffeine improves alertness in trial " + doi + "."}) {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	for _, s := range l.servers {
		l.wg.Go(func() {
			for ctx.Err() == nil {
				ok := l.check(s, "recall", "", http.StatusOK, "POST", "/v1/recall", map[string]any{"question": "caffeine alertness", "label": "Any", "budget_tokens": 500})
				if !l.check(s, "exists", "", http.StatusOK, "GET", "/v1/papers/10.1000%2Fw0-0/exists", nil) || !ok {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	return l
}

// stop stops the writers and the readers.
func (l *faultLoad) stop() { l.cancel(); l.wg.Wait() }

// call makes one request to s and returns what came back and how long it
// took.
func (l *faultLoad) call(s *faultServer, method, path string, body any) (outcome, time.Duration) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.e.srv.URL+path, rd)
	req.Header.Set(l.auth[0], l.auth[1])
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	r, err := l.client.Do(req)
	if err != nil {
		return outcome{body: err.Error()}, time.Since(start)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return outcome{r.StatusCode, r.Header.Get("Retry-After"), string(b)}, time.Since(start)
}

// check makes a request to s and reports whether it answered ok,
// recording any answer but ok and 503 unavailable with Retry-After as bad.
// doi is the paper a store stores, recorded as acknowledged when it
// answers ok; "" for a read.
func (l *faultLoad) check(s *faultServer, what, doi string, ok int, method, path string, body any) bool {
	o, took := l.call(s, method, path, body)
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	s.slowest = max(s.slowest, took)
	switch {
	case o.status == ok:
		if doi != "" {
			s.acked = append(s.acked, doi)
			s.lastOK = now
			if s.backAt.IsZero() {
				s.backAt = now
			}
		}
		return true
	case o.status == http.StatusServiceUnavailable && o.retryAfter != "" && strings.Contains(o.body, `"code":"unavailable"`):
	default:
		s.bad = append(s.bad, fmt.Sprintf("%s: %d %q %s (%v)", what, o.status, o.retryAfter, o.body, took))
	}
	s.lastFail, s.backAt = now, time.Time{}
	return false
}

// acked returns how many papers the servers acknowledged.
func (l *faultLoad) acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.servers {
		n += len(s.acked)
	}
	return n
}

// writes waits until each server has acknowledged n more writes, for at
// most d.
func (l *faultLoad) writes(n int, d time.Duration) {
	l.t.Helper()
	want := make([]int, len(l.servers))
	l.mu.Lock()
	for i, s := range l.servers {
		want[i] = len(s.acked) + n
	}
	l.mu.Unlock()
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		short := -1
		l.mu.Lock()
		for i, s := range l.servers {
			if len(s.acked) < want[i] {
				short = i
				break
			}
		}
		l.mu.Unlock()
		if short < 0 {
			return
		}
		if time.Now().After(end) {
			l.t.Fatalf("server %d acknowledged fewer than %d writes in %v", short, n, d)
		}
	}
}

// resumed waits until each server has acknowledged a write after since,
// with no request to it failing after its first write back, and returns
// for each server how long after since that first write was acknowledged
// (zero when before since); it fails the test unless that is within d.
func (l *faultLoad) resumed(since time.Time, d time.Duration) []time.Duration {
	l.t.Helper()
	took := make([]time.Duration, len(l.servers))
	for i, s := range l.servers {
		for {
			l.mu.Lock()
			back, at := !s.backAt.IsZero() && s.lastOK.After(since), s.backAt
			l.mu.Unlock()
			if back {
				took[i] = max(at.Sub(since), 0)
				break
			}
			if time.Since(since) > d {
				l.t.Fatalf("server %d took no write within %v", i, d)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if took[i] > d {
			l.t.Fatalf("server %d took writes again %v after, want within %v", i, took[i], d)
		}
	}
	return took
}

// health waits until every server's /v1/health answers status, for at
// most d, failing the test for each that does not (when says when); a
// 503 must carry Retry-After and report the database down.
func (l *faultLoad) health(status int, d time.Duration, when string) {
	l.t.Helper()
	end := time.Now().Add(d)
	for i, s := range l.servers {
		o, _ := l.call(s, "GET", "/v1/health", nil)
		for ; o.status != status && time.Now().Before(end); o, _ = l.call(s, "GET", "/v1/health", nil) {
			time.Sleep(50 * time.Millisecond)
		}
		switch {
		case o.status != status:
			l.t.Errorf("server %d: /v1/health %s answered %d %s, want %d", i, when, o.status, o.body, status)
		case status == http.StatusServiceUnavailable && (o.retryAfter == "" || !strings.Contains(o.body, `"database":"down"`)):
			l.t.Errorf("server %d: /v1/health %s: %+v", i, when, o)
		}
	}
}

// verify stops the load and checks, for each server, that no answer was
// bad and that the fault was seen, and that every paper either server
// acknowledged is there, through each server.
func (l *faultLoad) verify() {
	l.t.Helper()
	l.stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, s := range l.servers {
		if len(s.bad) > 0 {
			l.t.Errorf("server %d: %d answers were neither success nor 503 with Retry-After, such as:\n%s", i, len(s.bad), strings.Join(s.bad[:min(len(s.bad), 10)], "\n"))
		}
		if s.lastFail.IsZero() {
			l.t.Errorf("server %d: no request failed: the fault was not seen", i)
		}
	}
	for i, s := range l.servers {
		for _, doi := range s.acked {
			for j, r := range l.servers {
				if o, _ := l.call(r, "GET", "/v1/papers/"+url.PathEscape(doi)+"/exists", nil); o.status != http.StatusOK || !strings.Contains(o.body, `"exists":true`) {
					l.t.Errorf("paper %s acknowledged by server %d, through server %d: %d %s", doi, i, j, o.status, o.body)
				}
			}
		}
	}
}

// perServer formats one duration per server for a log line.
func perServer(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("server %d %v", i, d.Round(time.Millisecond))
	}
	return strings.Join(parts, ", ")
}

// TestPostgresFailover runs two papermem servers on a multi-host URL over
// a primary and its synchronous streaming standby, stops the primary and
// promotes the standby under load: no answer of either server is 500, each
// failure is 503 with Retry-After, /v1/health of each is 503 with the
// primary down and 200 after, each server takes writes again within 10 s
// of the promotion, and every paper either acknowledged is on the new
// primary (PAPERMEM_SYNC=full).
func TestPostgresFailover(t *testing.T) {
	c := startCluster(t)
	sport := c.standby()
	u := fmt.Sprintf("postgres://postgres@127.0.0.1:%s,127.0.0.1:%s/postgres?sslmode=disable&target_session_attrs=read-write", c.port, sport)
	l := startLoad(t, u, &papermem.Options{Sync: papermem.SyncFull, DBTimeout: 2 * time.Second})
	l.writes(20, 30*time.Second)

	c.stop()
	l.health(http.StatusServiceUnavailable, 10*time.Second, "with the primary down")
	time.Sleep(time.Second) // writes fail meanwhile: the standby takes none
	c.as("pg_ctl", "-D", filepath.Join(c.dir, "standby"), "-w", "-t", "30", "promote")
	promoted := time.Now()
	took := l.resumed(promoted, 10*time.Second)
	l.health(http.StatusOK, 10*time.Second, "after the promotion")
	l.writes(20, 30*time.Second)
	l.verify()
	t.Logf("writes back after the promotion: %s; %d papers acknowledged", perServer(took), l.acked())
}

// TestPostgresStall freezes the database (SIGSTOP on the postmaster and
// its backends) for 15 s under load through two servers: every request to
// either is answered within three times Options.DBTimeout (the documented
// bound; here 2 s), with 503 and Retry-After when not served, and each
// server's /v1/health is 503; after SIGCONT each server takes writes again
// by itself, and /v1/health is 200.
func TestPostgresStall(t *testing.T) {
	c := startCluster(t)
	const timeout = 2 * time.Second
	l := startLoad(t, c.url, &papermem.Options{DBTimeout: timeout})
	l.writes(20, 30*time.Second)

	c.signal(syscall.SIGSTOP)
	frozen := true
	defer func() {
		if frozen {
			c.signal(syscall.SIGCONT)
		}
	}()
	start := time.Now()
	l.health(http.StatusServiceUnavailable, 10*time.Second, "with the database frozen")
	time.Sleep(15*time.Second - time.Since(start))
	c.signal(syscall.SIGCONT)
	frozen = false
	thawed := time.Now()
	took := l.resumed(thawed, 10*time.Second)
	l.health(http.StatusOK, 10*time.Second, "after the thaw")
	l.writes(20, 30*time.Second)
	l.verify()
	slowest := make([]time.Duration, len(l.servers))
	for i, s := range l.servers {
		slowest[i] = s.slowest // the load has stopped
		if bound := 3 * timeout; s.slowest > bound {
			t.Errorf("server %d: a request took %v, want at most %v", i, s.slowest, bound)
		}
	}
	t.Logf("slowest request: %s; writes back after the thaw: %s; %d papers acknowledged", perServer(slowest), perServer(took), l.acked())
}
