package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/papermem/papermem"
)

// scrape returns t's metrics in the text format.
func scrape(t *testing.T, tel *Telemetry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("metrics %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func TestMemoryOperations(t *testing.T) {
	tel, err := New(context.Background(), Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, end := tel.Start(ctx, papermem.OpRecall, "user")
	end(1234, nil)
	_, end = tel.Start(ctx, papermem.OpRecall, "workspace")
	end(0, papermem.Errorf(papermem.EINVALID, "bad"))
	_, end = tel.Start(ctx, papermem.OpIngest, "pdf")
	end(0, errors.New("a failure of no code"))
	_, end = tel.Start(ctx, papermem.OpOrigin, "api.crossref.org")
	end(503, nil)
	_, end = tel.Start(ctx, papermem.OpRecallStage, "rank") // traces only
	end(0, nil)
	text := scrape(t, tel)
	for _, want := range []string{
		`papermem_recall_duration_seconds_count{kind="user",outcome="ok"} 1`,
		`papermem_recall_tokens_bucket{kind="user",le="2048"} 1`,
		`papermem_recall_tokens_bucket{kind="user",le="1024"} 0`,
		`papermem_recall_duration_seconds_count{kind="workspace",outcome="invalid_input"} 1`,
		`papermem_ingest_total{format="pdf",outcome="internal"} 1`,
		`http_client_request_duration_seconds_count{http_response_status_code="503",server_address="api.crossref.org"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, `papermem_recall_tokens_count{kind="workspace"}`) {
		t.Error("a failed recall counted tokens")
	}
}

// TestServerAddresses: past MaxServers distinct hosts, outbound requests
// are counted as "other".
func TestServerAddresses(t *testing.T) {
	tel, err := New(context.Background(), Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxServers + 5 {
		_, end := tel.Outbound(context.Background(), fmt.Sprintf("host%d.example", i))
		end(200, nil)
	}
	text := scrape(t, tel)
	if n := strings.Count(text, "http_client_request_duration_seconds_count{"); n != MaxServers+1 {
		t.Errorf("%d client series, want %d", n, MaxServers+1)
	}
	if !strings.Contains(text, `http_client_request_duration_seconds_count{http_response_status_code="200",server_address="other"} 5`) {
		t.Error("no other series of 5")
	}
}

// TestRequests: the request histogram by method, route and status; an
// unknown method is _OTHER, so that clients cannot make series.
func TestRequests(t *testing.T) {
	tel, err := New(context.Background(), Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v1/papers/10.1/x/exists", nil)
	_, end := tel.StartRequest(r)
	if !strings.Contains(scrape(t, tel), `http_server_active_requests{http_request_method="GET"} 1`) {
		t.Error("the request in flight is not active")
	}
	end("/v1/papers/{doi}/exists", 200)
	_, end = tel.StartRequest(httptest.NewRequest("BREW", "/pot", nil))
	end("", 404)
	text := scrape(t, tel)
	for _, want := range []string{
		`http_server_active_requests{http_request_method="GET"} 0`,
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="200",http_route="/v1/papers/{doi}/exists"} 1`,
		`http_server_request_duration_seconds_count{http_request_method="_OTHER",http_response_status_code="404",http_route=""} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, "10.1/x") || strings.Contains(text, "BREW") {
		t.Error("a path or method from the client became a label")
	}
}

func TestTraceSettings(t *testing.T) {
	for name, tc := range map[string]struct {
		vars    map[string]string
		tracing bool
		fails   bool
	}{
		"Unset":        {map[string]string{}, false, false},
		"Endpoint":     {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, false},
		"TracesOnly":   {map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://collector.example/v1/traces"}, true, false},
		"SDKDisabled":  {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}, false, false},
		"ExporterNone": {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, false, false},
		"GRPC":         {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, true},
		"NotAURL":      {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, false, true},
		"BadHeaders":   {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, false, true},
	} {
		t.Run(name, func(t *testing.T) {
			tel, err := New(context.Background(), Options{Getenv: func(k string) string { return tc.vars[k] }})
			if (err != nil) != tc.fails {
				t.Fatalf("error %v, want failure %v", err, tc.fails)
			}
			if err == nil {
				defer tel.Shutdown(context.Background())
				if tel.Tracing() != tc.tracing {
					t.Errorf("tracing %v, want %v", tel.Tracing(), tc.tracing)
				}
				if tel.Handler() != nil {
					t.Error("metrics served without Options.Metrics")
				}
			}
		})
	}
}

func TestParseHeaders(t *testing.T) {
	got, err := parseHeaders("api-key=abc%20def, x-tenant = ops", "x-tenant=traces")
	if err != nil || len(got) != 2 || got["api-key"] != "abc def" || got["x-tenant"] != "traces" {
		t.Fatalf("%v, %v", got, err)
	}
}

func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"", "a=b", "a=b,c=d", "a=%zz", ",,=", "k=v=w", " k = v "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parseHeaders(s)
		if err != nil {
			return
		}
		for k := range h {
			if k == "" || strings.TrimSpace(k) != k {
				t.Fatalf("key %q from %q", k, s)
			}
		}
	})
}

// A nil *Telemetry, the server's without metrics or traces, observes
// nothing and serves nothing.
func TestNil(t *testing.T) {
	var tel *Telemetry
	if tel.Handler() != nil || tel.Tracing() || tel.Shutdown(context.Background()) != nil {
		t.Fatal("a nil Telemetry does something")
	}
	tel.WatchMemory(nil)
}

// BenchmarkObserveRecall is what the telemetry adds to one recall request
// (the request, the recall and its three stages), metrics only and with
// traces (spans exported to a stand-in collector): to set beside the
// recall's own milliseconds (BenchmarkRecallTelemetry, httpapi).
func BenchmarkObserveRecall(b *testing.B) {
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer collector.Close()
	for _, tc := range []struct {
		name string
		env  map[string]string
	}{
		{"Metrics", nil},
		{"Traces", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}},
	} {
		tel, err := New(context.Background(), Options{Metrics: true, Getenv: func(k string) string { return tc.env[k] }})
		if err != nil {
			b.Fatal(err)
		}
		defer tel.Shutdown(context.Background())
		r := httptest.NewRequest("POST", "/v1/recall", nil)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx, endRequest := tel.StartRequest(r)
				ctx, endRecall := tel.Start(ctx, papermem.OpRecall, "workspace")
				for _, stage := range []string{"index", "rank", "pack"} {
					_, end := tel.Start(ctx, papermem.OpRecallStage, stage)
					end(0, nil)
				}
				endRecall(1800, nil)
				endRequest("/v1/recall", 200)
			}
		})
	}
}
