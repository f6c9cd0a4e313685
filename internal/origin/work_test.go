package origin_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/origin"
)

func TestWork(t *testing.T) {
	fromCrossref := origin.Work{
		DOI:       "10.1000/xyz.1",
		Title:     "Deep learning for cats & dogs",
		Authors:   []string{"Ada Lovelace", "The Cat Consortium"},
		Year:      2020,
		Container: "Journal of Cats",
		Type:      "journal-article",
		License:   "https://creativecommons.org/licenses/by/4.0/",
		OA:        true,
		PDFURL:    "https://repo.example/xyz.pdf",
	}
	fromOpenAlex := origin.Work{
		DOI:       "10.1000/xyz.1",
		Title:     "Deep learning for cats and dogs (OpenAlex)",
		Authors:   []string{"Ada Lovelace", "Cat Consortium"},
		Year:      2020,
		Container: "Journal of Cats",
		Type:      "journal-article",
		License:   "cc-by", // Unpaywall's, as OpenAlex's primary location has none
		OA:        true,
		PDFURL:    "https://repo.example/xyz.pdf", // Unpaywall's first
		Retracted: true,
	}
	for _, tc := range []struct {
		name                          string
		doi                           string
		crossref, unpaywall, openalex http.HandlerFunc
		noContact                     bool
		want                          *origin.Work
		wantErr                       error
		notErr                        error // the error must not match this
		hits                          map[string]int
	}{
		{
			name:     "OK",
			doi:      "10.1000/XYZ.1",
			crossref: answer(crossrefXYZ), unpaywall: answer(unpaywallXYZ), openalex: answer(openalexXYZ),
			want: &fromCrossref,
			hits: map[string]int{"crossref": 1, "unpaywall": 1, "openalex": 0},
		},
		{
			name:     "DOIPrefix",
			doi:      " https://doi.org/10.1000/xyz.1 ",
			crossref: answer(crossrefXYZ), unpaywall: answer(unpaywallXYZ),
			want: &fromCrossref,
		},
		{
			name:     "CrossrefNotFoundOpenAlex",
			doi:      "doi:10.1000/xyz.1",
			openalex: answer(openalexXYZ), unpaywall: answer(unpaywallXYZ),
			want: &fromOpenAlex,
			hits: map[string]int{"crossref": 1, "unpaywall": 1, "openalex": 1},
		},
		{
			name:     "OpenAlexNoContact",
			doi:      "10.1000/xyz.1",
			openalex: answer(openalexXYZ), noContact: true,
			want: &origin.Work{
				DOI: "10.1000/xyz.1", Title: "Deep learning for cats and dogs (OpenAlex)",
				Authors: []string{"Ada Lovelace", "Cat Consortium"}, Year: 2020, Container: "Journal of Cats",
				Type: "journal-article", License: "cc-by-nc", OA: true, PDFURL: "https://oa.example/xyz.pdf", Retracted: true,
			},
			hits: map[string]int{"crossref": 1, "unpaywall": 1, "openalex": 1}, // Unpaywall asked without email: not known there
		},
		{
			name:     "CrossrefDownOpenAlex",
			doi:      "10.1000/xyz.1",
			crossref: status(http.StatusBadGateway), openalex: answer(openalexXYZ), unpaywall: answer(unpaywallXYZ),
			want: func() *origin.Work { w := fromOpenAlex; w.Partial = true; return &w }(),
			hits: map[string]int{"crossref": 3, "openalex": 1},
		},
		{
			name:     "UnpaywallDown",
			doi:      "10.1000/xyz.1",
			crossref: answer(crossrefXYZ), unpaywall: status(http.StatusInternalServerError),
			want: func() *origin.Work { w := fromCrossref; w.OA, w.PDFURL, w.Partial = false, "", true; return &w }(),
			hits: map[string]int{"crossref": 1, "unpaywall": 3},
		},
		{
			name:      "UnpaywallOnly",
			doi:       "10.1000/xyz.1",
			unpaywall: answer(unpaywallXYZ),
			want: &origin.Work{
				DOI: "10.1000/xyz.1", Title: "Deep learning for cats and dogs (Unpaywall)",
				Authors: []string{"Ada Lovelace", "Cat Consortium"}, Year: 2021, Container: "J. Cats",
				Type: "journal-article", License: "cc-by", OA: true, PDFURL: "https://repo.example/xyz.pdf",
			},
		},
		{
			name: "ArxivDOI",
			doi:  "10.48550/arXiv.2101.00001",
			openalex: answer(`{"id":"https://openalex.org/W2","title":"A preprint","publication_year":2021,
				"open_access":{"is_oa":false},"type":"preprint"}`),
			noContact: true,
			want: &origin.Work{
				DOI: "10.48550/arxiv.2101.00001", Title: "A preprint", Year: 2021, Type: "preprint",
				OA: true, PDFURL: "https://arxiv.example/pdf/2101.00001",
			},
		},
		{
			name:    "ErrNotFound",
			doi:     "10.1000/nobody",
			wantErr: origin.ErrNotFound, notErr: origin.ErrUpstream,
			hits: map[string]int{"crossref": 1, "unpaywall": 1, "openalex": 1},
		},
		{
			name:     "ErrUpstream",
			doi:      "10.1000/xyz.1",
			crossref: status(http.StatusServiceUnavailable), unpaywall: status(http.StatusServiceUnavailable),
			openalex: status(http.StatusServiceUnavailable),
			wantErr:  origin.ErrUpstream,
			hits:     map[string]int{"crossref": 3, "unpaywall": 3, "openalex": 3},
		},
		{
			// One service failing and the others not knowing the DOI is a
			// failure, not a "not found".
			name:     "ErrUpstreamNotNotFound",
			doi:      "10.1000/xyz.1",
			crossref: status(http.StatusInternalServerError),
			wantErr:  origin.ErrUpstream, notErr: origin.ErrNotFound,
		},
		{
			name:    "ErrInvalid",
			doi:     "not a doi",
			wantErr: origin.ErrInvalid,
			hits:    map[string]int{"crossref": 0, "unpaywall": 0, "openalex": 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.handle("crossref", tc.crossref)
			f.handle("unpaywall", tc.unpaywall)
			f.handle("openalex", tc.openalex)
			o := f.options()
			if tc.noContact {
				o.Contact = ""
			}
			got, err := origin.New(o).Work(context.Background(), tc.doi)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Work(%q) error = %v, want %v", tc.doi, err, tc.wantErr)
				}
				if tc.notErr != nil && errors.Is(err, tc.notErr) {
					t.Errorf("Work(%q) error %v matches %v", tc.doi, err, tc.notErr)
				}
			} else if err != nil {
				t.Fatalf("Work(%q): %v", tc.doi, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Work(%q) =\n%+v\nwant\n%+v", tc.doi, got, tc.want)
			}
			for service, n := range tc.hits {
				if got := f.hits(service); got != n {
					t.Errorf("%s received %d requests, want %d", service, got, n)
				}
			}
		})
	}
}

