// Package serve is the papermem server's wiring, shared by cmd/server and
// `papermem serve`: configuration from flags and PAPERMEM_* variables,
// papermem.Open, hosted.New, httpapi.New, graceful shutdown and the
// maintenance sub-commands.
//
//	[-addr 127.0.0.1:8080] [-db ./papermem.db | -db postgres://…]
//	[-db ./papermem.db] grant-founder EMAIL
//	[-db ./papermem.db] backup DEST
//
// Configuration comes from flags, then PAPERMEM_* environment variables,
// then defaults (see config). PAPERMEM_METRICS_ADDR and the OTEL_*
// variables turn on metrics and traces (telemetry.go), PAPERMEM_TLS_* and
// PAPERMEM_ACME_* serve HTTPS (tls.go). When ctx is done (SIGINT or SIGTERM in the
// commands) the server shuts down gracefully: in-flight requests finish,
// new ones are answered 503, and the database closes cleanly (its WAL
// checkpointed and removed).
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/dashboard"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/fetch"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/telemetry"
)

// Defaults of the configuration.
const (
	defaultAddr = "127.0.0.1:8080"
	DefaultDB   = "./papermem.db" // database file without -db or PAPERMEM_DB
)

// config is the server's configuration after flags and environment.
type config struct {
	addr, db    string
	metricsAddr string // PAPERMEM_METRICS_ADDR: "" for no metrics
	tls         tlsConfig
	opts        papermem.Options
	hosted      hosted.Options
	api         httpapi.Config
	fetch       fetch.Options
}

