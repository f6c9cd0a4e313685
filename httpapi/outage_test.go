package httpapi_test

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testenv"
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
// seconds down) while writers store papers and readers read through two
// servers over it (faultLoad): no answer of either server is 500, each
// failure is 503 with Retry-After, /v1/health of each is 503 while the
// database is down and 200 after it is back, each server takes writes
// again within 10 s of its return, every paper either acknowledged is
// there, and each server logs the outage once.
func TestPostgresRestartUnderLoad(t *testing.T) {
	c := startCluster(t)
	l := startLoad(t, c.url, nil)
	l.writes(20, 30*time.Second)

	c.stop()
	l.health(http.StatusServiceUnavailable, 10*time.Second, "with the database down")
	time.Sleep(2 * time.Second)
	c.start()
	restarted := time.Now()
	took := l.resumed(restarted, 10*time.Second)
	l.health(http.StatusOK, 10*time.Second, "after the restart")
	l.writes(20, 30*time.Second)
	l.verify()
	for i, s := range l.servers {
		if n := strings.Count(s.e.log.String(), "database unavailable"); n == 0 || n > 3 {
			t.Errorf("server %d logged the outage %d times, want once or so:\n%.3000s", i, n, s.e.log)
		}
	}
	t.Logf("writes back after the restart: %s; %d papers acknowledged", perServer(took), l.acked())
}
