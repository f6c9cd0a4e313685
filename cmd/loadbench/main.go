// Command loadbench measures what the HTTP layer adds to papermem calls:
// recall and paper-exists requests over loopback HTTP at 16 and 64
// concurrent connections, beside the same calls made in-process, printing
// throughput, p50/p99 latency, errors, CPU time per call and the ratios.
//
//	go run -tags sqlite_fts5 ./cmd/loadbench [-duration 30s] [-papers 500]
//
// How the two sides are measured, so that they compare:
//   - The same calls with the same arguments (call i uses question or DOI
//     i mod the list), from the same number of goroutines: n connections,
//     each one goroutine sending its next request when the last is
//     answered, against n goroutines calling the library. Queueing for the
//     cores therefore shows on both sides.
//   - The server is configured as cmd/server is: its timeouts, an API key
//     per request (Authorization: Bearer), rate limiting on (sized so it
//     never refuses), and a JSON request log line per request, written to
//     a file.
//   - Each side runs for the duration in interleaved slices (HTTP, then
//     in-process, then HTTP...), after a warm-up of both, so that caches
//     and changes in the machine's load affect both sides alike.
//   - The client runs in the same process as the server and shares the
//     cores with it; HTTP CPU per call is client plus server.
//
// It listens on 127.0.0.1 only and stops after about 2 × duration per call
// and concurrency, plus seeding and warm-ups.
package main

import (
	"context"
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
	"github.com/papermem/papermem/httpapi"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	duration := fs.Duration("duration", 3*time.Second, "time measured on each side per call and concurrency (the issue's figure: 30s)")
	slice := fs.Duration("slice", 5*time.Second, "length of one interleaved slice of a side")
	warmup := fs.Duration("warmup", time.Second, "warm-up of each side before measuring")
	papers := fs.Int("papers", 500, "papers seeded before measuring")
	conc := fs.String("concurrency", "16,64", "comma-separated numbers of concurrent connections")
	only := fs.String("calls", "recall,paper-exists", "comma-separated calls to measure")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of each call and concurrency (both sides) to PREFIX.<call>.<conns>.pprof")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var levels []int
	for _, s := range strings.Split(*conc, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(s), &n); err != nil || n < 1 || n > 1024 {
			return fmt.Errorf("bad concurrency %q", s)
		}
		levels = append(levels, n)
	}
	if *duration <= 0 || *slice <= 0 || *warmup < 0 {
		return fmt.Errorf("duration and slice must be positive, warmup not negative")
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
	ws := m.Workspace("bench")
	start := time.Now()
	dois, err := seed(ctx, ws, *papers)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded %d papers in %v\n", len(dois), time.Since(start).Round(time.Millisecond))
	key, err := ws.CreateAPIKey(ctx, "loadbench", papermem.CreatorWorkspace("bench"))
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
	srv := &http.Server{Handler: httpapi.New(m, httpapi.Config{Logger: slog.New(slog.NewJSONHandler(logFile, nil)), RateLimit: 1 << 30}),
		// cmd/server's timeouts: each sets a deadline per request.
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute, WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	calls := []struct {
		name    string
		inProc  func(i int) error
		request func(i int) (*http.Request, error)
	}{
		{
			name: "recall",
			inProc: func(i int) error {
				_, err := ws.Recall(ctx, papermem.RecallRequest{Question: questions[i%len(questions)], BudgetTokens: 2000})
				return err
			},
			request: func(i int) (*http.Request, error) {
				body := fmt.Sprintf(`{"question":%q,"budget_tokens":2000}`, questions[i%len(questions)])
				return http.NewRequest("POST", base+"/v1/recall", strings.NewReader(body))
			},
		},
		{
			name: "paper-exists",
			inProc: func(i int) error {
				_, err := ws.PaperExists(ctx, dois[i%len(dois)])
				return err
			},
			request: func(i int) (*http.Request, error) {
				return http.NewRequest("GET", base+"/v1/papers/"+dois[i%len(dois)]+"/exists", nil)
			},
		},
	}

	rounds := int((*duration + *slice - 1) / *slice)
	fmt.Fprintf(out, "each side %v per row, in %d interleaved slices after a %v warm-up; HTTP over loopback with an API key,\n", *duration, rounds, *warmup)
	fmt.Fprintf(out, "keep-alive connections, JSON request log; CPU is user+sys per call (HTTP: client and server)\n\n")
	fmt.Fprintf(out, "%-13s %5s | %8s %8s %8s %6s %10s | %8s %8s %8s %6s %10s | %9s %9s\n", "call", "conns",
		"HTTP rps", "p50", "p99", "errors", "CPU/call", "in-proc", "p50", "p99", "errors", "CPU/call", "p50 added", "rps ratio")
	for _, c := range calls {
		if !slices.Contains(strings.Split(*only, ","), c.name) {
			continue
		}
		for _, n := range levels {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n}}
			overHTTP := func(i int) error {
				req, err := c.request(i)
				if err != nil {
					return err
				}
				req.Header.Set("Authorization", "Bearer "+key.Key)
				res, err := client.Do(req)
				if err != nil {
					return err
				}
				defer res.Body.Close()
				if _, err := io.Copy(io.Discard, res.Body); err != nil {
					return err
				}
				if res.StatusCode != http.StatusOK {
					return fmt.Errorf("status %d", res.StatusCode)
				}
				return nil
			}
			stop, err := startProfile(*cpuProfile, c.name, n)
			if err != nil {
				return err
			}
			measure(n, *warmup, overHTTP)
			measure(n, *warmup, c.inProc)
			var h, p result
			left := *duration
			for left > 0 {
				d := min(*slice, left)
				left -= d
				h.add(measure(n, d, overHTTP))
				p.add(measure(n, d, c.inProc))
			}
			if err := stop(); err != nil {
				return err
			}
			client.CloseIdleConnections()
			fmt.Fprintf(out, "%-13s %5d | %8.0f %8s %8s %6d %10s | %8.0f %8s %8s %6d %10s | %9s %9.2f\n",
				c.name, n, h.rps(), fmtDur(h.pct(50)), fmtDur(h.pct(99)), h.errors, fmtDur(h.cpuPerCall()),
				p.rps(), fmtDur(p.pct(50)), fmtDur(p.pct(99)), p.errors, fmtDur(p.cpuPerCall()),
				fmtDur(h.pct(50)-p.pct(50)), h.rps()/p.rps())
			if h.firstErr != nil {
				fmt.Fprintf(out, "  first HTTP error: %v\n", h.firstErr)
			}
			if p.firstErr != nil {
				fmt.Fprintf(out, "  first in-process error: %v\n", p.firstErr)
			}
		}
	}
	return nil
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
	errors   int
	firstErr error
	elapsed  time.Duration
	cpu      time.Duration // process user+sys time
}

