package serve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/dashboard"
	"github.com/papermem/papermem/internal/testdb"
)

// selfSigned returns a PEM certificate for name (a DNS name or an IP
// address) and its PEM key, valid for an hour.
func selfSigned(t *testing.T, name string, serial int64) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// writeFile writes b to path, its modification time at so that a
// rewrite within the file system's time resolution is seen as a change.
func writeFile(t *testing.T, path string, b []byte, at time.Time) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// trusting returns an HTTP client trusting only certPEM, offering HTTP/2.
func trusting(t *testing.T, certPEM []byte) *http.Client {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		t.Fatal("bad certificate")
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
}

// TestRunTLS: with PAPERMEM_TLS_CERT and PAPERMEM_TLS_KEY the API answers
// over HTTPS with HTTP/2 offered by ALPN, plain HTTP on the port gets
// nothing of the API, the dashboard's cookie is Secure, and a certificate
// replaced on disk is served from the next handshake on.
func TestRunTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	cert1, key1 := selfSigned(t, "127.0.0.1", 1)
	now := time.Now()
	writeFile(t, certFile, cert1, now.Add(-time.Hour))
	writeFile(t, keyFile, key1, now.Add(-time.Hour))
	client := trusting(t, cert1)
	base, _, stop := startWith(t, []string{"-addr", "127.0.0.1:0", "-db", testdb.Path(t)},
		map[string]string{"PAPERMEM_TLS_CERT": certFile, "PAPERMEM_TLS_KEY": keyFile}, client)
	defer stop()
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("listening on %s", base)
	}

	res, err := client.Get(base + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Proto != "HTTP/2.0" || !strings.Contains(string(body), `"status":"ok"`) {
		t.Fatalf("https health: %d %s %s", res.StatusCode, res.Proto, body)
	}
	host := strings.TrimPrefix(base, "https://")
	conn, err := tls.Dial("tcp", host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Errorf("ALPN chose %q, want h2", p)
	}
	conn.Close()

	// Plain HTTP on the TLS port gets nothing of the API.
	res, err = http.Get("http://" + host + "/v1/health")
	if err == nil {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 200 || strings.Contains(string(body), `"status"`) {
			t.Fatalf("plain HTTP answered %d %s", res.StatusCode, body)
		}
	}

	// The dashboard's session cookie is Secure over TLS.
	status, out := callWith(t, client, "POST", base+"/v1/auth/signup", "", map[string]any{"email": "tls@example.org", "password": "long enough"})
	if status != 201 {
		t.Fatalf("signup %d %v", status, out)
	}
	req, _ := http.NewRequest("POST", base+"/dashboard/login", strings.NewReader(url.Values{"email": {"tls@example.org"}, "password": {"long enough"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	noRedirect := *client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if res, err = noRedirect.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == dashboard.CookieName {
			cookie = c
		}
	}
	if cookie == nil || !cookie.Secure {
		t.Fatalf("dashboard login %d: cookie %+v, want Secure", res.StatusCode, cookie)
	}

	// A renewed certificate is served without a restart.
	cert2, key2 := selfSigned(t, "127.0.0.1", 2)
	writeFile(t, keyFile, key2, now)
	writeFile(t, certFile, cert2, now)
	res, err = trusting(t, cert2).Get(base + "/v1/health")
	if err != nil {
		t.Fatalf("after the renewal: %v", err)
	}
	res.Body.Close()
	if serial := res.TLS.PeerCertificates[0].SerialNumber.Int64(); serial != 2 {
		t.Errorf("served certificate %d after the renewal, want 2", serial)
	}
}

// TestCertFilesKeepServing: a pair that fails to load (a key written
// before its certificate, a truncated file) leaves the previous
// certificate in service.
func TestCertFilesKeepServing(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	cert1, key1 := selfSigned(t, "papermem.test", 1)
	writeFile(t, certFile, cert1, time.Now().Add(-time.Hour))
	writeFile(t, keyFile, key1, time.Now().Add(-time.Hour))
	f := &certFiles{cert: certFile, key: keyFile, log: slog.New(slog.DiscardHandler)}
	c1, err := f.get(nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, certFile, cert1[:len(cert1)/2], time.Now())
	c2, err := f.get(nil)
	if err != nil || c2 != c1 {
		t.Fatalf("a broken pair: %v, %v; want the previous certificate", c2, err)
	}
	os.Remove(keyFile)
	if c3, err := f.get(nil); err != nil || c3 != c1 {
		t.Fatalf("a missing key: %v, %v; want the previous certificate", c3, err)
	}
	if _, err := (&certFiles{cert: certFile, key: keyFile, log: slog.New(slog.DiscardHandler)}).get(nil); err == nil {
		t.Fatal("a first load of a broken pair succeeded")
	}
}

// TestACMECache: with PAPERMEM_ACME_DOMAINS the server answers a
// handshake for one of the domains with the certificate in the ACME cache
// directory (as autocert keeps it: the key then the chain, PEM), without
// asking the authority, and refuses other names.
func TestACMECache(t *testing.T) {
	cache := t.TempDir()
	certPEM, keyPEM := selfSigned(t, "papermem.test", 7)
	if err := os.WriteFile(filepath.Join(cache, "papermem.test"), append(keyPEM, certPEM...), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := loadConfig(nil, env(map[string]string{"PAPERMEM_ACME_DOMAINS": "papermem.test, other.test", "PAPERMEM_ACME_CACHE": cache,
		"PAPERMEM_ACME_DIRECTORY": "http://127.0.0.1:9/directory"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := c.tls.config(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", conf)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				conn.(*tls.Conn).Handshake()
				conn.Close()
			}()
		}
	}()
	conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{ServerName: "papermem.test", InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if serial := conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64(); serial != 7 {
		t.Errorf("served certificate %d, want the cached 7", serial)
	}
	conn.Close()
	if conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{ServerName: "elsewhere.test", InsecureSkipVerify: true}); err == nil {
		conn.Close()
		t.Error("a handshake for a name outside PAPERMEM_ACME_DOMAINS succeeded")
	}
}

func TestTLSConfigErrors(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"CertWithoutKey":  {"PAPERMEM_TLS_CERT": "c.pem"},
		"KeyWithoutCert":  {"PAPERMEM_TLS_KEY": "k.pem"},
		"ACMEAndFiles":    {"PAPERMEM_TLS_CERT": "c.pem", "PAPERMEM_TLS_KEY": "k.pem", "PAPERMEM_ACME_DOMAINS": "a.example"},
		"ACMEInMemory":    {"PAPERMEM_ACME_DOMAINS": "a.example", "PAPERMEM_DB": ":memory:"},
		"ACMEOnPostgres":  {"PAPERMEM_ACME_DOMAINS": "a.example", "PAPERMEM_DB": "postgres://localhost/x"},
		"MissingCertFile": {"PAPERMEM_TLS_CERT": "/nonexistent/c.pem", "PAPERMEM_TLS_KEY": "/nonexistent/k.pem"},
	} {
		t.Run(name, func(t *testing.T) {
			c, _, err := loadConfig(nil, env(vars), io.Discard)
			if err == nil {
				_, err = c.tls.config(slog.New(slog.DiscardHandler))
			}
			if err == nil {
				t.Fatal("accepted")
			}
		})
	}
	c, _, err := loadConfig(nil, env(map[string]string{"PAPERMEM_ACME_DOMAINS": "A.example", "PAPERMEM_DB": "/srv/p.db"}), io.Discard)
	if err != nil || c.tls.cacheDir != "/srv/p.db-acme" || c.tls.domains[0] != "a.example" {
		t.Fatalf("ACME defaults: %+v, %v", c.tls, err)
	}
}
