package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// listening matches the start-up line, which names the dashboard's address.
var listening = regexp.MustCompile(`"msg":"listening","addr":"(https?://[^"]+)".*"dashboard":"https?://[^"]+/dashboard/"`)

// start runs the server on a free loopback port and returns its base URL
// once /v1/health answers, and a function that stops it and returns run's
// error.
func start(t *testing.T, args []string, vars map[string]string) (string, func() error) {
	t.Helper()
	base, _, stop := startWith(t, args, vars, http.DefaultClient)
	return base, stop
}

// startWith is start polling /v1/health with client; it returns the
// server's log too.
func startWith(t *testing.T, args []string, vars map[string]string, client *http.Client) (string, *testutil.Buffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &testutil.Buffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, args, env(vars), out) }()
	stop := func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("server did not stop")
			return nil
		}
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\n%s", err, out.String())
		default:
		}
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			res, err := client.Get(m[1] + "/v1/health")
			if err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return m[1], out, stop
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	t.Fatalf("server never became healthy:\n%s", out.String())
	return "", nil, nil
}

func call(t *testing.T, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	return callWith(t, http.DefaultClient, method, url, token, body)
}

// callWith is call through client.
func callWith(t *testing.T, client *http.Client, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func TestRunServesOverTCP(t *testing.T) {
	db := testdb.Path(t)
	base, stop := start(t, []string{"-addr", "127.0.0.1:0", "-db", db}, map[string]string{
		"PAPERMEM_FOUNDER_EMAILS": "root@example.org, other@example.org",
	})

	status, body := call(t, "GET", base+"/v1/health", "", nil)
	if status != 200 || body["status"] != "ok" || body["storage_mode"] != testdb.Engine() || body["vector_enabled"] != true {
		t.Fatalf("health %d %v", status, body)
	}
	status, body = call(t, "GET", base+"/", "", nil)
	if status != 200 || body["service"] != "papermem" || body["api_version"] != "v1" || body["dashboard"] != "/dashboard/" {
		t.Fatalf("root %d %v", status, body)
	}
	res, err := http.Get(base + "/dashboard/login") // the dashboard is served beside the API
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("dashboard login page %d, CSP %q", res.StatusCode, res.Header.Get("Content-Security-Policy"))
	}
	status, body = call(t, "POST", base+"/v1/auth/signup", "", map[string]any{"email": "root@example.org", "password": "long enough"})
	if status != 201 {
		t.Fatalf("signup %d %v", status, body)
	}
	token := body["access_token"].(string)
	status, body = call(t, "POST", base+"/v1/papers", token, map[string]any{"doi": "10.1000/tcp", "title": "Over TCP", "text": "We show that TCP works."})
	if status != 201 || body["doi"] != "10.1000/tcp" {
		t.Fatalf("store %d %v", status, body)
	}
	status, body = call(t, "GET", base+"/v1/papers/10.1000%2Ftcp/exists", token, nil)
	if status != 200 || body["exists"] != true {
		t.Fatalf("exists %d %v", status, body)
	}
	status, body = call(t, "GET", base+"/v1/admin/me", token, nil)
	if status != 200 || body["is_founder"] != true {
		t.Fatalf("admin me %d %v", status, body)
	}
	if err := stop(); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}

	// The data and the generated JWT secret survive a restart.
	base, stop = start(t, []string{"-addr", "127.0.0.1:0"}, map[string]string{"PAPERMEM_DB": db})
	defer stop()
	status, body = call(t, "GET", base+"/v1/papers/10.1000/tcp/exists", token, nil)
	if status != 200 || body["exists"] != true {
		t.Fatalf("after restart: %d %v", status, body)
	}
}

