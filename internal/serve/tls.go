package serve

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// tlsConfig is the server's TLS: certificate and key files
// (PAPERMEM_TLS_CERT, PAPERMEM_TLS_KEY), or certificates from an ACME
// certificate authority (PAPERMEM_ACME_DOMAINS, kept in PAPERMEM_ACME_CACHE).
type tlsConfig struct {
	cert, key string
	domains   []string // ACME
	cacheDir  string   // ACME
	email     string   // ACME account contact; "" for none
	acmeURL   string   // ACME directory; "" for Let's Encrypt's
}

// tlsEnv reads the TLS settings. The certificate and key go together;
// ACME excludes them and needs a cache directory, which defaults to the
// database file's path with "-acme" appended (db; none for PostgreSQL or
// ":memory:").
func tlsEnv(getenv func(string) string, db string, sqlite bool) (tlsConfig, error) {
	c := tlsConfig{cert: strings.TrimSpace(getenv("PAPERMEM_TLS_CERT")), key: strings.TrimSpace(getenv("PAPERMEM_TLS_KEY"))}
	if (c.cert == "") != (c.key == "") {
		return c, errors.New("PAPERMEM_TLS_CERT and PAPERMEM_TLS_KEY go together: set both or neither")
	}
	for _, d := range strings.Split(getenv("PAPERMEM_ACME_DOMAINS"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			c.domains = append(c.domains, strings.ToLower(d))
		}
	}
	if len(c.domains) == 0 {
		return c, nil
	}
	if c.cert != "" {
		return c, errors.New("PAPERMEM_ACME_DOMAINS and PAPERMEM_TLS_CERT exclude each other: certificates come from files or from ACME")
	}
	c.cacheDir = strings.TrimSpace(getenv("PAPERMEM_ACME_CACHE"))
	if c.cacheDir == "" {
		if !sqlite || db == ":memory:" {
			return c, errors.New("PAPERMEM_ACME_CACHE is required with PAPERMEM_ACME_DOMAINS here: the certificates must outlive the process")
		}
		c.cacheDir = db + "-acme"
	}
	c.email = strings.TrimSpace(getenv("PAPERMEM_ACME_EMAIL"))
	c.acmeURL = strings.TrimSpace(getenv("PAPERMEM_ACME_DIRECTORY"))
	return c, nil
}

// config returns the tls.Config serving c's certificates, which offers
// HTTP/2 and HTTP/1.1 by ALPN; nil when c is off.
func (c tlsConfig) config(log *slog.Logger) (*tls.Config, error) {
	switch {
	case len(c.domains) > 0:
		m := &autocert.Manager{Prompt: autocert.AcceptTOS, HostPolicy: autocert.HostWhitelist(c.domains...),
			Cache: autocert.DirCache(c.cacheDir), Email: c.email}
		if c.acmeURL != "" {
			m.Client = &acme.Client{DirectoryURL: c.acmeURL}
		}
		cfg := m.TLSConfig() // answers the TLS-ALPN-01 challenge on this port
		cfg.MinVersion = tls.VersionTLS12
		return cfg, nil
	case c.cert != "":
		f := &certFiles{cert: c.cert, key: c.key, log: log}
		if _, err := f.get(nil); err != nil {
			return nil, err
		}
		return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: f.get, NextProtos: []string{"h2", "http/1.1"}}, nil
	}
	return nil, nil
}

// certFiles serves the certificate of a pair of PEM files, read again
// when either file changes (its modification time or size): a renewed
// certificate is served from the next handshake on, without a restart. A
// pair that fails to load keeps the previous certificate in service.
type certFiles struct {
	cert, key string
	log       *slog.Logger

	mu      sync.Mutex
	current *tls.Certificate
	stamp   [2]fileStamp // of cert and key when current was loaded
}

// fileStamp is what tells that a file changed.
type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.ModTime(), fi.Size()}, nil
}

// get is tls.Config.GetCertificate.
func (f *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cs, cerr := stampOf(f.cert)
	ks, kerr := stampOf(f.key)
	if err := errors.Join(cerr, kerr); err != nil {
		if f.current != nil {
			return f.current, nil // being replaced: the next handshake looks again
		}
		return nil, fmt.Errorf("PAPERMEM_TLS_CERT/PAPERMEM_TLS_KEY: %w", err)
	}
	if f.current != nil && f.stamp == [2]fileStamp{cs, ks} {
		return f.current, nil
	}
	pair, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		if f.current != nil {
			f.log.Warn("tls certificate not reloaded; serving the previous one", "err", err)
			f.stamp = [2]fileStamp{cs, ks} // not tried again until the files change again
			return f.current, nil
		}
		return nil, fmt.Errorf("PAPERMEM_TLS_CERT/PAPERMEM_TLS_KEY: %w", err)
	}
	if f.current != nil {
		f.log.Info("tls certificate reloaded", "cert", f.cert)
	}
	f.current, f.stamp = &pair, [2]fileStamp{cs, ks}
	return f.current, nil
}
