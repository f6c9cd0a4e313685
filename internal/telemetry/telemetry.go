// Package telemetry is the server's metrics and traces: Prometheus metrics
// (the OpenTelemetry HTTP conventions under their Prometheus names, the Go
// runtime's, and papermem's own) served on a listener of their own, and
// OpenTelemetry traces exported over OTLP/HTTP when the standard
// OTEL_EXPORTER_OTLP_* variables name a collector. Nothing is sent anywhere
// otherwise.
//
// A *Telemetry observes the HTTP API (httpapi.Observer), the memory
// (papermem.Observer: recalls and their stages, writes, ingests, origin
// requests) and the server's own downloads (fetch.Observe). No metric
// label and no span attribute carries a workspace id, a user id, an e-mail,
// a key or a DOI: requests are named by their route template, never their
// path.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/buildinfo"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ServiceName is the service.name of the spans unless OTEL_SERVICE_NAME
// sets one.
const ServiceName = "papermem"

// MaxServers is how many distinct server_address values the outbound
// metrics keep; later hosts (a source_url download from an unusual
// host) are counted as "other", so that the series stay few.
const MaxServers = 32

// pingTimeout bounds the database check of papermem_database_up.
const pingTimeout = time.Second

// Options configure New.
type Options struct {
	// Metrics collects the Prometheus metrics that Handler serves. False
	// means none are kept.
	Metrics bool
	// Getenv reads the OTEL_* variables (Traces). Nil means none are set:
	// no traces.
	Getenv func(string) string
}

// Telemetry keeps the metrics and exports the traces. Its methods are
// safe for concurrent use. On a nil *Telemetry (a server without metrics
// or traces) WatchMemory, Handler, Tracing and Shutdown do nothing; it is
// never set as an observer, whose methods (Start, StartRequest, Outbound)
// need a Telemetry from New.
type Telemetry struct {
	reg        *prometheus.Registry // nil without metrics
	provider   *sdktrace.TracerProvider
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	tracing    bool

	requests *prometheus.HistogramVec
	active   *prometheus.GaugeVec
	outbound *prometheus.HistogramVec
	recalls  *prometheus.HistogramVec
	tokens   *prometheus.HistogramVec
	ingests  *prometheus.CounterVec
	writes   *prometheus.HistogramVec
	servers  *serverSet
}

// Latency buckets in seconds: OpenTelemetry's advice for HTTP durations.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// tokenBuckets are the tokens a recall returns: budgets go to 200k.
var tokenBuckets = prometheus.ExponentialBuckets(64, 2, 12) // 64 … 131072

