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

// faultLoad is writers storing papers and a reader recalling through the
// real handler of a Memory on a cluster the test breaks, and what they saw.
type faultLoad struct {
	t      *testing.T
	e      *env
	auth   []string
	client *http.Client
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	acked    []string
	bad      []string      // answers other than success or 503 with Retry-After
	lastFail time.Time     // of the last request that failed
	slowest  time.Duration // of every request
	wrote    chan time.Time
}

// startLoad opens a Memory on url with opts and starts writers and a
// reader on a server over it; they stop when the test ends.
func startLoad(t *testing.T, url string, opts *papermem.Options) *faultLoad {
	m, err := papermem.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	e := &env{t: t, m: m, log: &testutil.Buffer{}}
	e.srv = httptest.NewServer(httpapi.New(m, httpapi.Config{Logger: slog.New(slog.NewTextHandler(e.log, nil)), SharedLimits: true, RateLimit: 1 << 30}))
	t.Cleanup(e.srv.Close)
	l := &faultLoad{t: t, e: e, auth: e.signup("ada@example.org", "lab-one").auth(), client: &http.Client{Timeout: 60 * time.Second}, wrote: make(chan time.Time, 1000)}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	t.Cleanup(l.stop)
	for w := range 4 {
		l.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				doi := fmt.Sprintf("10.1000/w%d-%d", w, i)
				if l.check("store "+doi, http.StatusCreated, "POST", "/v1/papers", map[string]any{"doi": doi, "title": "Paper " + doi, "text": "Abstract\nCaffeine improves alertness in trial " + doi + "."}) {
					l.mu.Lock()
					l.acked = append(l.acked, doi)
					l.mu.Unlock()
					select {
					case l.wrote <- time.Now():
					default:
					}
				} else {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	l.wg.Go(func() {
		for ctx.Err() == nil {
			if !l.check("recall", http.StatusOK, "POST", "/v1/recall", map[string]any{"question": "caffeine alertness", "label": "Any", "budget_tokens": 500}) {
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
	return l
}

// stop stops the writers and the reader.
func (l *faultLoad) stop() { l.cancel(); l.wg.Wait() }

// call makes one request and returns what came back and how long it took.
func (l *faultLoad) call(method, path string, body any) (outcome, time.Duration) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, l.e.srv.URL+path, rd)
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

// check makes a request and reports whether it answered ok, recording any
// answer but ok and 503 unavailable with Retry-After as bad.
func (l *faultLoad) check(what string, ok int, method, path string, body any) bool {
	o, took := l.call(method, path, body)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.slowest = max(l.slowest, took)
	switch {
	case o.status == ok:
		return true
	case o.status == http.StatusServiceUnavailable && o.retryAfter != "" && strings.Contains(o.body, `"code":"unavailable"`):
	default:
		l.bad = append(l.bad, fmt.Sprintf("%s: %d %q %s (%v)", what, o.status, o.retryAfter, o.body, took))
	}
	l.lastFail = time.Now()
	return false
}

// writes waits for n acknowledged writes, for at most d.
func (l *faultLoad) writes(n int, d time.Duration) {
	l.t.Helper()
	deadline := time.After(d)
	for range n {
		select {
		case <-l.wrote:
		case <-deadline:
			l.t.Fatalf("fewer than %d writes acknowledged in %v", n, d)
		}
	}
}

// resumed waits until a write succeeds after every failure since since
// and returns how long after since; it fails the test after d.
func (l *faultLoad) resumed(since time.Time, d time.Duration) time.Duration {
	l.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case at := <-l.wrote:
			l.mu.Lock()
			back := at.After(since) && at.After(l.lastFail)
			l.mu.Unlock()
			if back {
				return at.Sub(since)
			}
		case <-deadline:
			l.t.Fatalf("no write succeeded within %v", d)
		}
	}
}

// health waits until /v1/health answers status, for at most d.
func (l *faultLoad) health(status int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if o, _ := l.call("GET", "/v1/health", nil); o.status == status {
			return true
		}
	}
	return false
}

// verify stops the load and checks that no answer was bad, that the fault
// was seen, and that every acknowledged paper is there.
func (l *faultLoad) verify() {
	l.t.Helper()
	l.stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.bad) > 0 {
		l.t.Errorf("%d answers were neither success nor 503 with Retry-After, such as:\n%s", len(l.bad), strings.Join(l.bad[:min(len(l.bad), 10)], "\n"))
	}
	if l.lastFail.IsZero() {
		l.t.Error("no request failed: the fault was not seen")
	}
	for _, doi := range l.acked {
		if o, _ := l.call("GET", "/v1/papers/"+url.PathEscape(doi)+"/exists", nil); o.status != http.StatusOK || !strings.Contains(o.body, `"exists":true`) {
			l.t.Errorf("acknowledged paper %s: %d %s", doi, o.status, o.body)
		}
	}
}

// TestPostgresFailover runs papermem on a multi-host URL over a primary
// and its synchronous streaming standby, stops the primary and promotes
// the standby under load: no answer is 500, each failure is 503 with
// Retry-After, writes succeed again within 10 s of the promotion, and
// every acknowledged paper is on the new primary (PAPERMEM_SYNC=full).
func TestPostgresFailover(t *testing.T) {
	c := startCluster(t)
	sport := c.standby()
	u := fmt.Sprintf("postgres://postgres@127.0.0.1:%s,127.0.0.1:%s/postgres?sslmode=disable&target_session_attrs=read-write", c.port, sport)
	l := startLoad(t, u, &papermem.Options{Sync: papermem.SyncFull, DBTimeout: 2 * time.Second})
	l.writes(20, 30*time.Second)

	c.stop()
	if !l.health(http.StatusServiceUnavailable, 10*time.Second) {
		t.Error("/v1/health did not answer 503 with the primary down")
	}
	time.Sleep(time.Second) // writes fail meanwhile: the standby takes none
	c.as("pg_ctl", "-D", filepath.Join(c.dir, "standby"), "-w", "-t", "30", "promote")
	promoted := time.Now()
	took := l.resumed(promoted, 10*time.Second)
	if !l.health(http.StatusOK, 10*time.Second) {
		t.Error("/v1/health did not answer 200 after the promotion")
	}
	l.writes(20, 30*time.Second)
	l.verify()
	t.Logf("writes back %v after the promotion; %d papers acknowledged", took.Round(time.Millisecond), len(l.acked))
}

// TestPostgresStall freezes the database (SIGSTOP on the postmaster and
// its backends) for 15 s under load: every request is answered within
// three times Options.DBTimeout (the documented bound; here 2 s), with 503
// and Retry-After when not served, and
// /v1/health is 503; after SIGCONT writes succeed again by themselves.
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
	if !l.health(http.StatusServiceUnavailable, 10*time.Second) {
		t.Error("/v1/health did not answer 503 with the database frozen")
	}
	time.Sleep(15*time.Second - time.Since(start))
	c.signal(syscall.SIGCONT)
	frozen = false
	thawed := time.Now()
	took := l.resumed(thawed, 10*time.Second)
	if !l.health(http.StatusOK, 10*time.Second) {
		t.Error("/v1/health did not answer 200 after the thaw")
	}
	l.writes(20, 30*time.Second)
	l.verify()
	slowest := l.slowest
	if bound := 3 * timeout; slowest > bound {
		t.Errorf("a request took %v, want at most %v", slowest, bound)
	}
	t.Logf("slowest request %v; writes back %v after the thaw; %d papers acknowledged", slowest.Round(time.Millisecond), took.Round(time.Millisecond), len(l.acked))
}