func TestWorkRetraction(t *testing.T) {
	crossref := func(updatedBy string) http.HandlerFunc {
		return answer(`{"status":"ok","message":{"DOI":"10.1000/r","title":["Retracted work"],"updated-by":` + updatedBy + `}}`)
	}
	for _, tc := range []struct {
		name          string
		updatedBy     string
		openalex      http.HandlerFunc
		wantRetracted bool
		wantNotices   []origin.Notice
	}{
		{
			name: "Retraction",
			updatedBy: `[
				{"updated":{"date-parts":[[2021,1,2]]},"DOI":"10.1000/RETR.1","type":"retraction","source":"publisher","label":"Retraction"},
				{"updated":{"date-parts":[[2021,1,2]]},"DOI":"10.1000/retr.1","type":"retraction","source":"retraction-watch","label":"Retraction","record-id":7},
				{"updated":{"date-parts":[[2020,7]]},"DOI":"10.1000/corr.1","type":"correction","source":"publisher","label":"Correction"},
				{"updated":{"date-parts":[[2022,3,4]]},"DOI":"10.1000/eoc.1","type":"expression_of_concern","label":"Expression of concern"}]`,
			wantRetracted: true,
			wantNotices: []origin.Notice{
				{Type: "retraction", DOI: "10.1000/retr.1", Date: "2021-01-02", Source: "publisher"},
				{Type: "correction", DOI: "10.1000/corr.1", Date: "2020-07", Source: "publisher"},
				{Type: "expression_of_concern", DOI: "10.1000/eoc.1", Date: "2022-03-04"},
			},
		},
		{
			name:        "CorrectionOnly",
			updatedBy:   `[{"updated":{"date-parts":[[2019]]},"DOI":"10.1000/corr.2","type":"correction"}]`,
			wantNotices: []origin.Notice{{Type: "correction", DOI: "10.1000/corr.2", Date: "2019"}},
		},
		{
			name:          "Withdrawal",
			updatedBy:     `[{"updated":{"date-parts":[[null]]},"DOI":"10.1000/w","type":"withdrawal"}]`,
			wantRetracted: true,
			wantNotices:   []origin.Notice{{Type: "withdrawal", DOI: "10.1000/w"}},
		},
		{
			name:      "None",
			updatedBy: `[]`,
		},
		{
			// OpenAlex is only the fallback: Crossref's answer stands.
			name:      "OpenAlexNotAsked",
			updatedBy: `[]`,
			openalex:  answer(`{"id":"W1","is_retracted":true}`),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.handle("crossref", crossref(tc.updatedBy))
			f.handle("openalex", tc.openalex)
			w, err := origin.New(f.options()).Work(context.Background(), "10.1000/r")
			if err != nil {
				t.Fatal(err)
			}
			if w.Retracted != tc.wantRetracted || !reflect.DeepEqual(w.Notices, tc.wantNotices) {
				t.Errorf("Retracted, Notices = %v, %+v; want %v, %+v", w.Retracted, w.Notices, tc.wantRetracted, tc.wantNotices)
			}
		})
	}

	t.Run("OpenAlexIsRetracted", func(t *testing.T) {
		t.Parallel()
		f := newFake(t)
		f.handle("openalex", answer(`{"id":"W1","title":"Gone","is_retracted":true}`))
		w, err := origin.New(f.options()).Work(context.Background(), "10.1000/r")
		if err != nil {
			t.Fatal(err)
		}
		if !w.Retracted || w.Notices != nil {
			t.Errorf("Retracted, Notices = %v, %+v; want true and none", w.Retracted, w.Notices)
		}
	})
}