// add merges another measurement into r.
func (r *result) add(o result) {
	r.lat = append(r.lat, o.lat...)
	r.errors += o.errors
	if r.firstErr == nil {
		r.firstErr = o.firstErr
	}
	r.elapsed += o.elapsed
	r.cpu += o.cpu
}

// rps is successful calls a second.
func (r *result) rps() float64 { return float64(len(r.lat)) / r.elapsed.Seconds() }

// pct returns the q-th percentile latency.
func (r *result) pct(q int) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	slices.Sort(r.lat)
	return r.lat[min(len(r.lat)*q/100, len(r.lat)-1)]
}

// cpuPerCall is the process's CPU time per call made.
func (r *result) cpuPerCall() time.Duration {
	if n := len(r.lat) + r.errors; n > 0 {
		return r.cpu / time.Duration(n)
	}
	return 0
}

// measure runs fn from n goroutines for d, each calling again as soon as
// its last call returned, and records every call's latency.
func measure(n int, d time.Duration, fn func(i int) error) result {
	var mu sync.Mutex
	var res result
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	deadline := start.Add(d)
	for g := range n {
		wg.Go(func() {
			var local []time.Duration
			errs := 0
			var first error
			for i := g; time.Now().Before(deadline); i += n {
				t := time.Now()
				if err := fn(i); err != nil {
					errs++
					if first == nil {
						first = err
					}
					continue
				}
				local = append(local, time.Since(t))
			}
			mu.Lock()
			res.lat = append(res.lat, local...)
			res.errors += errs
			if res.firstErr == nil {
				res.firstErr = first
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.cpu = cpuTime() - cpu0
	return res
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
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	dois := make([]string, n)
	for i := range n {
		var b strings.Builder
		b.WriteString("# Abstract\n")
		for range 3 {
			fmt.Fprintf(&b, "We show that %s %s in %s. ", pick(subjects), pick(effects), pick(cohorts))
		}
		b.WriteString("\n\n# Results\n")
		for range 8 {
			fmt.Fprintf(&b, "In %s, %s %s by %d%% (p < 0.0%d). ", pick(cohorts), pick(subjects), pick(effects), 5+rng.IntN(40), 1+rng.IntN(5))
		}
		b.WriteString("\n\n# Limitations\n")
		fmt.Fprintf(&b, "The sample of %s was small, and the effect of %s may not generalize.\n", pick(cohorts), pick(subjects))
		dois[i] = fmt.Sprintf("10.5555/bench.%d", i)
		if _, _, err := ws.StorePaper(ctx, papermem.PaperInput{DOI: dois[i], Title: fmt.Sprintf("On %s and %s", pick(subjects), pick(effects)),
			Text: b.String(), Year: 2000 + rng.IntN(25)}); err != nil {
			return nil, err
		}
	}
	return dois, nil
}
