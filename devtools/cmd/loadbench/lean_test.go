package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// response is what readResponse returned, for comparison.
type response struct {
	Status    int
	Body      string
	KeepAlive bool
	Err       bool
}

func TestReadResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		wire string
		want []response // responses read one after another from wire
	}{
		{"ContentLength", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"exists\":true}",
			[]response{{Status: 200, Body: `{"exists":true}`, KeepAlive: true}}},
		{"HeaderCaseAndSpaces", "HTTP/1.1 200 OK\r\ncontent-length:   3  \r\n\r\nabc",
			[]response{{Status: 200, Body: "abc", KeepAlive: true}}},
		{"Chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1;ext=1\r\n,\r\nB\r\n 0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n",
			[]response{{Status: 200, Body: "hello, 0123456789", KeepAlive: true}}},
		{"KeepAliveFraming", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabHTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nc",
			[]response{{Status: 200, Body: "ab", KeepAlive: true}, {Status: 404, Body: "xyz", KeepAlive: true}, {Status: 200, Body: "c", KeepAlive: true}}},
		{"EmptyReason", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
			[]response{{Status: 200, KeepAlive: true}}},
		{"Interim", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
			[]response{{Status: 201, Body: "ok", KeepAlive: true}}},
		{"NoContent", "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
			[]response{{Status: 204, KeepAlive: true}, {Status: 200, Body: "x", KeepAlive: true}}},
		{"UntilEOF", "HTTP/1.1 200 OK\r\n\r\nto the end",
			[]response{{Status: 200, Body: "to the end"}}},
		{"ConnectionClose", "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbusy",
			[]response{{Status: 503, Body: "busy"}}},
		{"HTTP10", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx",
			[]response{{Status: 200, Body: "x"}}},
		{"ErrMalformedStatusLine", "HTTP/1.1 OK\r\n\r\n", []response{{Err: true}}},
		{"ErrNotHTTP", "SSH-2.0-OpenSSH_9.6\r\n\r\n", []response{{Err: true}}},
		{"ErrBadContentLength", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", []response{{Err: true}}},
		{"ErrConflictingContentLength", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", []response{{Err: true}}},
		{"ErrShortBody", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", []response{{Status: 200, Err: true}}},
		{"ErrBadChunkSize", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n", []response{{Status: 200, Body: "", Err: true}}},
		{"ErrChunkWithoutCRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", []response{{Status: 200, Body: "ab", Err: true}}},
		{"ErrTruncatedChunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", []response{{Status: 200, Body: "ab", Err: true}}},
		{"ErrUnsupportedEncoding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", []response{{Err: true}}},
		{"ErrHeaderWithoutColon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", []response{{Err: true}}},
		{"ErrEmpty", "", []response{{Err: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tc.wire))
			var buf []byte
			var got []response
			for range tc.want {
				status, body, keepAlive, err := readResponse(br, buf)
				buf = body
				got = append(got, response{Status: status, Body: string(body), KeepAlive: keepAlive, Err: err != nil})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("responses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLeanConn runs the lean client against a real net/http server: both
// framings the server chooses (Content-Length for a small body, chunked
// for one flushed in parts), an error status, and the pre-built request
// (Host, Authorization, Content-Type, Content-Length, body) as the server
// reads it, all on one keep-alive connection.
func TestLeanConn(t *testing.T) {
	big := strings.Repeat(`{"text":"span"},`, 2000)
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small":
			io.WriteString(w, `{"exists":true}`)
		case "/chunked":
			io.WriteString(w, big[:len(big)/2])
			w.(http.Flusher).Flush()
			io.WriteString(w, big[len(big)/2:])
		case "/echo":
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			io.WriteString(w, strings.Join([]string{r.Method, r.Host, r.Header.Get("Authorization"),
				r.Header.Get("Content-Type"), r.Header.Get("Content-Length"), string(body)}, "|"))
		default:
			http.Error(w, `{"error":{"code":"ENOTFOUND"}}`, http.StatusNotFound)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	// The server's framing, as net/http's client sees it, so that both are
	// exercised below.
	for path, chunked := range map[string]bool{"/small": false, "/chunked": true} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if got := len(res.TransferEncoding) == 1 && res.TransferEncoding[0] == "chunked"; got != chunked {
			t.Fatalf("%s: chunked = %v, want %v (Content-Length %d)", path, got, chunked, res.ContentLength)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	before := conns.Load()

	c := &leanConn{addr: addr, timeout: 10 * time.Second}
	defer c.close()
	for _, tc := range []struct {
		name string
		req  request
		want response
	}{
		{"ContentLength", request{method: "GET", path: "/small"}, response{Status: 200, Body: `{"exists":true}`}},
		{"Chunked", request{method: "GET", path: "/chunked"}, response{Status: 200, Body: big}},
		{"Status", request{method: "GET", path: "/nowhere"}, response{Status: 404, Body: `{"error":{"code":"ENOTFOUND"}}` + "\n"}},
		{"RequestAsBuilt", request{method: "POST", path: "/echo", body: `{"question":"q"}`},
			response{Status: 200, Body: "POST|" + addr + `|Bearer k|application/json|16|{"question":"q"}`}},
		{"AgainContentLength", request{method: "GET", path: "/small"}, response{Status: 200, Body: `{"exists":true}`}},
	} {
		status, body, err := c.do(tc.req.build(addr, "Bearer k"))
		got := response{Status: status, Body: string(body), Err: err != nil}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if n := conns.Load() - before; n != 1 {
		t.Errorf("lean client opened %d connections, want 1 kept alive", n)
	}
}

func TestCheckBody(t *testing.T) {
	for _, tc := range []struct {
		name    string
		check   func([]byte, bool) error
		body    string
		full    bool
		wantErr bool
	}{
		{"Exists", checkExists, "{\"exists\":true}\n", false, false},
		{"ErrExistsFalse", checkExists, `{"exists":false}`, false, true},
		{"ErrExistsError", checkExists, `{"error":{"code":"EINTERNAL","message":"x"}}`, false, true},
		{"Recall", checkRecall, `{"spans":[{"node_id":1,"text":"t"}],"total_tokens":3}` + "\n", false, false},
		{"RecallFull", checkRecall, `{"spans":[{"node_id":1,"text":"t"}],"total_tokens":3}`, true, false},
		{"RecallEmptySpans", checkRecall, `{"spans":[],"total_tokens":0}`, true, false},
		{"ErrRecallNullSpans", checkRecall, `{"spans":null,"total_tokens":0}`, false, true},
		{"ErrRecallNotObject", checkRecall, `[{"spans":[]}]`, false, true},
		{"ErrRecallTruncated", checkRecall, `{"spans":[{"node_id":1`, false, true},
		{"ErrRecallInvalidJSON", checkRecall, `{"spans":[,]}`, true, true},
		{"ErrRecallSpansNested", checkRecall, `{"x":{"spans":[]}}`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.check([]byte(tc.body), tc.full); (err != nil) != tc.wantErr {
				t.Errorf("error = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

// TestMeasurePaced checks the pacer's schedule: every call scheduled
// within the duration is made or counted unsent, call j on goroutine
// j mod n, each goroutine's calls in order.
func TestMeasurePaced(t *testing.T) {
	const n, rate, d = 4, 2000.0, 100 * time.Millisecond
	var mu sync.Mutex
	calls := make([][]int, n)
	res := measure(n, d, rate, func(w, k int) error {
		mu.Lock()
		calls[w] = append(calls[w], k)
		mu.Unlock()
		return nil
	})
	total := int(d / time.Duration(float64(time.Second)/rate))
	if got := len(res.lat) + res.unsent; got != total || res.errors != 0 {
		t.Fatalf("%d calls made and %d unsent, %d errors; want %d scheduled, no errors", len(res.lat), res.unsent, res.errors, total)
	}
	for w, ks := range calls {
		scheduled := (total - w + n - 1) / n
		if len(ks) > scheduled {
			t.Errorf("goroutine %d made %d calls, more than its %d", w, len(ks), scheduled)
		}
		for i, k := range ks {
			if k != i {
				t.Errorf("goroutine %d: call %d has k = %d", w, i, k)
				break
			}
		}
	}
}
