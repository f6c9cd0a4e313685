package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/scifact"
)

// The origins mode (-origins N): issue 39's measurement. N SciFact
// abstracts, each with a DOI, its title and its text, are stored through
// POST /v1/papers/batch, originsBatch a request, one request after
// another, on a fresh server (cmd/server's wiring in a child process) in
// each of three configurations, in the same run:
//   - off: PAPERMEM_ORIGINS=off;
//   - unreachable: every origin's base URL is a loopback port that
//     accepts connections and never answers (a firewall that drops);
//   - slow: every origin a stand-in that answers in the services' formats
//     after originsDelay.
//
// It prints papers/s, the slowest batch and the failed batches of each,
// and, for the origins on, how many of a sample of the papers had their
// metadata settled (complete or unavailable) at the end of the ingest and
// originsSettle later.

const (
	originsBatch  = 100
	originsDelay  = 2 * time.Second
	originsSettle = 30 * time.Second
)

// originsSetup is one configuration of the origins mode.
type originsSetup struct {
	name string
	env  []string
}

// runOrigins runs the origins mode over the first n SciFact abstracts,
// the three configurations one after another, rounds times over (the
// machine's load changes between runs: each configuration's median then
// stands beside the others').
func runOrigins(out io.Writer, docs []scifact.Doc, n, rounds int) error {
	docs = docs[:min(n, len(docs))]
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer hole.Close()
	go blackHole(hole)
	slow := httptest.NewServer(slowOrigins(originsDelay))
	defer slow.Close()

	setups := []originsSetup{
		{"PAPERMEM_ORIGINS=off", []string{"PAPERMEM_ORIGINS=off"}},
		{"origins on, every origin a port that accepts and never answers", originsEnv("http://" + hole.Addr().String())},
		{fmt.Sprintf("origins on, every origin answering after %s", originsDelay), originsEnv(slow.URL)},
	}
	fmt.Fprintf(out, "origins: %d SciFact abstracts with DOI, title and text through POST /v1/papers/batch, %d a request, one after another, on a fresh server per configuration\n\n",
		len(docs), originsBatch)
	fmt.Fprintln(out, "| configuration | papers/s | slowest batch | failed batches | metadata settled (sample of 20): after the ingest / 30 s later |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	rates := make([][]float64, len(setups))
	for r := range rounds {
		for i, s := range setups {
			rate, err := s.run(out, docs, r == rounds-1)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			rates[i] = append(rates[i], rate)
		}
	}
	if rounds > 1 {
		fmt.Fprintf(out, "\nmedian papers/s over %d rounds:", rounds)
		for i, s := range setups {
			slices.Sort(rates[i])
			fmt.Fprintf(out, " %s %.0f (%.0f%% of off);", s.name, rates[i][len(rates[i])/2], 100*rates[i][len(rates[i])/2]/rates[0][len(rates[0])/2])
		}
		fmt.Fprintln(out)
	}
	return nil
}

// originsEnv points every origin at base, with a contact address.
func originsEnv(base string) []string {
	return []string{"PAPERMEM_ORIGINS=on", "PAPERMEM_CONTACT_EMAIL=bench@example.org",
		"PAPERMEM_CROSSREF_URL=" + base, "PAPERMEM_UNPAYWALL_URL=" + base,
		"PAPERMEM_OPENALEX_URL=" + base, "PAPERMEM_ARXIV_URL=" + base}
}

// run stores docs on a fresh server configured by s, prints its row and
// returns its papers/s; settle says whether to wait and see the metadata
// filled in the background.
func (s originsSetup) run(out io.Writer, docs []scifact.Doc, settle bool) (float64, error) {
	dir, err := os.MkdirTemp("", "papermem-origins")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	srv, err := startServer(filepath.Join(dir, "origins.db"), s.env...)
	if err != nil {
		return 0, err
	}
	defer srv.stop()
	key, _, err := signUp(srv.addr, faultOrg)
	if err != nil {
		return 0, err
	}
	var slowest time.Duration
	failed := 0
	var dois []string
	begin := time.Now()
	for from := 0; from < len(docs); from += originsBatch {
		var papers []map[string]string
		for _, d := range docs[from:min(from+originsBatch, len(docs))] {
			doi := "10.5555/scifact." + d.ID
			dois = append(dois, doi)
			papers = append(papers, map[string]string{"doi": doi, "title": d.Title, "text": d.Text})
		}
		body, _ := json.Marshal(map[string]any{"papers": papers})
		start := time.Now()
		status, res, err := call(srv.addr, key, "POST", "/v1/papers/batch", "", body)
		slowest = max(slowest, time.Since(start))
		var rep api.BatchReport
		if err == nil && status == http.StatusOK {
			err = json.Unmarshal(res, &rep)
		}
		if err != nil || status != http.StatusOK || rep.Failed > 0 {
			failed++
		}
	}
	took := time.Since(begin)
	settled := "n/a (origins off)"
	if !strings.Contains(s.name, "=off") {
		settled = "not waited for"
		if settle {
			now, err := countSettled(srv.addr, key, dois)
			if err != nil {
				return 0, err
			}
			time.Sleep(originsSettle)
			later, err := countSettled(srv.addr, key, dois)
			if err != nil {
				return 0, err
			}
			settled = fmt.Sprintf("%d / %d", now, later)
		}
	}
	rate := float64(len(docs)) / took.Seconds()
	fmt.Fprintf(out, "| %s | %.0f | %.2f s | %d of %d | %s |\n", s.name, rate,
		slowest.Seconds(), failed, (len(docs)+originsBatch-1)/originsBatch, settled)
	return rate, nil
}

// countSettled reads 20 of the papers, evenly spread, and counts those
// whose metadata is no longer pending.
func countSettled(addr, key string, dois []string) (int, error) {
	n := 0
	step := max(len(dois)/20, 1)
	for i := 0; i < len(dois); i += step {
		status, res, err := call(addr, key, "GET", "/v1/papers/"+dois[i], "", nil)
		if err != nil || status != http.StatusOK {
			return 0, fmt.Errorf("get paper %s: %d %.200s %v", dois[i], status, res, err)
		}
		var p struct{ Metadata string }
		if err := json.Unmarshal(res, &p); err != nil {
			return 0, err
		}
		if p.Metadata != "pending" {
			n++
		}
	}
	return n, nil
}

// blackHole accepts connections on l and never answers, holding them open
// until l closes.
func blackHole(l net.Listener) {
	var mu sync.Mutex
	var conns []net.Conn
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		go io.Copy(io.Discard, c)
	}
}

// slowOrigins is a stand-in for Crossref, Unpaywall and OpenAlex that
// answers every DOI, in the services' formats, after delay.
func slowOrigins(delay time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/works/doi:"): // OpenAlex
			doi := strings.TrimPrefix(p, "/works/doi:")
			fmt.Fprintf(w, `{"id":"https://openalex.org/W1","doi":"https://doi.org/%s","title":"A work","publication_year":2020,"is_retracted":false,"open_access":{"is_oa":false}}`, doi)
		case strings.HasPrefix(p, "/works/"): // Crossref
			doi := strings.TrimPrefix(p, "/works/")
			fmt.Fprintf(w, `{"status":"ok","message-type":"work","message":{"DOI":%q,"title":["A work"],"author":[{"given":"Ada","family":"Lovelace"}],"issued":{"date-parts":[[2020]]},"container-title":["Journal of Benchmarks"],"type":"journal-article"}}`, doi)
		case strings.HasPrefix(p, "/v2/"): // Unpaywall
			doi := strings.TrimPrefix(p, "/v2/")
			fmt.Fprintf(w, `{"doi":%q,"is_oa":false,"best_oa_location":null,"oa_locations":[]}`, doi)
		default:
			http.NotFound(w, r)
		}
	})
}
