package serve

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/papermem/papermem/internal/telemetry"
)

// metricsPath is where the metrics listener serves them.
const metricsPath = "/metrics"

// telemetryFlush bounds the export of the last spans at shutdown.
const telemetryFlush = 5 * time.Second

// telemetry returns the metrics (with PAPERMEM_METRICS_ADDR) and traces
// (with OTEL_EXPORTER_OTLP_ENDPOINT) the environment asks for, and makes
// the memory, the API and the downloads report to them; nil when it asks
// for neither, so that nothing is observed.
func (c *config) telemetry(ctx context.Context, getenv func(string) string) (*telemetry.Telemetry, error) {
	t, err := telemetry.New(ctx, telemetry.Options{Metrics: c.metricsAddr != "", Getenv: getenv})
	if err != nil {
		return nil, err
	}
	if !t.Tracing() && c.metricsAddr == "" {
		return nil, nil
	}
	c.opts.Observer = t
	c.api.Observer = t
	c.fetch.Observe = t.Outbound
	return t, nil
}

// serveMetrics serves h at metricsPath on addr, apart from the API (which
// does not serve them), until stop; it returns the address listened on.
func serveMetrics(addr string, h http.Handler, errorLog *log.Logger) (stop func(), at net.Addr, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+metricsPath, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute, ErrorLog: errorLog}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errorLog.Printf("metrics listener: %v", err)
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-done
	}, ln.Addr(), nil
}