// loadConfig reads flags from args and PAPERMEM_* variables from getenv;
// it returns the remaining arguments (a sub-command).
func loadConfig(args []string, getenv func(string) string, stdout io.Writer) (*config, []string, error) {
	c := &config{addr: defaultAddr, db: DefaultDB}
	if v := getenv("PAPERMEM_ADDR"); v != "" {
		c.addr = v
	}
	if v := getenv("PAPERMEM_DB"); v != "" {
		c.db = v
	}
	c.api.BackupDir = getenv("PAPERMEM_BACKUP_DIR")
	c.metricsAddr = strings.TrimSpace(getenv("PAPERMEM_METRICS_ADDR"))
	fs := flag.NewFlagSet("papermem serve", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&c.addr, "addr", c.addr, "address to listen on (PAPERMEM_ADDR)")
	fs.StringVar(&c.db, "db", c.db, `SQLite database file, ":memory:", or a postgres:// URL (PAPERMEM_DB)`)
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}

	if v := getenv("PAPERMEM_JWT_SECRET"); v != "" {
		if len(v) < 32 {
			return nil, nil, errors.New("PAPERMEM_JWT_SECRET must be at least 32 bytes")
		}
		c.api.JWTSecret = []byte(v)
	}
	for _, e := range strings.Split(getenv("PAPERMEM_FOUNDER_EMAILS"), ",") {
		if e = strings.TrimSpace(e); e != "" {
			c.api.FounderEmails = append(c.api.FounderEmails, e)
		}
	}
	if v := getenv("PAPERMEM_PAYMENT_SECRET"); v != "" {
		c.hosted.Payments = hosted.NewSignedOrders(v)
	}
	var err error
	if c.api.DevAuth, err = flagEnv(getenv, "PAPERMEM_DEV_AUTH"); err != nil {
		return nil, nil, err
	}
	if c.api.DashboardPayments, err = flagEnv(getenv, "PAPERMEM_DASHBOARD_PAYMENTS"); err != nil {
		return nil, nil, err
	}
	if c.fetch.AllowPrivate, err = flagEnv(getenv, "PAPERMEM_FETCH_ALLOW_PRIVATE"); err != nil {
		return nil, nil, err
	}
	if c.opts.Origins, err = originsEnv(getenv, c.fetch.AllowPrivate); err != nil {
		return nil, nil, err
	}
	c.opts.Zotero = &papermem.ZoteroOptions{URL: strings.TrimSpace(getenv("PAPERMEM_ZOTERO_URL")),
		LocalURL: strings.TrimSpace(getenv("PAPERMEM_ZOTERO_LOCAL_URL")), AllowPrivate: c.fetch.AllowPrivate}
	if c.api.RateLimit, err = intEnv(getenv, "PAPERMEM_RATE_LIMIT"); err != nil {
		return nil, nil, err
	}
	if c.api.AuthRateLimit, err = intEnv(getenv, "PAPERMEM_AUTH_RATE_LIMIT"); err != nil {
		return nil, nil, err
	}
	if c.api.TrustedProxies, err = prefixesEnv(getenv, "PAPERMEM_TRUSTED_PROXIES"); err != nil {
		return nil, nil, err
	}
	upload, err := intEnv(getenv, "PAPERMEM_MAX_UPLOAD_BYTES")
	if err != nil {
		return nil, nil, err
	}
	c.opts.MaxIngestBytes = int64(upload)
	c.fetch.MaxBytes = int64(upload)
	maxBytes, err := intEnv(getenv, "PAPERMEM_INDEX_MAX_BYTES")
	if err != nil {
		return nil, nil, err
	}
	c.opts.IndexMaxBytes = int64(maxBytes)
	c.opts.IndexDir = getenv("PAPERMEM_INDEX_DIR")
	if c.opts.Reindex, err = flagEnv(getenv, "PAPERMEM_REINDEX"); err != nil {
		return nil, nil, err
	}
	if c.opts.WriteQueue, err = intEnv(getenv, "PAPERMEM_WRITE_QUEUE"); err != nil {
		return nil, nil, err
	}
	if v := getenv("PAPERMEM_WRITE_WAIT"); v != "" {
		if c.opts.WriteWait, err = time.ParseDuration(v); err != nil || c.opts.WriteWait <= 0 {
			return nil, nil, fmt.Errorf("PAPERMEM_WRITE_WAIT must be a positive duration such as 10s, not %q", v)
		}
	}
	if v := getenv("PAPERMEM_DB_TIMEOUT"); v != "" {
		if c.opts.DBTimeout, err = time.ParseDuration(v); err != nil || c.opts.DBTimeout <= 0 {
			return nil, nil, fmt.Errorf("PAPERMEM_DB_TIMEOUT must be a positive duration such as 3s, not %q", v)
		}
	}
	switch v := getenv("PAPERMEM_SYNC"); v {
	case "", papermem.SyncNormal, papermem.SyncFull:
		c.opts.Sync = v
	default:
		return nil, nil, fmt.Errorf("PAPERMEM_SYNC must be %s or %s, not %q", papermem.SyncNormal, papermem.SyncFull, v)
	}
	if c.opts.Embedder, err = embedderFromEnv(getenv); err != nil {
		return nil, nil, err
	}
	// Rate limits are shared by default on PostgreSQL, which is there to
	// serve several servers; kept in each process on SQLite, where a shared
	// bucket costs every request a turn in the one write queue.
	c.api.SharedLimits = store.EngineOf(c.db) == store.Postgres
	if getenv("PAPERMEM_SHARED_LIMITS") != "" {
		if c.api.SharedLimits, err = flagEnv(getenv, "PAPERMEM_SHARED_LIMITS"); err != nil {
			return nil, nil, err
		}
	}
	if c.tls, err = tlsEnv(getenv, c.db, store.EngineOf(c.db) == store.SQLite); err != nil {
		return nil, nil, err
	}
	if c.api.DevAuth && !loopback(c.addr) {
		return nil, nil, fmt.Errorf("PAPERMEM_DEV_AUTH=1 is refused on %s: developer headers are for loopback addresses only", c.addr)
	}
	return c, fs.Args(), nil
}