// New returns the telemetry o asks for: metrics when o.Metrics, traces
// when o.Getenv names an OTLP endpoint (Traces). ctx bounds nothing
// beyond New.
func New(ctx context.Context, o Options) (*Telemetry, error) {
	t := &Telemetry{tracer: noop.NewTracerProvider().Tracer(ServiceName), propagator: propagation.TraceContext{},
		servers: newServerSet(MaxServers)}
	if o.Metrics {
		t.registerMetrics()
	}
	if o.Getenv != nil {
		if err := t.startTraces(ctx, o.Getenv); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *Telemetry) registerMetrics() {
	t.reg = prometheus.NewRegistry()
	t.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "http_server_request_duration_seconds",
		Help: "Duration of HTTP server requests, by method, route template and status.", Buckets: durationBuckets},
		[]string{"http_request_method", "http_route", "http_response_status_code"})
	t.active = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "http_server_active_requests",
		Help: "Number of HTTP server requests in flight."}, []string{"http_request_method"})
	t.outbound = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "http_client_request_duration_seconds",
		Help: "Duration of HTTP requests to origins and downloads, until the answer's headers, by server and status (0: no answer).", Buckets: durationBuckets},
		[]string{"server_address", "http_response_status_code"})
	t.recalls = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "papermem_recall_duration_seconds",
		Help: "Duration of recalls (workspace or user), by kind and outcome (ok or an error code).", Buckets: durationBuckets},
		[]string{"kind", "outcome"})
	t.tokens = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "papermem_recall_tokens",
		Help: "Tokens returned by successful recalls, by kind.", Buckets: tokenBuckets}, []string{"kind"})
	t.ingests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "papermem_ingest_total",
		Help: "Files ingested, by format and outcome (ok or an error code)."}, []string{"format", "outcome"})
	t.writes = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "papermem_write_duration_seconds",
		Help: "Duration of write transactions, their wait in the write queue included, by outcome.", Buckets: durationBuckets},
		[]string{"outcome"})
	t.reg.MustRegister(t.requests, t.active, t.outbound, t.recalls, t.tokens, t.ingests, t.writes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// WatchMemory adds the gauges read from m at each scrape: the write
// queue's depth, the search index's size and memory, and whether the
// database answers a ping within a second. It does nothing without
// metrics.
func (t *Telemetry) WatchMemory(m *papermem.Memory) {
	if t == nil || t.reg == nil {
		return
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	t.reg.MustRegister(
		gauge("papermem_write_queue_depth", "Writes waiting for their turn in the write queue.",
			func() float64 { return float64(m.Stats().WriteQueue) }),
		gauge("papermem_index_workspaces", "Workspaces whose search index is loaded in memory.",
			func() float64 { return float64(m.Stats().IndexWorkspaces) }),
		gauge("papermem_index_nodes", "Entries of the loaded search indexes.",
			func() float64 { return float64(m.Stats().IndexNodes) }),
		gauge("papermem_index_bytes", "Memory the loaded search indexes take, in bytes (PAPERMEM_INDEX_MAX_BYTES bounds it).",
			func() float64 { return float64(m.Stats().IndexBytes) }),
		gauge("papermem_database_up", "1 when the database answered a ping within a second at this scrape, else 0.",
			func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
				defer cancel()
				if m.Ping(ctx) != nil {
					return 0
				}
				return 1
			}),
	)
}

// Handler serves the metrics in Prometheus's text format (or
// OpenMetrics, as the scraper asks); nil without metrics.
func (t *Telemetry) Handler() http.Handler {
	if t == nil || t.reg == nil {
		return nil
	}
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{Registry: t.reg, EnableOpenMetrics: true})
}

// Tracing reports whether spans are exported.
func (t *Telemetry) Tracing() bool { return t != nil && t.tracing }

// Shutdown exports the spans still buffered and stops the exporter,
// within ctx.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil || t.provider == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// startTraces sets up the OTLP/HTTP exporter when getenv names an
// endpoint: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else
// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces appended. OTEL_SDK_DISABLED=true
// and OTEL_TRACES_EXPORTER=none turn traces off; a protocol other than
// http/protobuf is refused.
func (t *Telemetry) startTraces(ctx context.Context, getenv func(string) string) error {
	endpoint := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
	if endpoint == "" {
		if base := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); base != "" {
			endpoint = strings.TrimSuffix(base, "/") + "/v1/traces"
		}
	}
	if endpoint == "" || strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return nil
	}
	switch v := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); v {
	case "", "otlp":
	case "none":
		return nil
	default:
		return fmt.Errorf("OTEL_TRACES_EXPORTER must be otlp or none, not %q", v)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := strings.TrimSpace(getenv(name)); v != "" && v != "http/protobuf" {
			return fmt.Errorf("%s: papermem exports traces over http/protobuf only, not %q", name, v)
		}
	}
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL, not %q", endpoint)
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	headers, err := parseHeaders(getenv("OTEL_EXPORTER_OTLP_HEADERS"), getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS"))
	if err != nil {
		return err
	}
	if len(headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(headers))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return fmt.Errorf("OTLP trace exporter: %w", err)
	}
	name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))
	if name == "" {
		name = ServiceName
	}
	// OTEL_RESOURCE_ATTRIBUTES (read from the process's environment, as
	// the SDK reads its other variables) adds to these.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", name), attribute.String("service.version", buildinfo.Version())),
		resource.WithFromEnv())
	if err != nil {
		return fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	t.provider = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t.tracer = t.provider.Tracer("github.com/papermem/papermem")
	t.tracing = true
	return nil
}

// parseHeaders reads OTEL_EXPORTER_OTLP_HEADERS' form, key=value pairs
// separated by commas with URL-encoded values; later lists override.
func parseHeaders(lists ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, list := range lists {
		for _, pair := range strings.Split(list, ",") {
			if strings.TrimSpace(pair) == "" {
				continue
			}
			k, v, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, errors.New("OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas")
			}
			if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				v = dv
			}
			out[k] = strings.TrimSpace(v)
		}
	}
	return out, nil
}

