package main

// The scale-out mode, -servers N: several server processes over one
// database, the mixed load spread across them, then every acknowledged
// write checked through every server; beside it, in the same run, one
// server over a fresh SQLite file (and one over PostgreSQL when -db is a
// PostgreSQL URL).

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/store"
)

// checkConns is how many connections per server the checks of -servers use.
const checkConns = 8

// setup is one measured arrangement of servers over a database.
type setup struct {
	name    string // as printed
	db      string // SQLite file or PostgreSQL URL
	servers int
}

// outcome is what a setup measured.
type outcome struct {
	setup
	t                *tally
	d                time.Duration
	lost             int   // acknowledged writes missing through at least one server
	notRecalled      int   // acknowledged papers present but not recalled by their marker through some server
	missingByServer  []int // acknowledged writes missing through each server
	checks           int   // requests the checks sent
	checkTime        time.Duration
	load0, load1     string
	papers, memories int
}

// isPostgres reports whether db names a PostgreSQL database.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// engine names db's storage engine.
func engine(db string) string {
	if isPostgres(db) {
		return "PostgreSQL"
	}
	return "SQLite"
}

// runServers runs the mixed load for d at conns connections against n
// server processes over db (a SQLite file, a fresh one when empty, or a
// PostgreSQL URL), after one server over a fresh SQLite file and, when db
// is PostgreSQL, one server over it; each setup gets its own workspace
// seeded with seedPapers papers. After each load every acknowledged write
// is checked through every server of the setup. sharedLimits runs the
// servers with the rate limits' buckets in the database.
func runServers(out io.Writer, n int, db string, conns int, d time.Duration, seedPapers int, sharedLimits bool) error {
	dir, err := os.MkdirTemp("", "papermem-servers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	setups := []setup{{"SQLite, one server", filepath.Join(dir, "one.db"), 1}}
	if isPostgres(db) {
		setups = append(setups, setup{"PostgreSQL, one server", db, 1})
	}
	if db == "" {
		db = filepath.Join(dir, "shared.db")
	}
	setups = append(setups, setup{fmt.Sprintf("%s, %d servers", engine(db), n), db, n})
	limits := "in each process over SQLite, shared in the database over PostgreSQL"
	if sharedLimits {
		limits = "shared in the database"
	}
	fmt.Fprintf(out, "scale-out: the mixed load (recall 60%%, store paper 20%%, remember 10%%, paper-exists 10%%) for %v per setup\n", d)
	fmt.Fprintf(out, "from %d connections spread evenly over the setup's server processes; %d papers seeded per setup; API key,\n", conns, seedPapers)
	fmt.Fprintf(out, "JSON request log, rate limits %s (never refusing); then every acknowledged paper (exists, and recall\n", limits)
	fmt.Fprintf(out, "of a word only it contains) and note (user recall of its word) checked through every server of the setup.\n")
	fmt.Fprintf(out, "%d cores, shared by the load generator and every server process.\n", runtime.NumCPU())
	var res []*outcome
	for _, s := range setups {
		o, err := runSetup(s, dir, conns, d, seedPapers, sharedLimits)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(out, "\n%s (%s)", s.name, redact(s.db))
		o.t.print(out, d)
		fmt.Fprintf(out, "checked %d papers and %d notes through each of %d servers (%d requests, %v): missing through each %v; lost %d; not recalled %d\n",
			o.papers, o.memories, s.servers, o.checks, o.checkTime.Round(time.Millisecond), o.missingByServer, o.lost, o.notRecalled)
		fmt.Fprintf(out, "load average (1 min) before / after: %s / %s\n", o.load0, o.load1)
		res = append(res, o)
	}
	fmt.Fprintf(out, "\n%-24s %7s %8s %8s %9s %9s %5s %6s %7s %5s %12s\n", "setup", "servers", "requests", "/s", "p50", "p99", "5xx", "errors", "writes", "lost", "not recalled")
	for _, o := range res {
		all, fivexx := o.t.all()
		fmt.Fprintf(out, "%-24s %7d %8d %8.1f %9s %9s %5d %6d %7d %5d %12d\n", o.name, o.servers, len(all), float64(len(all))/o.d.Seconds(),
			fmtDur(evalcmd.Percentile(all, 50)), fmtDur(evalcmd.Percentile(all, 99)), fivexx, o.t.connErrs+o.t.wrong, o.papers+o.memories, o.lost, o.notRecalled)
	}
	return nil
}

// redact hides the password of a database URL.
func redact(db string) string {
	if i, j := strings.Index(db, "://"), strings.LastIndex(db, "@"); i >= 0 && j > i {
		if k := strings.Index(db[i+3:j], ":"); k >= 0 {
			return db[:i+3+k] + ":…" + db[j:]
		}
	}
	return db
}

// runSetup starts the setup's servers, signs up a fresh workspace through
// the first, seeds it, runs the mixed load across all of them, checks
// every acknowledged write through each, and stops them gracefully.
func runSetup(s setup, dir string, conns int, d time.Duration, seedPapers int, sharedLimits bool) (o *outcome, err error) {
	id := make([]byte, 4)
	rand.Read(id)
	org := "scale-" + hex.EncodeToString(id)
	var children []*child
	defer func() {
		for _, c := range children {
			if serr := c.stop(); serr != nil && err == nil {
				err = fmt.Errorf("graceful stop: %w", serr)
			}
		}
	}()
	var addrs []string
	for i := range s.servers {
		args := []string{"-log", filepath.Join(dir, fmt.Sprintf("%s-%d.log", org, i))}
		if sharedLimits {
			args = append(args, "-shared-limits")
		}
		c, err := startChild(s.db, args...)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
		addrs = append(addrs, c.addr)
	}
	key, user, err := signUp(addrs[0], org)
	if err != nil {
		return nil, err
	}
	dois, err := seedHTTP(addrs[0], key, seedPapers)
	if err != nil {
		return nil, err
	}
	if isPostgres(s.db) {
		if err := analyze(s.db); err != nil {
			return nil, err
		}
	}
	for _, addr := range addrs { // each server loads the workspace's index before the clock starts
		if status, body, err := call(addr, key, "POST", "/v1/recall", "", []byte(`{"question":"warm up"}`)); err != nil || status != http.StatusOK {
			return nil, fmt.Errorf("warm-up recall: %d %.200s %v", status, body, err)
		}
	}
	o = &outcome{setup: s, d: d, load0: loadAverage()}
	o.t = mixedLoad(addrs, key, user, conns, d, dois)
	o.load1 = loadAverage()
	start := time.Now()
	if err := o.check(addrs, key, user); err != nil {
		return nil, err
	}
	o.checkTime = time.Since(start)
	return o, nil
}

// analyze gives PostgreSQL's planner the statistics of the seeded tables,
// as after any bulk load: autovacuum would within a minute or so, and until
// then the planner takes the new tables for empty and joins them by
// scanning (one server served 111 requests/s in such a run, against 374
// with statistics).
func analyze(db string) error {
	conn, err := store.OpenSQL(db, true)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.Exec("ANALYZE"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// check looks up every write the load acknowledged through every server:
// a paper must exist and be recalled by its marker word (labels Any, 300
// tokens), a note must be recalled for its user by its marker word. A
// write missing through any server is lost; a paper that exists but is
// not recalled through some server counts as not recalled.
func (o *outcome) check(addrs []string, key, user string) error {
	type write struct {
		doi, note, marker string
	}
	var writes []write
	for doi := range o.t.papers {
		var w, k int
		if _, err := fmt.Sscanf(doi, mixedDOI, &w, &k); err != nil {
			return fmt.Errorf("acknowledged DOI %q: %w", doi, err)
		}
		writes = append(writes, write{doi: doi, marker: mixedMarker(w, k)})
	}
	for text := range o.t.memories {
		var w, k int
		if _, err := fmt.Sscanf(text, "Note %d-%d", &w, &k); err != nil {
			return fmt.Errorf("acknowledged note %q: %w", text, err)
		}
		writes = append(writes, write{note: text, marker: mixedMarker(w, k)})
	}
	o.papers, o.memories = len(o.t.papers), len(o.t.memories)
	o.missingByServer = make([]int, len(addrs))
	missing := make([]bool, len(writes))
	unrecalled := make([]bool, len(writes))
	auth := "Bearer " + key
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for si, addr := range addrs {
		for c := range checkConns {
			wg.Go(func() {
				conn := leanConn{addr: addr, timeout: roundTripTimeout}
				defer conn.close()
				send := func(req request) ([]byte, bool) {
					status, body, err := conn.do(req.build(addr, auth))
					mu.Lock()
					defer mu.Unlock()
					o.checks++
					if err == nil && status != http.StatusOK {
						err = statusError(status, body)
					}
					if err != nil {
						if firstErr == nil {
							firstErr = err
						}
						return nil, false
					}
					return bytes.Clone(body), true
				}
				for i := c; i < len(writes); i += checkConns {
					w := writes[i]
					var found, recalled bool
					if w.doi != "" {
						body, ok := send(request{method: "GET", path: "/v1/papers/" + w.doi + "/exists"})
						found = ok && bytes.Contains(body, []byte(`"exists":true`))
						q, _ := json.Marshal(map[string]any{"question": "Which protocol is " + w.marker + "?", "label": "Any", "budget_tokens": 300})
						body, ok = send(request{method: "POST", path: "/v1/recall", body: string(q)})
						recalled = ok && bytes.Contains(body, []byte(`"doi":"`+w.doi+`"`))
					} else {
						q, _ := json.Marshal(map[string]any{"question": "Which note says " + w.marker + "?", "budget_tokens": 300})
						body, ok := send(request{method: "POST", path: "/v1/user/recall", body: string(q), header: "X-User-Id: " + user + "\r\n"})
						found = ok && bytes.Contains(body, []byte(w.marker))
						recalled = found
					}
					mu.Lock()
					if !found {
						o.missingByServer[si]++
						missing[i] = true
					} else if !recalled {
						unrecalled[i] = true
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("check: %w", firstErr)
	}
	for i := range writes {
		if missing[i] {
			o.lost++
		} else if unrecalled[i] {
			o.notRecalled++
		}
	}
	return nil
}
