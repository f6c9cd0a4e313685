package httpapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"
)

// Timeouts of Serve's http.Server. Reads and writes are generous enough
// for a maximum-size upload or a large batch on a slow link.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 2 * time.Minute
	WriteTimeout      = 5 * time.Minute
	IdleTimeout       = 2 * time.Minute
	ShutdownTimeout   = 30 * time.Second // longest wait for requests in flight
)

// Serve serves h on ln until ctx ends, then shuts down gracefully: h drains
// (requests in flight finish, new ones are answered 503), then the
// listener and the idle connections close. It waits at most
// ShutdownTimeout for that. errorLog receives the http.Server's own
// errors; nil means the log package's logger. The caller closes the
// Memory afterwards.
func Serve(ctx context.Context, ln net.Listener, h *Handler, errorLog *log.Logger) error {
	return serve(ctx, ln, h, nil, errorLog)
}

// ServeTLS is Serve over TLS with config (its certificates, or its
// GetCertificate): every connection on ln must begin with a TLS
// handshake, which offers HTTP/2 and HTTP/1.1 by ALPN. A client speaking
// plain HTTP gets a 400 from net/http and nothing of the API.
func ServeTLS(ctx context.Context, ln net.Listener, h *Handler, config *tls.Config, errorLog *log.Logger) error {
	return serve(ctx, ln, h, config, errorLog)
}

// serve is Serve, over TLS when config is not nil.
func serve(ctx context.Context, ln net.Listener, h *Handler, config *tls.Config, errorLog *log.Logger) error {
	srv := &http.Server{
		TLSConfig:         config,
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		ErrorLog:          errorLog,
	}
	errc := make(chan error, 1)
	go func() {
		if config != nil {
			errc <- srv.ServeTLS(ln, "", "") // adds h2 to the ALPN protocols
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := h.Drain(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