// TestServices puts each service through the answers a service can give,
// through a call that depends on that service alone.
func TestServices(t *testing.T) {
	services := []struct {
		name    string
		body    string // a good answer
		contact string
		call    func(context.Context, *origin.Client) (outcome, error)
	}{
		{
			name: "crossref", body: crossrefXYZ, // Work without Unpaywall, OpenAlex answering 404
			call: func(ctx context.Context, c *origin.Client) (outcome, error) {
				w, err := c.Work(ctx, "10.1000/xyz.1")
				switch {
				case errors.Is(err, origin.ErrNotFound):
					return notFound, nil
				case errors.Is(err, origin.ErrUpstream):
					return upstream, nil
				case err != nil:
					return "", err
				case w.Title != "Deep learning for cats & dogs":
					return "", errors.New("wrong title " + w.Title)
				}
				return ok, nil
			},
		},
		{
			name: "unpaywall", body: unpaywallXYZ, contact: contact, // FullText, OpenAlex answering 404
			call: fullTextOutcome("https://repo.example/xyz.pdf"),
		},
		{
			name: "openalex", body: openalexXYZ, // FullText without Unpaywall
			call: fullTextOutcome("https://oa.example/xyz.pdf"),
		},
	}
	big := func(body string) string { return body[:len(body)-1] + strings.Repeat(" ", 5000) + "}" }
	faults := []struct {
		name       string
		handler    func(body string) http.HandlerFunc
		want       outcome
		hits       int // requests the service receives; negative: at least -hits
		minElapsed time.Duration
	}{
		{"OK", answer, ok, 1, 0},
		{"NotFound", func(string) http.HandlerFunc { return status(http.StatusNotFound) }, notFound, 1, 0},
		{"RetryAfter", func(body string) http.HandlerFunc {
			return then(1, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1")
				status(http.StatusTooManyRequests)(w, r)
			}, answer(body))
		}, ok, 2, 900 * time.Millisecond},
		{"Unavailable", func(body string) http.HandlerFunc {
			return then(1, status(http.StatusServiceUnavailable), answer(body))
		}, ok, 2, 0},
		{"ServerError", func(string) http.HandlerFunc { return status(http.StatusInternalServerError) }, upstream, 3, 0},
		{"TooManyRequests", func(string) http.HandlerFunc { return status(http.StatusTooManyRequests) }, upstream, 3, 0},
		{"Slow", func(body string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
				answer(body)(w, r)
			}
		}, upstream, 3, 0},
		// A connection closed before any answer: net/http itself may retry
		// a GET on a reused connection, so at least 3 requests arrive
		// (hits -3).
		{"Dropped", func(string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
			}
		}, upstream, -3, 0},
		{"CutShort", func(body string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n" + body[:10])
				buf.Flush()
				conn.Close()
			}
		}, upstream, 3, 0},
		{"Oversized", func(body string) http.HandlerFunc { return answer(big(body)) }, upstream, 1, 0},
		{"OversizedDeclared", func(body string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				b := big(body)
				w.Header().Set("Content-Length", strconv.Itoa(len(b)))
				w.Write([]byte(b))
			}
		}, upstream, 1, 0},
		{"Malformed", func(body string) http.HandlerFunc { return answer(body[:len(body)/2]) }, upstream, 1, 0},
		{"NotJSON", func(string) http.HandlerFunc { return answer("<html>busy</html>") }, upstream, 1, 0},
		{"Forbidden", func(string) http.HandlerFunc { return status(http.StatusForbidden) }, upstream, 1, 0},
		{"BadRequest", func(string) http.HandlerFunc { return status(http.StatusBadRequest) }, upstream, 1, 0},
	}
	for _, s := range services {
		for _, fl := range faults {
			t.Run(s.name+"/"+fl.name, func(t *testing.T) {
				t.Parallel()
				f := newFake(t)
				f.handle(s.name, fl.handler(s.body))
				o := f.options()
				o.Contact = s.contact
				o.Timeout = 150 * time.Millisecond
				o.MaxBytes = 4096
				if fl.minElapsed > 0 {
					o.Timeout = 2 * time.Second
				}
				start := time.Now()
				got, err := s.call(context.Background(), origin.New(o))
				elapsed := time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				if got != fl.want {
					t.Errorf("outcome %q, want %q", got, fl.want)
				}
				if n := f.hits(s.name); n != fl.hits && (fl.hits >= 0 || n < -fl.hits) {
					t.Errorf("%s received %d requests, want %d (negative: at least)", s.name, n, fl.hits)
				}
				if elapsed < fl.minElapsed {
					t.Errorf("took %s, want at least %s", elapsed, fl.minElapsed)
				}
			})
		}
	}
}