// originsEnv reads the origins' configuration: on unless PAPERMEM_ORIGINS
// is "off", each service's base URL from its PAPERMEM_*_URL (an http or
// https URL; empty means the public service), the contact address,
// whether stores queue citations jobs (PAPERMEM_CITATIONS), and the
// deadline of what a store waits for (PAPERMEM_ORIGIN_DEADLINE).
func originsEnv(getenv func(string) string, allowPrivate bool) (*papermem.OriginOptions, error) {
	switch v := getenv("PAPERMEM_ORIGINS"); v {
	case "off":
		return nil, nil
	case "", "on":
	default:
		return nil, fmt.Errorf(`PAPERMEM_ORIGINS must be "on" or "off", not %q`, v)
	}
	o := &papermem.OriginOptions{Contact: strings.TrimSpace(getenv("PAPERMEM_CONTACT_EMAIL")),
		OpenAlexKey: strings.TrimSpace(getenv("PAPERMEM_OPENALEX_KEY")), AllowPrivate: allowPrivate}
	for _, u := range []struct {
		name string
		dst  *string
	}{
		{"PAPERMEM_CROSSREF_URL", &o.CrossrefURL},
		{"PAPERMEM_UNPAYWALL_URL", &o.UnpaywallURL},
		{"PAPERMEM_OPENALEX_URL", &o.OpenAlexURL},
		{"PAPERMEM_ARXIV_URL", &o.ArxivURL},
	} {
		v := strings.TrimSpace(getenv(u.name))
		if v == "" {
			continue
		}
		if p, err := url.Parse(v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("%s must be an http or https URL, not %q", u.name, v)
		}
		*u.dst = v
	}
	if o.Contact != "" && !strings.Contains(o.Contact, "@") {
		return nil, fmt.Errorf("PAPERMEM_CONTACT_EMAIL must be an e-mail address, not %q", o.Contact)
	}
	switch v := getenv("PAPERMEM_CITATIONS"); v {
	case "", "on":
	case "off":
		o.NoCitations = true
	default:
		return nil, fmt.Errorf(`PAPERMEM_CITATIONS must be "on" or "off", not %q`, v)
	}
	if v := getenv("PAPERMEM_ORIGIN_DEADLINE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("PAPERMEM_ORIGIN_DEADLINE must be a positive duration such as 5s, not %q", v)
		}
		o.Deadline = d
	}
	return o, nil
}

// flagEnv reads a 0/1 switch.
func flagEnv(getenv func(string) string, name string) (bool, error) {
	switch v := getenv(name); v {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	default:
		return false, fmt.Errorf("%s must be 1 or 0, not %q", name, v)
	}
}

// intEnv reads a positive integer; unset means 0.
func intEnv(getenv func(string) string, name string) (int, error) {
	v := getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive integer, not %q", name, v)
	}
	return n, nil
}

