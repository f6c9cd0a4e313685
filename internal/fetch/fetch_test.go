package fetch_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/fetch"
)

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false},
		{"fe80::1", false},
		{"fc00::1", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"::", false},
		{"224.0.0.1", false},
		{"100.64.0.1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
	} {
		if got := fetch.Public(net.ParseIP(tc.ip)); got != tc.want {
			t.Errorf("Public(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
}

func origin(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/paper.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Title\n\nBody text."))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 2048)))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers nothing until the client gives up
	})
	mux.HandleFunc("/redirect-home", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetch(t *testing.T) {
	ctx := context.Background()
	srv := origin(t)
	f := fetch.New(fetch.Options{AllowPrivate: true, MaxBytes: 1024, Timeout: 10 * time.Second})

	t.Run("OK", func(t *testing.T) {
		body, ctype, err := f.Fetch(ctx, srv.URL+"/paper.md")
		if err != nil || string(body) != "# Title\n\nBody text." || ctype != "text/markdown" {
			t.Fatalf("got %q %q %v", body, ctype, err)
		}
	})
	for name, path := range map[string]string{
		"ErrTooLarge":     "/big",
		"ErrStatus":       "/missing",
		"ErrUnknownRoute": "/nothing-here",
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := f.Fetch(ctx, srv.URL+path); err == nil {
				t.Fatal("want an error")
			}
		})
	}
	// /slow answers only once the client has given up, so the timeout is
	// reached however fast or slow the machine is.
	t.Run("ErrTimeout", func(t *testing.T) {
		quick := fetch.New(fetch.Options{AllowPrivate: true, Timeout: 100 * time.Millisecond})
		if _, _, err := quick.Fetch(ctx, srv.URL+"/slow"); err == nil {
			t.Fatal("want an error")
		}
	})
	// A server that never sends headers fails at HeaderTimeout, not at
	// the whole download's Timeout (ten minutes here).
	t.Run("ErrHeaderTimeout", func(t *testing.T) {
		quick := fetch.New(fetch.Options{AllowPrivate: true, Timeout: 10 * time.Minute, HeaderTimeout: 100 * time.Millisecond})
		if _, _, err := quick.Fetch(ctx, srv.URL+"/slow"); err == nil || !strings.Contains(err.Error(), "awaiting response headers") {
			t.Fatalf("err = %v, want the headers' timeout", err)
		}
	})
	t.Run("ErrScheme", func(t *testing.T) {
		for _, u := range []string{"file:///etc/passwd", "ftp://example.org/x", "gopher://x", "//nohost", srv.URL + "/redirect-home"} {
			if _, _, err := f.Fetch(ctx, u); !errors.Is(err, fetch.ErrScheme) {
				t.Errorf("%s: err = %v, want ErrScheme", u, err)
			}
		}
	})
}

func TestFetchRefusesPrivateAddresses(t *testing.T) {
	srv := origin(t)
	f := fetch.New(fetch.Options{})
	// srv listens on 127.0.0.1; "localhost" is resolved before the guard.
	for _, u := range []string{srv.URL + "/paper.md", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/paper.md"} {
		_, _, err := f.Fetch(context.Background(), u)
		if !errors.Is(err, fetch.ErrForbiddenAddress) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
}

// TestFetchGuardsRedirects checks, against an origin let through as if it
// were public, that every redirect is held to the same rules as the URL
// asked for, and that each refusal names its reason: a private or
// loopback address (also by name) with ErrForbiddenAddress, another scheme
// with ErrScheme, a chain past DefaultMaxRedirects with ErrRedirects. The
// guard refuses an address before any connection is made, so no packet
// leaves for the private and metadata addresses named here.
func TestFetchGuardsRedirects(t *testing.T) {
	private := origin(t) // also on 127.0.0.1, on a port not let through
	_, privatePort, _ := net.SplitHostPort(strings.TrimPrefix(private.URL, "http://"))
	mux := http.NewServeMux()
	mux.HandleFunc("/paper.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		io.WriteString(w, "# Public")
	})
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	mux.HandleFunc("/chain/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		http.Redirect(w, r, "/chain/"+strconv.Itoa(n+1), http.StatusFound)
	})
	public := httptest.NewServer(mux)
	t.Cleanup(public.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(public.URL, "http://"))
	f := fetch.NewPublicPort(fetch.Options{Timeout: 5 * time.Second}, port)
	ctx := context.Background()

	// The origin itself is reached, directly and through a redirect within
	// it, so the refusals below are the guard's.
	for _, u := range []string{public.URL + "/paper.md", public.URL + "/to?u=/paper.md"} {
		if body, _, err := f.Fetch(ctx, u); err != nil || string(body) != "# Public" {
			t.Fatalf("%s: %q, %v", u, body, err)
		}
	}
	redirect := func(to string) string { return public.URL + "/to?u=" + url.QueryEscape(to) }
	for _, tt := range []struct {
		url  string
		want error
	}{
		{redirect("http://127.0.0.1:" + privatePort + "/paper.md"), fetch.ErrForbiddenAddress},
		{redirect("http://localhost:" + privatePort + "/paper.md"), fetch.ErrForbiddenAddress},
		{redirect("http://[::1]:" + privatePort + "/paper.md"), fetch.ErrForbiddenAddress},
		{redirect("http://10.0.0.1/paper.md"), fetch.ErrForbiddenAddress},
		{redirect("http://169.254.169.254/latest/meta-data/"), fetch.ErrForbiddenAddress},
		{"http://localhost:" + privatePort + "/paper.md", fetch.ErrForbiddenAddress},
		{redirect("file:///etc/passwd"), fetch.ErrScheme},
		{redirect("gopher://example.org/x"), fetch.ErrScheme},
		{"file:///etc/passwd", fetch.ErrScheme},
		{"gopher://example.org/x", fetch.ErrScheme},
		{public.URL + "/chain/0", fetch.ErrRedirects},
	} {
		if _, _, err := f.Fetch(ctx, tt.url); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.url, err, tt.want)
		}
	}
}

// TestFetchTrusted checks that a host the operator trusts is reached
// though it is on the loopback address, and that the trust goes no
// further: the same address under another name or port, and a trusted
// host's redirect to an untrusted one, are refused.
func TestFetchTrusted(t *testing.T) {
	ctx := context.Background()
	trusted, other := origin(t), origin(t)
	host := strings.TrimPrefix(trusted.URL, "http://")
	mux := http.NewServeMux()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/paper.md", http.StatusFound)
	})
	redirector := httptest.NewServer(mux)
	defer redirector.Close()
	rhost := strings.TrimPrefix(redirector.URL, "http://")
	f := fetch.New(fetch.Options{Trusted: []string{host, rhost}})
	if body, _, err := f.Fetch(ctx, trusted.URL+"/paper.md"); err != nil || !strings.Contains(string(body), "Body text") {
		t.Fatalf("trusted host: %q, %v", body, err)
	}
	for _, u := range []string{other.URL + "/paper.md", strings.Replace(trusted.URL, "127.0.0.1", "localhost", 1) + "/paper.md", redirector.URL + "/away"} {
		if _, _, err := f.Fetch(ctx, u); !errors.Is(err, fetch.ErrForbiddenAddress) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
}