// outcome is "ok", or err's error code.
func (t *Telemetry) outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if c := papermem.ErrorCode(err); api.KnownCode(c) {
		return c
	}
	return papermem.EINTERNAL
}

// StartRequest observes one HTTP request (httpapi.Observer): a server span
// that continues the caller's trace (W3C traceparent), the active
// requests, and at its end the duration by method, route and status.
func (t *Telemetry) StartRequest(r *http.Request) (context.Context, func(route string, status int)) {
	start := time.Now()
	method := methodLabel(r.Method)
	ctx := r.Context()
	var span trace.Span
	if t.tracing {
		ctx = t.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		ctx, span = t.tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", method), attribute.String("url.scheme", scheme),
				attribute.String("network.protocol.version", protocolVersion(r))))
	}
	var active prometheus.Gauge
	if t.reg != nil {
		active = t.active.WithLabelValues(method)
		active.Inc()
	}
	return ctx, func(route string, status int) {
		if span != nil {
			if route != "" {
				span.SetName(method + " " + route)
				span.SetAttributes(attribute.String("http.route", route))
			}
			span.SetAttributes(attribute.Int("http.response.status_code", status))
			if status >= 500 {
				span.SetStatus(codes.Error, "")
			}
			span.End()
		}
		if active != nil {
			active.Dec()
			t.requests.WithLabelValues(method, route, strconv.Itoa(status)).Observe(time.Since(start).Seconds())
		}
	}
}

// Start observes one operation of the memory (papermem.Observer).
func (t *Telemetry) Start(ctx context.Context, op, detail string) (context.Context, func(int, error)) {
	start := time.Now()
	var span trace.Span
	if t.tracing {
		name, kind := "papermem."+op, trace.SpanKindInternal
		var attrs []attribute.KeyValue
		switch op {
		case papermem.OpRecallStage:
			name = "papermem.recall." + detail
		case papermem.OpOrigin:
			name, kind = "GET", trace.SpanKindClient
			attrs = append(attrs, attribute.String("server.address", detail))
		case papermem.OpRecall:
			attrs = append(attrs, attribute.String("papermem.recall.kind", detail))
		case papermem.OpIngest:
			attrs = append(attrs, attribute.String("papermem.ingest.format", detail))
		}
		ctx, span = t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	}
	return ctx, func(n int, err error) {
		if span != nil {
			switch {
			case op == papermem.OpOrigin:
				span.SetAttributes(attribute.Int("http.response.status_code", n))
			case op == papermem.OpRecall && err == nil:
				span.SetAttributes(attribute.Int("papermem.recall.tokens", n))
			}
			if err != nil || (op == papermem.OpOrigin && n >= 500) {
				span.SetStatus(codes.Error, t.outcome(err))
			}
			span.End()
		}
		if t.reg == nil {
			return
		}
		d := time.Since(start).Seconds()
		switch op {
		case papermem.OpRecall:
			t.recalls.WithLabelValues(detail, t.outcome(err)).Observe(d)
			if err == nil {
				t.tokens.WithLabelValues(detail).Observe(float64(n))
			}
		case papermem.OpIngest:
			t.ingests.WithLabelValues(detail, t.outcome(err)).Inc()
		case papermem.OpWrite:
			t.writes.WithLabelValues(t.outcome(err)).Observe(d)
		case papermem.OpOrigin:
			t.outbound.WithLabelValues(t.servers.label(detail), strconv.Itoa(n)).Observe(d)
		}
	}
}

// Outbound observes a request to server (fetch.Observe), as the memory's
// origin requests are.
func (t *Telemetry) Outbound(ctx context.Context, server string) (context.Context, func(status int, err error)) {
	return t.Start(ctx, papermem.OpOrigin, server)
}

// methodLabel is the request's method when it is a known one, else
// "_OTHER" (OpenTelemetry's convention), so that clients cannot make series.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

// protocolVersion is "1.1" or "2" for network.protocol.version.
func protocolVersion(r *http.Request) string {
	if r.ProtoMajor == 2 {
		return "2"
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor)
}
