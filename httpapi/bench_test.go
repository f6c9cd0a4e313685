package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/telemetry"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// benchWorkspace opens a memory whose workspace "bench" holds the papers
// and an API key, and the hosted service over it.
func benchWorkspace(b *testing.B, papers ...papermem.PaperInput) (*hosted.Service, *papermem.Workspace, *hosted.NewAPIKey) {
	b.Helper()
	return benchWorkspaceWith(b, nil, papers...)
}

// benchWorkspaceWith is benchWorkspace over a memory opened with opts.
func benchWorkspaceWith(b *testing.B, opts *papermem.Options, papers ...papermem.PaperInput) (*hosted.Service, *papermem.Workspace, *hosted.NewAPIKey) {
	b.Helper()
	ctx := context.Background()
	path := testdb.Path(b)
	m, err := papermem.Open(ctx, path, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	svc := testutil.Hosted(b, m, nil)
	ws := m.Workspace("bench")
	for _, p := range papers {
		if _, _, err := ws.StorePaper(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	// As after any bulk load: PostgreSQL's planner takes tables it has no
	// statistics of for nearly empty, and joins them by scanning, until
	// autovacuum analyzes them (within a minute or so).
	if store.EngineOf(path) == store.Postgres {
		if _, err := testutil.Raw(b, path, true).Exec("ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
	key, err := svc.Workspace("bench").CreateAPIKey(ctx, "bench", hosted.CreatorWorkspace("bench"))
	if err != nil {
		b.Fatal(err)
	}
	return svc, ws, key
}

// BenchmarkPaperExists measures one authenticated GET over loopback HTTP
// (API key, keep-alive) against the in-process call.
func BenchmarkPaperExists(b *testing.B) {
	ctx := context.Background()
	svc, ws, key := benchWorkspace(b, papermem.PaperInput{DOI: "10.1/bench", Title: "Bench"})
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.DiscardHandler), RateLimit: 1 << 30}))
	defer srv.Close()
	b.Run("InProcess", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := ws.PaperExists(ctx, "10.1/bench"); err != nil {
					b.Error(err)
				}
			}
		})
	})
	b.Run("HTTP", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequest("GET", srv.URL+"/v1/papers/10.1/bench/exists", nil)
				req.Header.Set("Authorization", "Bearer "+key.Key)
				res, err := srv.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("status %d", res.StatusCode)
				}
			}
		})
	})
}

// BenchmarkHandlerPaperExists measures the server side of an authenticated
// paper-exists request alone: the handler called directly, no network and
// no client, with request logging on as cmd/server does it (JSON lines).
func BenchmarkHandlerPaperExists(b *testing.B) {
	svc, _, key := benchWorkspace(b, papermem.PaperInput{DOI: "10.1/bench", Title: "Bench"})
	h := httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), RateLimit: 1 << 30})
	b.ResetTimer()
	benchExists(b, h, key.Key)
}

// benchExists asks h whether paper 10.1/bench exists with key, from
// parallel callers.
func benchExists(b *testing.B, h http.Handler, key string) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/v1/papers/10.1/bench/exists", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	})
}

// BenchmarkHandlerRateLimits measures what a shared rate limit costs: the
// paper-exists handler (the cheapest authenticated request) with the
// buckets in this process and in the database (Config.SharedLimits, a
// write per request through the write queue), from parallel callers.
func BenchmarkHandlerRateLimits(b *testing.B) {
	svc, _, key := benchWorkspace(b, papermem.PaperInput{DOI: "10.1/bench", Title: "Bench"})
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "InProcess", true: "Shared"}[shared]
		h := httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.DiscardHandler), RateLimit: 1 << 30, SharedLimits: shared})
		b.Run(name, func(b *testing.B) { benchExists(b, h, key.Key) })
	}
}

// benchPapers are n papers of a few sentences each.
func benchPapers(n int) []papermem.PaperInput {
	var papers []papermem.PaperInput
	for i := range n {
		text := fmt.Sprintf("# Abstract\nWe show that sleep deprivation impairs memory consolidation in cohort %d. "+
			"Caffeine improves reaction time in older adults.\n\n# Results\nIn shift workers, vitamin D slows cognitive decline by %d%%. "+
			"Air pollution raises cortisol levels in adolescents.", i, 5+i%40)
		papers = append(papers, papermem.PaperInput{DOI: fmt.Sprintf("10.5555/bench.%d", i), Title: "Bench", Text: text})
	}
	return papers
}

