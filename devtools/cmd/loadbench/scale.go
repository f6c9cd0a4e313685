package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/serve"
)

// The scale mode (-scale): issue 29's measurement through the HTTP API, as
// a user meets it. A fresh server, cmd/server's own wiring (internal/serve:
// its memory limit and index files included) in a child process, stores
// SciFact's abstracts -scale times over with POST /v1/papers/batch from
// -conns clients, answers the claims one after another at 2,000 tokens
// (label Any and the default), is restarted and answers them again.

// scaleBatch is how many papers one batch request stores.
const scaleBatch = 200

// scaleBudget is the token budget of the scale mode's recalls.
const scaleBudget = 2000

// scaleRun is what one scale run stores and asks.
type scaleRun struct {
	docs      []scifact.Doc
	copies    int      // each abstract is stored this many times, under other DOIs
	conns     int      // clients storing batches at once
	questions []string // asked in each round
}

// runScale runs the scale mode and prints its figures to out.
func runScale(out io.Writer, r scaleRun) error {
	dir, err := os.MkdirTemp("", "papermem-scale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "scale.db")
	srv, err := startServer(db)
	if err != nil {
		return err
	}
	defer func() {
		if srv != nil {
			srv.stop()
		}
	}()
	key, _, err := signUp(srv.addr, faultOrg)
	if err != nil {
		return err
	}

	total := r.copies * len(r.docs)
	begin := time.Now()
	nodes, err := r.ingest(srv.addr, key)
	if err != nil {
		return err
	}
	took := time.Since(begin)
	fmt.Fprintf(out, "ingest: %d papers (%d nodes) through POST /v1/papers/batch, %d a request from %d clients, in %.1f s: %.0f papers/s (goal ≥ 900); server resident %s\n",
		total, nodes, scaleBatch, r.conns, took.Seconds(), float64(total)/took.Seconds(), resident(srv.pid()))
	first, err := timeRecall(srv.addr, key, r.questions[0], "")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "first recall after the ingest (the search index follows the writes): %.2f s\n", first.Seconds())
	if err := r.rounds(out, srv.addr, key); err != nil {
		return err
	}
	fmt.Fprintf(out, "server resident after the rounds: %s (goal ≤ 1.5 GB)\n", resident(srv.pid()))

	if err := srv.stop(); err != nil {
		return fmt.Errorf("graceful stop: %w", err)
	}
	started := time.Now()
	if srv, err = startServer(db); err != nil {
		return err
	}
	for {
		if _, err := timeRecall(srv.addr, key, r.questions[0], ""); err == nil {
			break
		} else if time.Since(started) > time.Minute {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintf(out, "restart: the first recall answered %.2f s after the server process started (goal ≤ 5 s)\n", time.Since(started).Seconds())
	if err := r.rounds(out, srv.addr, key); err != nil {
		return err
	}
	fmt.Fprintf(out, "server resident after the rounds: %s\n", resident(srv.pid()))
	mem, index := evalcmd.DatabaseSize(db), evalcmd.DirSize(db+"-index")
	fmt.Fprintf(out, "disk: database %d + index files %d = %d bytes a node (goal ≤ 2,500)\n",
		mem/int64(nodes), index/int64(nodes), (mem+index)/int64(nodes))
	return nil
}

// ingest stores the papers and returns the nodes stored.
func (r scaleRun) ingest(addr, key string) (int, error) {
	total := r.copies * len(r.docs)
	var next, nodes atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, r.conns)
	for w := range r.conns {
		wg.Go(func() {
			for {
				from := int(next.Add(scaleBatch)) - scaleBatch
				if from >= total || errs[w] != nil {
					return
				}
				var papers []map[string]string
				for i := from; i < min(from+scaleBatch, total); i++ {
					d := r.docs[i%len(r.docs)]
					papers = append(papers, map[string]string{"doi": fmt.Sprintf("10.5555/scale.%d.%s", i/len(r.docs), d.ID), "title": d.Title, "text": d.Text})
				}
				body, _ := json.Marshal(map[string]any{"papers": papers})
				status, res, err := call(addr, key, "POST", "/v1/papers/batch", "", body)
				var rep api.BatchReport
				if err == nil && status == http.StatusOK {
					err = json.Unmarshal(res, &rep)
				}
				if err != nil || status != http.StatusOK || rep.Failed > 0 {
					errs[w] = fmt.Errorf("batch at %d: %d %.200s %v", from, status, res, err)
					return
				}
				nodes.Add(int64(rep.NodesStored))
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return int(nodes.Load()), nil
}

// rounds asks every question one after another, with the default label
// and with Any, and prints the latencies.
func (r scaleRun) rounds(out io.Writer, addr, key string) error {
	for _, label := range []string{"", papermem.LabelAny} {
		var lat []time.Duration
		for _, q := range r.questions {
			d, err := timeRecall(addr, key, q, label)
			if err != nil {
				return err
			}
			lat = append(lat, d)
		}
		name := cmp.Or(label, "the default (Claim)")
		fmt.Fprintf(out, "recall over HTTP, label %s, %d questions at %d tokens: p50 %s, p95 %s (goal ≤ 30 ms)\n",
			name, len(lat), scaleBudget, fmtDur(evalcmd.Percentile(lat, 50)), fmtDur(evalcmd.Percentile(lat, 95)))
	}
	return nil
}

// recallClient waits for a first recall that builds a large search index.
var recallClient = &http.Client{Timeout: 5 * time.Minute}

// timeRecall asks question with label and returns how long the answer
// took.
func timeRecall(addr, key, question, label string) (time.Duration, error) {
	body, _ := json.Marshal(map[string]any{"question": question, "label": label, "budget_tokens": scaleBudget})
	req, err := http.NewRequest("POST", "http://"+addr+"/v1/recall", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	res, err := recallClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	took := time.Since(start)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("recall: %d %.200s", res.StatusCode, b)
	}
	return took, err
}

// resident returns the resident memory of process pid from /proc, "n/a"
// where there is none.
func resident(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "n/a"
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			if kb, err := strconv.Atoi(f[1]); err == nil {
				return fmt.Sprintf("%d MB", kb/1024)
			}
		}
	}
	return "n/a"
}

// pid returns the child's process id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// runServer is the child process of the scale mode: cmd/server's wiring
// (internal/serve) with the configuration of PAPERMEM_* variables, until
// SIGTERM.
func runServer(out io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return serve.Run(ctx, nil, os.Getenv, out)
}

// startServer starts this binary with -server over database db, listening
// on a free loopback port, with origins off (unless extra, variables set
// after these, says otherwise) and no rate limit, and waits until it
// listens.
func startServer(db string, extra ...string) (*child, error) {
	env := append([]string{"PAPERMEM_DB=" + db, "PAPERMEM_ADDR=127.0.0.1:0", "PAPERMEM_ORIGINS=off", "PAPERMEM_RATE_LIMIT=1000000000"}, extra...)
	return spawn([]string{"-server"}, env, func(line string) string {
		var l struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &l) != nil || l.Msg != "listening" {
			return ""
		}
		return strings.TrimPrefix(l.Addr, "http://")
	})
}
