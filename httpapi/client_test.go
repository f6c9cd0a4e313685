package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"testing"
)

// FuzzClientAddr: whatever the peer and X-Forwarded-For, clientAddr does
// not panic; an untrusted peer is the client whatever its header says;
// behind a trusted one the client is an address.
func FuzzClientAddr(f *testing.F) {
	for _, s := range []string{"203.0.113.5", "198.51.100.7, 203.0.113.5, 10.0.0.2", "", ",,", "::ffff:10.0.0.1", "fe80::1%eth0", "not an address, 10.0.0.3"} {
		f.Add(s, "10.0.0.1:4321")
	}
	f.Add("198.51.100.7", "203.0.113.1:80")
	s := &server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	f.Fuzz(func(t *testing.T, xff, remote string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{"X-Forwarded-For": {xff}}}
		got := s.clientAddr(r)
		peer := remote
		if h, _, err := net.SplitHostPort(remote); err == nil {
			peer = h
		}
		if a, err := netip.ParseAddr(peer); err != nil || !s.trustedProxy(a) {
			if got != peer {
				t.Fatalf("untrusted peer %q: client %q", remote, got)
			}
			return
		}
		if _, err := netip.ParseAddr(got); err != nil {
			t.Fatalf("clientAddr(%q, %q) = %q, not an address", xff, remote, got)
		}
	})
}

// TestClientAddr checks the walk from the right over trusted hops.
func TestClientAddr(t *testing.T) {
	s := &server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	for _, c := range []struct{ remote, xff, want string }{
		{"203.0.113.1:5000", "198.51.100.7", "203.0.113.1"},                  // untrusted peer: its header is ignored
		{"10.0.0.1:5000", "", "10.0.0.1"},                                    // a proxy's own request
		{"10.0.0.1:5000", "198.51.100.7", "198.51.100.7"},                    // one hop
		{"10.0.0.1:5000", "1.2.3.4, 198.51.100.7, 10.0.0.9", "198.51.100.7"}, // the client cannot choose what is left of the last untrusted hop
		{"10.0.0.1:5000", "10.0.0.8, 10.0.0.9", "10.0.0.8"},                  // every hop trusted: the left-most
		{"10.0.0.1:5000", "junk, 10.0.0.9", "10.0.0.9"},                      // the walk ends at the proxy that reported junk
		{"[::ffff:10.0.0.1]:5000", "::ffff:198.51.100.7", "198.51.100.7"},    // IPv4 in IPv6
		{"10.0.0.1:5000", "198.51.100.7,  2001:db8::1 ", "2001:db8::1"},      // spaces
	} {
		r := &http.Request{RemoteAddr: c.remote, Header: http.Header{}}
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := s.clientAddr(r); got != c.want {
			t.Errorf("clientAddr(%s, %q) = %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
}