// BenchmarkRecallTelemetry measures one recall through the handler
// without telemetry (off), with the metrics of PAPERMEM_METRICS_ADDR
// (metrics), and with metrics and traces exported to a stand-in collector
// (traces), each over its own database of the same papers. Each iteration
// runs one recall of each, in turn (the first of the three rotating), so
// that the load of a shared machine falls on all three alike; it reports
// each one's median and mean.
func BenchmarkRecallTelemetry(b *testing.B) {
	ctx := context.Background()
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer collector.Close()
	papers := benchPapers(200)
	type variant struct {
		name  string
		h     http.Handler
		key   string
		spent []time.Duration
	}
	var vs []*variant
	for _, tc := range []struct {
		name    string
		metrics bool
		env     map[string]string
	}{
		{"off", false, nil},
		{"metrics", true, nil},
		{"traces", true, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}},
	} {
		opts := &papermem.Options{}
		cfg := httpapi.Config{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), RateLimit: 1 << 30}
		var tel *telemetry.Telemetry
		if tc.metrics {
			var err error
			if tel, err = telemetry.New(ctx, telemetry.Options{Metrics: true, Getenv: func(k string) string { return tc.env[k] }}); err != nil {
				b.Fatal(err)
			}
			defer tel.Shutdown(ctx)
			opts.Observer, cfg.Observer = tel, tel
		}
		svc, _, key := benchWorkspaceWith(b, opts, papers...)
		tel.WatchMemory(svc.Memory())
		vs = append(vs, &variant{name: tc.name, h: httpapi.New(svc, cfg), key: key.Key})
	}
	const body = `{"question":"How does sleep deprivation affect memory consolidation?","budget_tokens":2000}`
	recall := func(v *variant) {
		req := httptest.NewRequest("POST", "/v1/recall", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+v.key)
		rec := httptest.NewRecorder()
		start := time.Now()
		v.h.ServeHTTP(rec, req)
		v.spent = append(v.spent, time.Since(start))
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: status %d: %s", v.name, rec.Code, rec.Body)
		}
	}
	for _, v := range vs { // warm each index
		recall(v)
		v.spent = v.spent[:0]
	}
	n := 0
	for b.Loop() {
		for i := range vs {
			recall(vs[(n+i)%len(vs)])
		}
		n++
	}
	for _, v := range vs {
		slices.Sort(v.spent)
		var sum time.Duration
		for _, d := range v.spent {
			sum += d
		}
		b.ReportMetric(float64(v.spent[len(v.spent)/2].Microseconds()), v.name+"-p50-µs")
		b.ReportMetric(float64(sum.Microseconds())/float64(len(v.spent)), v.name+"-mean-µs")
	}
}

// BenchmarkHandlerRecall compares a recall through the handler (no
// network, JSON request log on) with the same call in-process, from
// parallel callers: the difference is what the server adds to a recall.
func BenchmarkHandlerRecall(b *testing.B) {
	ctx := context.Background()
	var papers []papermem.PaperInput
	for i := range 200 {
		text := fmt.Sprintf("# Abstract\nWe show that sleep deprivation impairs memory consolidation in cohort %d. "+
			"Caffeine improves reaction time in older adults.\n\n# Results\nIn shift workers, vitamin D slows cognitive decline by %d%%. "+
			"Air pollution raises cortisol levels in adolescents.", i, 5+i%40)
		papers = append(papers, papermem.PaperInput{DOI: fmt.Sprintf("10.5555/bench.%d", i), Title: "Bench", Text: text})
	}
	svc, ws, key := benchWorkspace(b, papers...)
	h := httpapi.New(svc, httpapi.Config{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), RateLimit: 1 << 30})
	const question = "How does sleep deprivation affect memory consolidation?"
	b.Run("InProcess", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := ws.Recall(ctx, papermem.RecallRequest{Question: question, BudgetTokens: 2000}); err != nil {
					b.Error(err)
				}
			}
		})
	})
	b.Run("Handler", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req := httptest.NewRequest("POST", "/v1/recall", strings.NewReader(`{"question":"`+question+`","budget_tokens":2000}`))
				req.Header.Set("Authorization", "Bearer "+key.Key)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	})
}