// A database indexed with another embedder is refused unless
// PAPERMEM_REINDEX=1 re-embeds it.
func TestRunReindex(t *testing.T) {
	db := testdb.Path(t)
	old, err := papermem.Open(context.Background(), db, &papermem.Options{Embedder: papermem.NewHashEmbedder(256)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Remember(context.Background(), "u", papermem.NoteInput{Text: "taekwondo on Sundays"}); err != nil {
		t.Fatal(err)
	}
	old.Close()
	vars := map[string]string{"PAPERMEM_DB": db, "PAPERMEM_ADDR": "127.0.0.1:0"}
	if err := Run(context.Background(), nil, env(vars), io.Discard); err == nil || !strings.Contains(err.Error(), "embedder") {
		t.Fatalf("a database of another embedder: %v", err)
	}
	vars["PAPERMEM_REINDEX"] = "1"
	_, stop := start(t, nil, vars)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	m, err := papermem.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatalf("after reindexing: %v", err)
	}
	defer m.Close()
	res, err := m.RecallUser(context.Background(), "u", papermem.UserRecallRequest{Question: "taekwondo or other martial arts", Retrieval: papermem.RetrievalVector})
	if err != nil || len(res.Spans) != 1 {
		t.Fatalf("after reindexing: %+v, %v", res, err)
	}
}

func TestRunInMemory(t *testing.T) {
	base, stop := start(t, []string{"-db", ":memory:"}, map[string]string{"PAPERMEM_ADDR": "127.0.0.1:0", "PAPERMEM_DEV_AUTH": "1"})
	defer stop()
	status, body := call(t, "GET", base+"/v1/health", "", nil)
	if status != 200 || body["storage_mode"] != "memory" {
		t.Fatalf("health %d %v", status, body)
	}
}

func TestGrantFounder(t *testing.T) {
	db := testdb.Path(t)
	base, stop := start(t, []string{"-addr", "127.0.0.1:0", "-db", db}, nil)
	status, body := call(t, "POST", base+"/v1/auth/signup", "", map[string]any{"email": "ada@example.org", "password": "long enough"})
	if status != 201 {
		t.Fatalf("signup %d %v", status, body)
	}
	token := body["access_token"].(string)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"-db", db, "grant-founder", "ADA@example.org"}, env(nil), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "granted founder access to ada@example.org") {
		t.Fatalf("output %q", out.String())
	}
	if err := Run(context.Background(), []string{"-db", db, "grant-founder", "nobody@example.org"}, env(nil), io.Discard); err == nil {
		t.Fatal("granting an unknown email succeeded")
	}
	base, stop = start(t, []string{"-addr", "127.0.0.1:0", "-db", db}, nil)
	defer stop()
	status, body = call(t, "GET", base+"/v1/admin/me", token, nil)
	if status != 200 || body["is_founder"] != true {
		t.Fatalf("admin me after grant %d %v", status, body)
	}
}

