package fetch_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
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
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
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
	f := fetch.New(fetch.Options{AllowPrivate: true, MaxBytes: 1024, Timeout: 200 * time.Millisecond})

	t.Run("OK", func(t *testing.T) {
		body, ctype, err := f.Fetch(ctx, srv.URL+"/paper.md")
		if err != nil || string(body) != "# Title\n\nBody text." || ctype != "text/markdown" {
			t.Fatalf("got %q %q %v", body, ctype, err)
		}
	})
	for name, path := range map[string]string{
		"ErrTooLarge":     "/big",
		"ErrStatus":       "/missing",
		"ErrTimeout":      "/slow",
		"ErrBadRedirect":  "/redirect-home",
		"ErrUnknownRoute": "/nothing-here",
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := f.Fetch(ctx, srv.URL+path); err == nil {
				t.Fatal("want an error")
			}
		})
	}
	t.Run("ErrScheme", func(t *testing.T) {
		for _, u := range []string{"file:///etc/passwd", "ftp://example.org/x", "gopher://x", "//nohost"} {
			if _, _, err := f.Fetch(ctx, u); err == nil {
				t.Errorf("%s: want an error", u)
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
