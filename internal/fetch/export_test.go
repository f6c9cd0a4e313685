package fetch

import (
	"net"
	"syscall"
)

// NewPublicPort returns a fetcher that refuses what New's does but the
// loopback address's port port, which a test's origin listens on as if it
// were a public server.
func NewPublicPort(o Options, port string) *Fetcher {
	return newFetcher(o, func(network, address string, c syscall.RawConn) error {
		if host, p, err := net.SplitHostPort(address); err == nil && host == "127.0.0.1" && p == port {
			return nil
		}
		return guard(network, address, c)
	})
}
