package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// BenchmarkPaperExists measures one authenticated GET over loopback HTTP
// (API key, keep-alive) against the in-process call.
func BenchmarkPaperExists(b *testing.B) {
	ctx := context.Background()
	m := testutil.Open(b, nil)
	ws := m.Workspace("bench")
	if _, _, err := ws.StorePaper(ctx, papermem.PaperInput{DOI: "10.1/bench", Title: "Bench"}); err != nil {
		b.Fatal(err)
	}
	key, err := ws.CreateAPIKey(ctx, "bench", papermem.CreatorWorkspace("bench"))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(m, httpapi.Config{Logger: slog.New(slog.DiscardHandler), RateLimit: 1 << 30}))
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
	ctx := context.Background()
	m := testutil.Open(b, nil)
	ws := m.Workspace("bench")
	if _, _, err := ws.StorePaper(ctx, papermem.PaperInput{DOI: "10.1/bench", Title: "Bench"}); err != nil {
		b.Fatal(err)
	}
	key, err := ws.CreateAPIKey(ctx, "bench", papermem.CreatorWorkspace("bench"))
	if err != nil {
		b.Fatal(err)
	}
	h := httpapi.New(m, httpapi.Config{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), RateLimit: 1 << 30})
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/v1/papers/10.1/bench/exists", nil)
			req.Header.Set("Authorization", "Bearer "+key.Key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
}