// prefixesEnv reads a comma-separated list of addresses and CIDR prefixes
// ("10.0.0.0/8, 127.0.0.1"); unset gives none.
func prefixesEnv(getenv func(string) string, name string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(getenv(name), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("%s: %q is neither an address nor a CIDR prefix", name, f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// loopback reports whether addr's host is a loopback address or localhost.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Open opens the database db (a file or a postgres:// URL) with the library options the PAPERMEM_*
// variables of getenv set (embedder, upload and index limits, reindexing,
// fetching), as the server opens it: a command working on the
// server's database must use the same embedder.
func Open(ctx context.Context, db string, getenv func(string) string, log *slog.Logger) (*papermem.Memory, error) {
	c, _, err := loadConfig(nil, getenv, io.Discard)
	if err != nil {
		return nil, err
	}
	return c.open(ctx, db, log)
}

// open opens db with c's library options.
func (c *config) open(ctx context.Context, db string, log *slog.Logger) (*papermem.Memory, error) {
	c.opts.Logger = log
	c.opts.Fetcher = fetch.New(c.fetch)
	return papermem.Open(ctx, db, &c.opts)
}

// memoryHeadroom is what the server's soft memory limit allows beyond the
// search index's budget: requests, ingestion and the runtime's own.
const memoryHeadroom = 256 << 20

// setMemoryLimit sets Go's soft memory limit to the search index's budget
// indexBytes (0 for papermem.DefaultIndexMaxBytes) plus memoryHeadroom,
// unless GOMEMLIMIT sets one, and returns the limit in force. Without it
// the collector lets the heap grow to twice what is live: a search index
// built in the process (after an ingest, or on a first start) left 1.9 GB
// resident at 1.6M nodes where 1.2 GB is enough.
func setMemoryLimit(getenv func(string) string, indexBytes int64) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	if indexBytes <= 0 {
		indexBytes = papermem.DefaultIndexMaxBytes
	}
	debug.SetMemoryLimit(indexBytes + memoryHeadroom)
	return indexBytes + memoryHeadroom
}

// Run serves until ctx is done, or runs a sub-command; it logs to stdout.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) (err error) {
	c, rest, err := loadConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	memoryLimit := setMemoryLimit(getenv, c.opts.IndexMaxBytes)
	log := slog.New(slog.NewJSONHandler(stdout, nil))
	c.api.Logger = log
	var tel *telemetry.Telemetry
	if len(rest) == 0 {
		if tel, err = c.telemetry(ctx, getenv); err != nil {
			return err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), telemetryFlush)
			defer cancel()
			if terr := tel.Shutdown(sctx); terr != nil {
				log.Warn("traces not flushed", "err", terr)
			}
		}()
	}
	m, err := c.open(ctx, c.db, log)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := m.Close(); err == nil {
			err = cerr
		}
	}()

	if len(rest) > 0 {
		return subcommand(ctx, m, rest, stdout)
	}
	tel.WatchMemory(m)
	if o := c.opts.Origins; o != nil && o.Contact == "" {
		log.Warn("origins on without PAPERMEM_CONTACT_EMAIL: the public Unpaywall refuses requests and Crossref answers slowly (docs/origins.md); PAPERMEM_ORIGINS=off works offline")
	}
	svc, err := hosted.New(m, &c.hosted)
	if err != nil {
		return err
	}
	defer func() { // before the memory's Close
		if cerr := svc.Close(); err == nil {
			err = cerr
		}
	}()
	// Load the search index of every workspace while the server starts
	// answering, so that no first recall pays for it; Close waits for it.
	warmCtx, cancelWarm := context.WithCancel(ctx)
	warmed := make(chan struct{})
	go func() {
		defer close(warmed)
		start := time.Now()
		if err := m.Warm(warmCtx); err != nil {
			if warmCtx.Err() == nil {
				log.Warn("search index not warmed", "err", err)
			}
			return
		}
		log.Info("search index warm", "elapsed_ms", time.Since(start).Milliseconds())
	}()
	defer func() {
		cancelWarm()
		<-warmed
	}()
	tlsConf, err := c.tls.config(log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	errorLog := slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	if h := tel.Handler(); h != nil {
		stop, at, err := serveMetrics(c.metricsAddr, h, errorLog)
		if err != nil {
			ln.Close()
			return err
		}
		defer stop()
		log.Info("metrics", "addr", "http://"+at.String()+metricsPath)
	}
	scheme := "http://"
	if tlsConf != nil {
		scheme = "https://"
	}
	log.Info("listening", "addr", scheme+ln.Addr().String(), "db", store.Redact(c.db), "storage_mode", m.StorageMode(), "dev_auth", c.api.DevAuth,
		"memory_limit_mb", memoryLimit>>20, "dashboard", scheme+ln.Addr().String()+dashboard.Prefix, "traces", tel.Tracing())
	if tlsConf != nil {
		err = httpapi.ServeTLS(ctx, ln, httpapi.New(svc, c.api), tlsConf, errorLog)
	} else {
		err = httpapi.Serve(ctx, ln, httpapi.New(svc, c.api), errorLog)
	}
	log.Info("stopped") // the deferred Close checkpoints the database
	return err
}

// subcommand runs a maintenance command over the database.
func subcommand(ctx context.Context, m *papermem.Memory, args []string, stdout io.Writer) error {
	switch args[0] {
	case "grant-founder":
		if len(args) != 2 {
			return errors.New("usage: grant-founder EMAIL")
		}
		svc, err := hosted.New(m, nil)
		if err != nil {
			return err
		}
		defer svc.Close()
		if err := svc.GrantFounder(ctx, args[1]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "granted founder access to %s\n", strings.ToLower(strings.TrimSpace(args[1])))
		return nil
	case "backup":
		if len(args) != 2 {
			return errors.New("usage: backup DEST")
		}
		start := time.Now()
		n, err := m.Backup(ctx, args[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "backed up to %s: %d bytes in %v\n", args[1], n, time.Since(start).Round(time.Millisecond))
		return nil
	}
	return fmt.Errorf("unknown command %q (known: grant-founder, backup)", args[0])
}
