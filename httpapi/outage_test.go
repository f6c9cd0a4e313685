package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testenv"
	"github.com/papermem/papermem/internal/testutil"
)

// pgCluster is a throwaway PostgreSQL cluster of a test's own, made by
// .ci/postgres, that the test can stop and start again.
type pgCluster struct {
	t    *testing.T
	url  string // of its postgres database
	dir  string // .ci/postgres's directory: data/, server.log
	port string
	bin  string // PostgreSQL's binaries
}

// startCluster starts a cluster, removed when the test ends. It skips the
// test unless the tests run on PostgreSQL (a cluster of their own is
// theirs to stop) and PostgreSQL's binaries are installed.
func startCluster(t *testing.T) *pgCluster {
	t.Helper()
	if !testdb.Postgres() {
		t.Skip("PostgreSQL only: stops and starts a cluster (set " + testdb.Env + ")")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if os.Getenv("PG_BIN") == "" && len(bins) == 0 {
		testenv.Need(t, "PostgreSQL server binaries", errors.New("no /usr/lib/postgresql/*/bin/pg_ctl and no PG_BIN"))
	}
	out, err := exec.Command("../.ci/postgres", "start").Output()
	if err != nil {
		t.Fatalf(".ci/postgres start: %v", err)
	}
	c := &pgCluster{t: t}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		switch v = strings.Trim(v, "'"); k {
		case testdb.Env:
			c.url = v
		case "PAPERMEM_PG_DIR":
			c.dir = v
		}
	}
	t.Cleanup(func() { exec.Command("../.ci/postgres", "stop", c.dir).Run() })
	u, err := url.Parse(c.url)
	if err != nil || c.dir == "" {
		t.Fatalf(".ci/postgres start printed %q", out)
	}
	c.port = u.Port()
	c.bin = os.Getenv("PG_BIN")
	if c.bin == "" {
		c.bin = filepath.Dir(bins[len(bins)-1])
	}
	return c
}

// pgCtl runs pg_ctl on the cluster, as postgres when the test runs as root
// (as .ci/postgres does).
func (c *pgCluster) pgCtl(args ...string) {
	c.t.Helper()
	args = append([]string{filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.dir, "data")}, args...)
	if os.Getuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		c.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// stop stops the cluster as an operator restarting it does: fast shutdown,
// which ends every session with 57P01.
func (c *pgCluster) stop() { c.pgCtl("-m", "fast", "-w", "stop") }

// start starts it again on its port.
func (c *pgCluster) start() {
	c.pgCtl("-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "30", "start", "-o",
		"-p "+c.port+" -c listen_addresses=127.0.0.1 -c unix_socket_directories="+c.dir+" -c max_connections=400 -c fsync=off")
}

// outcome is what a client saw of one request.
type outcome struct {
	status     int
	retryAfter string
	body       string
}

