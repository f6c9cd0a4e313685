package serve

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/papermem/papermem/internal/testdb"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// standInOrigins returns the variables pointing every origin at a stand-in that
// knows no paper (Crossref's 404 answer), and counts its requests.
func standInOrigins(t *testing.T) (map[string]string, *int) {
	var mu sync.Mutex
	n := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*n++
		mu.Unlock()
		http.Error(w, "Resource not found.", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	return map[string]string{"PAPERMEM_CROSSREF_URL": srv.URL, "PAPERMEM_UNPAYWALL_URL": srv.URL, "PAPERMEM_OPENALEX_URL": srv.URL,
		"PAPERMEM_ARXIV_URL": srv.URL, "PAPERMEM_CONTACT_EMAIL": "ops@example.org"}, n
}

// exercise signs up, stores a paper, ingests a file, recalls, asks for a
// found and a missing paper and an unknown route over base, and returns
// what must never appear in telemetry: the workspace, the user, the
// e-mail, the token and the DOIs.
func exercise(t *testing.T, base string) []string {
	t.Helper()
	status, body := call(t, "POST", base+"/v1/auth/signup", "", map[string]any{"email": "telemetry.user@example.org", "password": "long enough"})
	if status != 201 {
		t.Fatalf("signup %d %v", status, body)
	}
	token := body["access_token"].(string)
	user := body["user"].(map[string]any)
	secret := []string{"telemetry.user@example.org", token, "10.7777/found", "10.7777/missing", "10.7777%2Ffound", "10.7777%2Fmissing",
		user["user_id"].(string), user["org_id"].(string)}
	status, body = call(t, "POST", base+"/v1/papers", token, map[string]any{"doi": "10.7777/found", "title": "Sleep and memory",
		"text": "We show that sleep deprivation impairs memory consolidation in adults."})
	if status != 201 {
		t.Fatalf("store %d %v", status, body)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "notes.md")
	io.WriteString(fw, "# Notes\nCaffeine improves reaction time in older adults.\n")
	mw.Close()
	req, _ := http.NewRequest("POST", base+"/v1/ingest", &form)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 && res.StatusCode != 200 {
		t.Fatalf("ingest %d", res.StatusCode)
	}
	for range 3 {
		if status, body = call(t, "POST", base+"/v1/recall", token, map[string]any{"question": "Does sleep deprivation affect memory?"}); status != 200 {
			t.Fatalf("recall %d %v", status, body)
		}
	}
	if status, body = call(t, "GET", base+"/v1/papers/10.7777%2Ffound/cite", token, nil); status != 200 {
		t.Fatalf("cite found %d %v", status, body)
	}
	if status, body = call(t, "GET", base+"/v1/papers/10.7777%2Fmissing/cite", token, nil); status != 404 {
		t.Fatalf("cite missing %d %v", status, body)
	}
	if status, _ = call(t, "GET", base+"/v1/no/such/route", token, nil); status != 404 {
		t.Fatalf("unknown route %d", status)
	}
	return secret
}

var metricsLine = regexp.MustCompile(`"msg":"metrics","addr":"(http://[^"]+)"`)

// TestRunMetrics: with PAPERMEM_METRICS_ADDR the metrics listener serves
// the request series by route template (a 404 among them), the Go
// runtime's, the origin requests' and papermem's own, and nothing that
// names a workspace, a user, an e-mail, a key or a DOI; the API port does
// not serve /metrics.
func TestRunMetrics(t *testing.T) {
	vars, origins := standInOrigins(t)
	vars["PAPERMEM_METRICS_ADDR"] = "127.0.0.1:0"
	base, out, stop := startWith(t, []string{"-addr", "127.0.0.1:0", "-db", testdb.Path(t)}, vars, http.DefaultClient)
	defer stop()
	secret := exercise(t, base)
	if *origins == 0 {
		t.Fatal("the store asked no origin")
	}
	m := metricsLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no metrics line in the log:\n%s", out)
	}
	res, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("metrics %d", res.StatusCode)
	}
	for _, want := range []string{
		`http_server_request_duration_seconds_count{http_request_method="POST",http_response_status_code="201",http_route="/v1/auth/signup"} 1`,
		`http_server_request_duration_seconds_count{http_request_method="POST",http_response_status_code="201",http_route="/v1/papers"} 1`,
		`http_server_request_duration_seconds_count{http_request_method="POST",http_response_status_code="200",http_route="/v1/recall"} 3`,
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="200",http_route="/v1/papers/{doi}/cite"} 1`,
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="404",http_route="/v1/papers/{doi}/cite"} 1`,
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="404",http_route=""} 1`,
		`http_server_active_requests{http_request_method="POST"} 0`,
		`http_client_request_duration_seconds_count{http_response_status_code="404",server_address="127.0.0.1"}`,
		`papermem_recall_duration_seconds_count{kind="workspace",outcome="ok"} 3`,
		`papermem_recall_tokens_count{kind="workspace"} 3`,
		`papermem_ingest_total{format="markdown",outcome="ok"} 1`,
		`papermem_write_duration_seconds_count{outcome="ok"}`,
		`papermem_write_queue_depth 0`,
		`papermem_index_nodes `,
		`papermem_index_bytes `,
		`papermem_database_up 1`,
		`go_goroutines `,
		`go_memstats_heap_alloc_bytes `,
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	for _, s := range secret {
		if strings.Contains(string(text), s) {
			t.Errorf("metrics name %q", s)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", text)
	}
	// The API port does not serve them.
	res, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 404 || strings.Contains(string(body), "http_server") {
		t.Errorf("API port /metrics: %d %.200s", res.StatusCode, body)
	}
}

// collector is a stand-in OTLP/HTTP collector: it keeps the spans posted
// to /v1/traces.
type collector struct {
	mu    sync.Mutex
	posts int
	names []string
	raw   [][]byte
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != "POST" || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP trace export", http.StatusNotFound)
		return
	}
	var rd io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		rd = zr
	}
	b, _ := io.ReadAll(rd)
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.posts++
	c.raw = append(c.raw, b)
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.names = append(c.names, s.Name)
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Write(out)
}

// TestRunTraces: with OTEL_EXPORTER_OTLP_ENDPOINT, spans of the requests,
// the recall's stages, the writes and the origin requests arrive at the
// collector's /v1/traces, none naming a user, an e-mail, a key or a DOI;
// without it nothing is sent.
func TestRunTraces(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()

	vars, _ := standInOrigins(t)
	base, stop := start(t, []string{"-addr", "127.0.0.1:0", "-db", testdb.Path(t)}, vars)
	exercise(t, base)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if col.posts != 0 {
		t.Fatalf("without OTEL_EXPORTER_OTLP_ENDPOINT, %d exports", col.posts)
	}

	vars["OTEL_EXPORTER_OTLP_ENDPOINT"] = srv.URL
	base, stop = start(t, []string{"-addr", "127.0.0.1:0", "-db", testdb.Path(t)}, vars)
	secret := exercise(t, base)
	if err := stop(); err != nil { // flushes the spans
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	got := map[string]int{}
	for _, n := range col.names {
		got[n]++
	}
	for _, want := range []string{"POST /v1/auth/signup", "POST /v1/papers", "POST /v1/recall", "GET /v1/papers/{doi}/cite", "POST /v1/ingest",
		"papermem.recall", "papermem.recall.index", "papermem.recall.rank", "papermem.recall.pack", "papermem.write", "papermem.ingest", "GET"} {
		if got[want] == 0 {
			t.Errorf("no span %q among %v", want, got)
		}
	}
	if got["POST /v1/recall"] != 3 || got["papermem.recall"] != 3 {
		t.Errorf("recall spans: %d requests, %d recalls, want 3 each", got["POST /v1/recall"], got["papermem.recall"])
	}
	for _, b := range col.raw {
		for _, s := range secret {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("a span names %q", s)
			}
		}
	}
}