// outcome is how a call ended, for TestServices.
type outcome string

const (
	ok       outcome = "ok"
	notFound outcome = "not found"
	upstream outcome = "upstream"
)

// fullTextOutcome returns a call of FullText for 10.1000/xyz.1 that
// expects pdf first when it succeeds; an empty list is notFound.
func fullTextOutcome(pdf string) func(context.Context, *origin.Client) (outcome, error) {
	return func(ctx context.Context, c *origin.Client) (outcome, error) {
		urls, err := c.FullText(ctx, "10.1000/xyz.1")
		switch {
		case errors.Is(err, origin.ErrUpstream):
			return upstream, nil
		case err != nil:
			return "", err
		case len(urls) == 0:
			return notFound, nil
		case urls[0] != pdf:
			return "", fmt.Errorf("FullText = %q, want %s first", urls, pdf)
		}
		return ok, nil
	}
}

func TestHosts(t *testing.T) {
	c := origin.New(origin.Options{CrossrefURL: "http://127.0.0.1:8080/", UnpaywallURL: "https://Example.org", OpenAlexURL: "http://[::1]:9000", ArxivURL: "http://localhost"})
	got := strings.Join(c.Hosts(), " ")
	for _, want := range []string{"127.0.0.1:8080", "example.org:443", "[::1]:9000", "localhost:80"} {
		if !strings.Contains(got, want) {
			t.Errorf("Hosts() = %s, want %s among them", got, want)
		}
	}
}

// TestUnreachable checks that a service that cannot be reached at all (a
// closed port: an offline machine) fails without a retry: with an hour's
// backoff and a minute's deadline, a retry would be given up as "no time
// left for a retry".
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := origin.New(origin.Options{CrossrefURL: base, OpenAlexURL: base, UnpaywallURL: base, Contact: "a@b.org", Backoff: time.Hour, MaxRetryWait: 2 * time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.Work(ctx, "10.1000/x")
	if !errors.Is(err, origin.ErrUpstream) || strings.Contains(err.Error(), "retry") || strings.Contains(err.Error(), "attempts") {
		t.Fatalf("err = %v, want ErrUpstream without a retry", err)
	}
}
