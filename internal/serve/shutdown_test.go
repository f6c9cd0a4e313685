package serve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

// TestGracefulShutdown stops a server (as SIGTERM does: run's context
// ends) while writers keep storing memories and one request is in flight:
// that request finishes and is acknowledged, requests arriving during the
// drain are answered 503 unavailable (never another 5xx), every
// acknowledged write is in the database, and the database is closed clean
// (SQLite: no -wal file is left and integrity_check is ok).
func TestGracefulShutdown(t *testing.T) {
	db := testdb.Path(t)
	base, stop := start(t, []string{"-addr", "127.0.0.1:0", "-db", db}, map[string]string{"PAPERMEM_DEV_AUTH": "1", "PAPERMEM_RATE_LIMIT": "1000000"})
	addr := strings.TrimPrefix(base, "http://")

	// One request in flight: its headers are sent and the handler has
	// begun reading the body (the server's 100 Continue says so).
	body := `{"doi":"10.1/inflight","title":"In flight","text":"A request in flight when the server stops still finishes."}`
	inflight, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer inflight.Close()
	fmt.Fprintf(inflight, "POST /v1/papers HTTP/1.1\r\nHost: x\r\nX-Dev-Org-Id: lab-one\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	br := bufio.NewReader(inflight)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("in-flight request: %q %v", line, err)
	}
	if line, err := br.ReadString('\n'); err != nil || line != "\r\n" {
		t.Fatalf("in-flight request: %q %v", line, err)
	}

	// Writers under way.
	var mu sync.Mutex
	acked := map[string]bool{}
	statuses := map[int]int{}
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				text := fmt.Sprintf("note %d-%d", g, i)
				req, _ := http.NewRequest("POST", base+"/v1/user/remember", strings.NewReader(`{"text":"`+text+`"}`))
				req.Header.Set("X-Dev-Org-Id", "lab-one")
				req.Header.Set("X-Dev-User-Id", "u1")
				res, err := client.Do(req)
				if err != nil {
					return // the listener closed: the server is gone
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				mu.Lock()
				statuses[res.StatusCode]++
				if res.StatusCode == http.StatusOK {
					acked[text] = true
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(200 * time.Millisecond) // some writes acknowledged before the stop

	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	// While the in-flight request holds the drain open, new requests get
	// 503 with Retry-After, the writers' too.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no 503 while draining")
		}
		res, err := http.Get(base + "/v1/health")
		if err != nil {
			t.Fatalf("connection refused while a request is in flight: %v", err)
		}
		res.Body.Close()
		mu.Lock()
		writers503 := statuses[http.StatusServiceUnavailable]
		mu.Unlock()
		if res.StatusCode == http.StatusServiceUnavailable {
			if res.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			if writers503 > 0 {
				break
			}
		}
	}
	io.WriteString(inflight, body)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("in-flight request cut off: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("in-flight request: status %d", res.StatusCode)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	for code, n := range statuses {
		if code != http.StatusOK && code != http.StatusServiceUnavailable {
			t.Errorf("%d responses with status %d", n, code)
		}
	}
	raw := testutil.Raw(t, db, false)
	if !testdb.Postgres() { // SQLite's file closed clean
		if _, err := os.Stat(db + "-wal"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("-wal left after shutdown: %v", err)
		}
		raw = testutil.OpenChecked(t, db)
	}
	var papers int
	if err := raw.QueryRow(`SELECT count(*) FROM papers WHERE doi = '10.1/inflight'`).Scan(&papers); err != nil || papers != 1 {
		t.Errorf("in-flight paper stored %d times (%v)", papers, err)
	}
	rows, err := raw.Query(`SELECT text FROM memories`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		stored[s] = true
	}
	for text := range acked {
		if !stored[text] {
			t.Errorf("acknowledged write %q lost", text)
		}
	}
	t.Logf("%d writes acknowledged, statuses %v", len(acked), statuses)
	if len(acked) == 0 || statuses[http.StatusServiceUnavailable] == 0 {
		t.Errorf("the test did not exercise the drain: statuses %v", statuses)
	}
}