func TestConfigErrors(t *testing.T) {
	db := testdb.Path(t)
	for name, tc := range map[string]struct {
		args []string
		vars map[string]string
	}{
		"DevAuthOnAllInterfaces": {[]string{"-addr", ":0"}, map[string]string{"PAPERMEM_DEV_AUTH": "1"}},
		"DevAuthOnPublicAddress": {[]string{"-addr", "0.0.0.0:8080"}, map[string]string{"PAPERMEM_DEV_AUTH": "1"}},
		"DevAuthNotASwitch":      {nil, map[string]string{"PAPERMEM_DEV_AUTH": "yes"}},
		"SharedLimitsNotASwitch": {nil, map[string]string{"PAPERMEM_SHARED_LIMITS": "on"}},
		"BadRateLimit":           {nil, map[string]string{"PAPERMEM_RATE_LIMIT": "many"}},
		"NegativeAuthRateLimit":  {nil, map[string]string{"PAPERMEM_AUTH_RATE_LIMIT": "-3"}},
		"BadUploadSize":          {nil, map[string]string{"PAPERMEM_MAX_UPLOAD_BYTES": "1e9"}},
		"BadIndexBound":          {nil, map[string]string{"PAPERMEM_INDEX_MAX_BYTES": "lots"}},
		"ShortJWTSecret":         {nil, map[string]string{"PAPERMEM_JWT_SECRET": "short"}},
		"ModelMissing":           {nil, map[string]string{"PAPERMEM_EMBEDDINGS_URL": "http://127.0.0.1:1/v1/embeddings"}},
		"UnknownFlag":            {[]string{"-port", "80"}, nil},
		"UnknownCommand":         {[]string{"-db", db, "launch"}, nil},
		"BadSync":                {nil, map[string]string{"PAPERMEM_SYNC": "off"}},
		"BadWriteWait":           {nil, map[string]string{"PAPERMEM_WRITE_WAIT": "10"}},
		"BackupNoDest":           {[]string{"-db", db, "backup"}, nil},
		"BadTrustedProxy":        {nil, map[string]string{"PAPERMEM_TRUSTED_PROXIES": "10.0.0.0/8, proxy.internal"}},
		"BadOrigins":             {nil, map[string]string{"PAPERMEM_ORIGINS": "no"}},
		"BadCrossrefURL":         {nil, map[string]string{"PAPERMEM_CROSSREF_URL": "api.crossref.org"}},
		"BadContact":             {nil, map[string]string{"PAPERMEM_CONTACT_EMAIL": "ops"}},
		"BadOriginDeadline":      {nil, map[string]string{"PAPERMEM_ORIGIN_DEADLINE": "5"}},
		"BadCitations":           {nil, map[string]string{"PAPERMEM_CITATIONS": "no"}},
	} {
		t.Run(name, func(t *testing.T) {
			if err := Run(context.Background(), tc.args, env(tc.vars), io.Discard); err == nil {
				t.Fatal("run succeeded")
			}
		})
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	c, rest, err := loadConfig([]string{"-addr", "localhost:9999"}, env(map[string]string{
		"PAPERMEM_ADDR":                "127.0.0.1:1",
		"PAPERMEM_DB":                  "/tmp/x.db",
		"PAPERMEM_JWT_SECRET":          strings.Repeat("s", 32),
		"PAPERMEM_FOUNDER_EMAILS":      "a@x.org,,b@x.org ",
		"PAPERMEM_PAYMENT_SECRET":      "pay",
		"PAPERMEM_DEV_AUTH":            "1",
		"PAPERMEM_RATE_LIMIT":          "120",
		"PAPERMEM_SHARED_LIMITS":       "1",
		"PAPERMEM_AUTH_RATE_LIMIT":     "5",
		"PAPERMEM_MAX_UPLOAD_BYTES":    "1048576",
		"PAPERMEM_FETCH_ALLOW_PRIVATE": "1",
		"PAPERMEM_INDEX_MAX_BYTES":     "500000",
		"PAPERMEM_INDEX_DIR":           "/tmp/index",
		"PAPERMEM_SYNC":                "full",
		"PAPERMEM_WRITE_QUEUE":         "64",
		"PAPERMEM_WRITE_WAIT":          "2s",
		"PAPERMEM_BACKUP_DIR":          "/tmp/backups",
		"PAPERMEM_TRUSTED_PROXIES":     "10.1.2.3/8, ::1 ,127.0.0.1,",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(c.addr, c.db, string(c.api.JWTSecret), c.api.FounderEmails, c.hosted.Payments != nil, c.api.DevAuth,
		c.api.RateLimit, c.api.SharedLimits, c.api.AuthRateLimit, c.opts.MaxIngestBytes, c.fetch.AllowPrivate, c.fetch.MaxBytes, c.opts.IndexMaxBytes, c.opts.IndexDir, c.opts.Sync, c.api.BackupDir, c.opts.WriteQueue, c.opts.WriteWait, c.api.TrustedProxies, len(rest))
	want := fmt.Sprint("localhost:9999", "/tmp/x.db", strings.Repeat("s", 32), []string{"a@x.org", "b@x.org"}, true, true,
		120, true, 5, int64(1048576), true, int64(1048576), int64(500000), "/tmp/index", "full", "/tmp/backups", 64, 2*time.Second,
		[]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("127.0.0.1/32")}, 0)
	if got != want {
		t.Fatalf("config\n got %s\nwant %s", got, want)
	}
	c, _, err = loadConfig(nil, env(nil), io.Discard)
	if err != nil || c.addr != defaultAddr || c.db != DefaultDB || c.api.DevAuth || c.api.SharedLimits || c.opts.Embedder != nil {
		t.Fatalf("defaults %+v %v", c, err)
	}
	// The origins: on by default, at the public services; each base and
	// the contact address from the environment; off switches them off.
	if c.opts.Origins == nil || *c.opts.Origins != (papermem.OriginOptions{}) {
		t.Errorf("default origins %+v, want on with the public services", c.opts.Origins)
	}
	c, _, err = loadConfig(nil, env(map[string]string{"PAPERMEM_CROSSREF_URL": "http://127.0.0.1:9/cr", "PAPERMEM_UNPAYWALL_URL": "http://u",
		"PAPERMEM_OPENALEX_URL": "https://oa.example", "PAPERMEM_ARXIV_URL": "http://ax", "PAPERMEM_CONTACT_EMAIL": "ops@example.org",
		"PAPERMEM_FETCH_ALLOW_PRIVATE": "1", "PAPERMEM_ORIGIN_DEADLINE": "2500ms", "PAPERMEM_OPENALEX_KEY": " k3y "}), io.Discard)
	wantOrigins := papermem.OriginOptions{CrossrefURL: "http://127.0.0.1:9/cr", UnpaywallURL: "http://u", OpenAlexURL: "https://oa.example",
		ArxivURL: "http://ax", Contact: "ops@example.org", OpenAlexKey: "k3y", AllowPrivate: true, Deadline: 2500 * time.Millisecond}
	if err != nil || c.opts.Origins == nil || *c.opts.Origins != wantOrigins {
		t.Errorf("origins %+v (%v), want %+v", c.opts.Origins, err, wantOrigins)
	}
	if c, _, err = loadConfig(nil, env(map[string]string{"PAPERMEM_ORIGINS": "off"}), io.Discard); err != nil || c.opts.Origins != nil {
		t.Errorf("PAPERMEM_ORIGINS=off: origins %+v (%v)", c.opts.Origins, err)
	}
	if c, _, err = loadConfig(nil, env(map[string]string{"PAPERMEM_CITATIONS": "off"}), io.Discard); err != nil || c.opts.Origins == nil || !c.opts.Origins.NoCitations {
		t.Errorf("PAPERMEM_CITATIONS=off: origins %+v (%v), want NoCitations", c.opts.Origins, err)
	}
	// Shared rate limits by default on PostgreSQL, unless switched off.
	const pg = "postgres://papermem@db.example.org/papermem"
	for vars, want := range map[string]bool{"": true, "0": false, "1": true} {
		c, _, err := loadConfig([]string{"-db", pg}, env(map[string]string{"PAPERMEM_SHARED_LIMITS": vars}), io.Discard)
		if err != nil || c.api.SharedLimits != want {
			t.Errorf("PostgreSQL, PAPERMEM_SHARED_LIMITS=%q: shared %v (%v), want %v", vars, c.api.SharedLimits, err, want)
		}
	}
}

func TestHTTPEmbedder(t *testing.T) {
	fake, calls := testutil.FakeEmbeddings(t, "nomic-embed-text")
	e, err := embedderFromEnv(env(map[string]string{"PAPERMEM_EMBEDDINGS_URL": fake.URL, "PAPERMEM_EMBEDDINGS_MODEL": "nomic-embed-text"}))
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 16 || e.Name() != "openai-compatible:nomic-embed-text" {
		t.Fatalf("embedder %s %d", e.Name(), e.Dim())
	}
	if _, err := embedderFromEnv(env(map[string]string{"PAPERMEM_EMBEDDINGS_URL": fake.URL, "PAPERMEM_EMBEDDINGS_MODEL": "other"})); err == nil {
		t.Fatal("a failing endpoint was accepted")
	}

	// A server over the HTTP embedder recalls through it.
	base, stop := start(t, []string{"-addr", "127.0.0.1:0", "-db", testdb.Path(t)}, map[string]string{
		"PAPERMEM_EMBEDDINGS_URL": fake.URL, "PAPERMEM_EMBEDDINGS_MODEL": "nomic-embed-text", "PAPERMEM_DEV_AUTH": "1"})
	defer stop()
	before := calls.Load()
	req, _ := http.NewRequest("POST", base+"/v1/recall", strings.NewReader(`{"question":"anything"}`))
	req.Header.Set("X-Dev-Org-Id", "lab-one")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || calls.Load() == before {
		t.Fatalf("recall %d, embedder calls %d → %d", res.StatusCode, before, calls.Load())
	}
}

// TestBackupCommand backs up the database of a serving server with the
// backup sub-command, then serves the copy: the paper stored before is
// there. A backup over an existing file is refused.
func TestBackupCommand(t *testing.T) {
	testdb.SQLiteOnly(t, "the backup command copies the SQLite file (papermem's TestBackupPostgres covers the refusal)")
	dir := t.TempDir()
	db, dest := filepath.Join(dir, "live.db"), filepath.Join(dir, "copy.db")
	vars := map[string]string{"PAPERMEM_DEV_AUTH": "1"}
	dev := func(method, url string, body string) int {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("X-Dev-Org-Id", "lab-one")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if method == "GET" && !strings.Contains(string(b), "true") {
			return http.StatusNotFound
		}
		return res.StatusCode
	}
	base, stop := start(t, []string{"-addr", "127.0.0.1:0", "-db", db}, vars)
	if code := dev("POST", base+"/v1/papers", `{"doi":"10.1/kept","title":"Kept","text":"Backups keep papers."}`); code != http.StatusCreated {
		t.Fatalf("store: %d", code)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"-db", db, "backup", dest}, env(nil), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "backed up to "+dest) {
		t.Errorf("output %q", out.String())
	}
	if err := Run(context.Background(), []string{"-db", db, "backup", dest}, env(nil), io.Discard); err == nil {
		t.Error("a backup over an existing file succeeded")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	base, stop = start(t, []string{"-addr", "127.0.0.1:0", "-db", dest}, vars)
	defer stop()
	if code := dev("GET", base+"/v1/papers/10.1/kept/exists", ""); code != http.StatusOK {
		t.Fatalf("the server on the backup lacks the paper: %d", code)
	}
}

// TestMemoryLimit checks the server's soft memory limit: the search
// index's budget plus the headroom, unless GOMEMLIMIT sets one.
func TestMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, c := range []struct {
		index int64
		want  int64
	}{{0, papermem.DefaultIndexMaxBytes + memoryHeadroom}, {4 << 30, 4<<30 + memoryHeadroom}} {
		if got := setMemoryLimit(env(nil), c.index); got != c.want || debug.SetMemoryLimit(-1) != c.want {
			t.Errorf("index budget %d: limit %d (in force %d), want %d", c.index, got, debug.SetMemoryLimit(-1), c.want)
		}
	}
	debug.SetMemoryLimit(3 << 30)
	if got := setMemoryLimit(env(map[string]string{"GOMEMLIMIT": "3GiB"}), 0); got != 3<<30 || debug.SetMemoryLimit(-1) != 3<<30 {
		t.Errorf("with GOMEMLIMIT set: limit %d, in force %d, want 3 GiB left as it is", got, debug.SetMemoryLimit(-1))
	}
}
