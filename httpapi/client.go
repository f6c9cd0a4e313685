package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr is the address of the client a request came from, without
// its port: the connection's peer, or behind trusted proxies
// (Config.TrustedProxies) the right-most X-Forwarded-For hop that is not
// one of them. A hop that does not parse ends the walk at the proxy that
// reported it.
func (s *server) clientAddr(r *http.Request) string {
	peer := r.RemoteAddr
	if host, _, err := net.SplitHostPort(peer); err == nil {
		peer = host
	}
	addr, err := netip.ParseAddr(peer)
	if err != nil || !s.trustedProxy(addr) {
		return peer
	}
	var hops []string
	for _, line := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(line, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		addr = hop.Unmap()
		if !s.trustedProxy(addr) {
			break
		}
	}
	return addr.String()
}

// trustedProxy reports whether addr is one of Config.TrustedProxies.
func (s *server) trustedProxy(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