// TestPostgresRestartUnderLoad restarts PostgreSQL (fast shutdown, a few
// seconds down) while writers store papers and readers read through the
// real handler: no answer is 500, each failure is 503 with Retry-After,
// /v1/health is 503 while the database is down and 200 after it is back,
// writes succeed again within 10 s of its return, and every acknowledged
// paper is there.
func TestPostgresRestartUnderLoad(t *testing.T) {
	c := startCluster(t)
	m, err := papermem.Open(context.Background(), c.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	e := &env{t: t, m: m, log: &testutil.Buffer{}}
	e.srv = httptest.NewServer(httpapi.New(m, httpapi.Config{Logger: slog.New(slog.NewTextHandler(e.log, nil)), SharedLimits: true, RateLimit: 1 << 30}))
	t.Cleanup(e.srv.Close)
	auth := e.signup("ada@example.org", "lab-one").auth()

	client := &http.Client{Timeout: 30 * time.Second}
	call := func(method, path string, body any) outcome {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, e.srv.URL+path, rd)
		req.Header.Set(auth[0], auth[1])
		req.Header.Set("Content-Type", "application/json")
		r, err := client.Do(req)
		if err != nil {
			return outcome{body: err.Error()}
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return outcome{r.StatusCode, r.Header.Get("Retry-After"), string(b)}
	}

	var (
		mu       sync.Mutex
		acked    []string
		bad      []string  // answers other than success or 503 with Retry-After
		lastFail time.Time // of the last write that failed
		wrote    = make(chan time.Time, 1000)
	)
	check := func(what string, o outcome, ok int) bool {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case o.status == ok:
			return true
		case o.status == http.StatusServiceUnavailable && o.retryAfter != "" && strings.Contains(o.body, `"code":"unavailable"`):
		default:
			bad = append(bad, fmt.Sprintf("%s: %d %q %s", what, o.status, o.retryAfter, o.body))
		}
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				doi := fmt.Sprintf("10.1000/w%d-%d", w, i)
				o := call("POST", "/v1/papers", map[string]any{"doi": doi, "title": "Paper " + doi, "text": "Abstract\nCaffeine improves alertness in trial " + doi + "."})
				if check("store "+doi, o, http.StatusCreated) {
					mu.Lock()
					acked = append(acked, doi)
					mu.Unlock()
					select {
					case wrote <- time.Now():
					default:
					}
				} else {
					mu.Lock()
					lastFail = time.Now()
					mu.Unlock()
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	wg.Go(func() {
		for ctx.Err() == nil {
			check("recall", call("POST", "/v1/recall", map[string]any{"question": "caffeine alertness", "label": "Any", "budget_tokens": 500}), http.StatusOK)
			check("exists", call("GET", "/v1/papers/10.1000%2Fw0-0/exists", nil), http.StatusOK)
		}
	})
	health := func() outcome { return call("GET", "/v1/health", nil) }
	// waitHealth polls /v1/health until it answers status, for at most d.
	waitHealth := func(status int, d time.Duration) bool {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if health().status == status {
				return true
			}
		}
		return false
	}
	defer func() { cancel(); wg.Wait() }()

	// Load, then the restart.
	for range 20 {
		<-wrote
	}
	c.stop()
	if !waitHealth(http.StatusServiceUnavailable, 10*time.Second) {
		t.Error("/v1/health did not answer 503 while the database was down")
	}
	if o := health(); o.status == http.StatusServiceUnavailable && (o.retryAfter == "" || !strings.Contains(o.body, `"database":"down"`)) {
		t.Errorf("/v1/health while down: %+v", o)
	}
	time.Sleep(2 * time.Second)
	c.start()
	restarted := time.Now()
	// Writes succeed again within 10 s of the restart.
	deadline := time.After(10 * time.Second)
	for back := false; !back; {
		select {
		case at := <-wrote:
			mu.Lock()
			back = at.After(restarted) && at.After(lastFail)
			mu.Unlock()
		case <-deadline:
			t.Fatal("no write succeeded within 10 s of the database's restart")
		}
	}
	if !waitHealth(http.StatusOK, 10*time.Second) {
		t.Error("/v1/health did not answer 200 again after the restart")
	}
	for range 20 {
		<-wrote
	}
	cancel()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("%d answers were neither success nor 503 with Retry-After, such as:\n%s", len(bad), strings.Join(bad[:min(len(bad), 10)], "\n"))
	}
	if lastFail.IsZero() {
		t.Error("no request failed: the outage was not seen")
	}
	for _, doi := range acked {
		if o := call("GET", "/v1/papers/"+url.PathEscape(doi)+"/exists", nil); o.status != http.StatusOK || !strings.Contains(o.body, `"exists":true`) {
			t.Errorf("acknowledged paper %s: %d %s", doi, o.status, o.body)
		}
	}
	if n := strings.Count(e.log.String(), "database unavailable"); n == 0 || n > 3 {
		t.Errorf("the outage was logged %d times, want once or so:\n%.3000s", n, e.log)
	}
	t.Logf("%d papers acknowledged", len(acked))
}
