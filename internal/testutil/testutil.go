// Package testutil holds helpers shared by papermem's tests.
package testutil

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testdb"
)

// Open opens a Memory over a fresh database of the test run's engine
// (testdb.Path), with the offline embedder unless opts says otherwise, and
// closes it when the test ends.
func Open(tb testing.TB, opts *papermem.Options) *papermem.Memory {
	tb.Helper()
	m, err := papermem.Open(context.Background(), testdb.Path(tb), opts)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}

// Hosted returns the hosted service over m, with opts, and closes it when
// the test ends (before m, when m was opened earlier in the test).
func Hosted(tb testing.TB, m *papermem.Memory, opts *hosted.Options) *hosted.Service {
	tb.Helper()
	svc, err := hosted.New(m, opts)
	if err != nil {
		tb.Fatalf("hosted service: %v", err)
	}
	tb.Cleanup(func() { svc.Close() })
	return svc
}

// OpenHosted opens a Memory as Open does and returns the hosted service
// over it, with opts; both are closed when the test ends.
func OpenHosted(tb testing.TB, opts *papermem.Options, hopts *hosted.Options) *hosted.Service {
	tb.Helper()
	return Hosted(tb, Open(tb, opts), hopts)
}

// FakeEmbeddings serves an OpenAI-compatible embeddings endpoint for
// model: 16-dimensional vectors counting each text's characters modulo 16,
// items deliberately out of order; any other model gets 400. calls counts
// the requests. The server closes when the test ends.
func FakeEmbeddings(tb testing.TB, model string) (srv *httptest.Server, calls *atomic.Int64) {
	tb.Helper()
	calls = new(atomic.Int64)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != model {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			v := make([]float32, 16)
			for _, r := range req.Input[i] {
				v[int(r)%16]++
			}
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	tb.Cleanup(srv.Close)
	return srv, calls
}

// Raw opens the database at path (a file or a PostgreSQL URL, as
// testdb.Path gives) with database/sql alone, to look at or change its
// tables behind papermem's back; SQLite opens the file read-only unless
// writable is set. It is closed when the test ends.
func Raw(tb testing.TB, path string, writable bool) *sql.DB {
	tb.Helper()
	db, err := store.OpenSQL(path, writable)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// OpenChecked opens the database file at path read-only, as a raw
// database/sql handle closed when the test ends, after checking that
// SQLite's integrity_check finds it ok.
func OpenChecked(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		tb.Fatalf("integrity_check of %s: %q (%v)", path, check, err)
	}
	return db
}

// Buffer is a bytes.Buffer safe for concurrent use: a log destination
// that a server's goroutines write while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written since the last Reset.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reset empties the buffer.
func (s *Buffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// LineSafe percent-encodes the bytes that cannot appear in a request
// target — controls, space, '#', bytes beyond ASCII — and those in also;
// everything else, '%' included, stays raw.
func LineSafe(s, also string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '#' || strings.IndexByte(also, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// WireRequest reads the HTTP/1.1 request of method, target, header lines
// ("Name: value") and body from its wire form, as a server does, with
// Host papermem.test and a loopback RemoteAddr. It reports false for a
// request the server would refuse before any handler runs.
func WireRequest(method, target string, header []string, body []byte) (*http.Request, bool) {
	var w bytes.Buffer
	fmt.Fprintf(&w, "%s %s HTTP/1.1\r\nHost: papermem.test\r\nContent-Length: %d\r\n", method, target, len(body))
	for _, h := range header {
		w.WriteString(h + "\r\n")
	}
	w.WriteString("\r\n")
	w.Write(body)
	req, err := http.ReadRequest(bufio.NewReader(&w))
	if err != nil {
		return nil, false
	}
	req.RemoteAddr = "127.0.0.1:40000"
	return req, true
}

// Boundary is the multipart boundary of the bodies Multipart writes.
const Boundary = "fuzzboundary"

// Multipart returns a multipart/form-data body, boundary Boundary, of text
// fields given as name, value pairs and then one file part.
func Multipart(filename, content string, fields ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(fields); i += 2 {
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", Boundary, fields[i], fields[i+1])
	}
	fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=%q\r\n\r\n%s\r\n--%s--\r\n",
		Boundary, filename, content, Boundary)
	return b.String()
}

// Accounts is a workspace set up for fuzzing a handler: a founder, a
// second user with an API key to revoke, a pending checkout and a paper.
type Accounts struct {
	Org, Email, Password string // the founder's workspace and credentials
	User                 string // the founder's user id
	Victim, VictimKeyID  string // the second user and its API key's id
	Checkout             string // a pending checkout of the workspace
}

// NewAccounts creates Accounts through svc (fuzz-main, owner@fuzz.test);
// give the handler FounderEmails: []string{a.Email}.
func NewAccounts(tb testing.TB, svc *hosted.Service) *Accounts {
	tb.Helper()
	ctx := context.Background()
	a := &Accounts{Org: "fuzz-main", Email: "owner@fuzz.test", Password: "owner-password"}
	u, err := svc.Signup(ctx, hosted.SignupInput{NewUser: hosted.NewUser{Email: a.Email, Password: a.Password}, WorkspaceID: a.Org})
	if err != nil {
		tb.Fatal(err)
	}
	a.User = u.UserID
	v, err := svc.CreateUser(ctx, a.Org, hosted.NewUser{Email: "victim@fuzz.test", Password: "victim-password"})
	if err != nil {
		tb.Fatal(err)
	}
	a.Victim = v.UserID
	hw := svc.Workspace(a.Org)
	k, err := hw.CreateAPIKey(ctx, "victim", hosted.CreatorUser(a.Victim))
	if err != nil {
		tb.Fatal(err)
	}
	a.VictimKeyID = k.KeyID
	c, err := hw.Checkout(ctx, papermem.PlanTeam)
	if err != nil {
		tb.Fatal(err)
	}
	a.Checkout = c.CheckoutID
	if _, _, err := svc.Memory().Workspace(a.Org).StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/x", Title: "Hybrid recall",
		Text: "# Abstract\nBM25 and vectors together improve recall.\n## Results\nRecall rose by 12 points.", Domain: "ml"}); err != nil {
		tb.Fatal(err)
	}
	return a
}
