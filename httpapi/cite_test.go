package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/httpapi"
)

func TestCite(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	want(t, e.do("POST", "/v1/papers", map[string]any{"doi": "10.1000/ABC.1", "title": "Sleep & memory in mice",
		"authors": []string{"Jane Q. Doe", "Roe, Richard", "Aristotle"}, "year": 2021, "source_url": "https://example.org/abc"},
		a.auth()...), http.StatusCreated, "")
	r := e.do("POST", "/v1/papers", map[string]any{"title": "Lab notes on sleep", "authors": []string{"Ada Lovelace"}}, a.auth()...)
	want(t, r, http.StatusCreated, "")
	var local struct {
		DOI string `json:"doi"`
	}
	r.json(t, &local)

	bibtex := "@article{doe2021sleep,\n  author = {Doe, Jane Q. and Roe, Richard and {Aristotle}},\n  title = {{Sleep \\& memory in mice}},\n" +
		"  year = {2021},\n  doi = {10.1000/abc.1},\n  url = {https://example.org/abc}\n}\n"
	t.Run("Formats", func(t *testing.T) {
		for _, tc := range []struct{ query, mediaType, body string }{
			{"", "application/x-bibtex", bibtex},
			{"?format=bibtex", "application/x-bibtex", bibtex},
			{"?format=RIS", "application/x-research-info-systems", "TY  - JOUR\r\nTI  - Sleep & memory in mice\r\nAU  - Doe, Jane Q.\r\n" +
				"AU  - Roe, Richard\r\nAU  - Aristotle\r\nPY  - 2021\r\nDO  - 10.1000/abc.1\r\nUR  - https://example.org/abc\r\nER  - \r\n"},
		} {
			r := e.do("GET", "/v1/papers/10.1000/abc.1/cite"+tc.query, nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			if ct := r.header.Get("Content-Type"); ct != tc.mediaType+"; charset=utf-8" {
				t.Errorf("%s: Content-Type %q", tc.query, ct)
			}
			if r.header.Get("Cache-Control") != "no-store" || r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: headers %v", tc.query, r.header)
			}
			if diff := cmp.Diff(tc.body, string(r.body)); diff != "" {
				t.Errorf("%s: body (-want +got):\n%s", tc.query, diff)
			}
		}
	})
	t.Run("CSLJSON", func(t *testing.T) {
		r := e.do("GET", "/v1/papers/10.1000/abc.1/cite?format=csl-json", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		if ct := r.header.Get("Content-Type"); ct != "application/vnd.citationstyles.csl+json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		var items []map[string]any
		r.json(t, &items)
		wantItems := []map[string]any{{"id": "doe2021sleep", "type": "article-journal", "DOI": "10.1000/abc.1",
			"title": "Sleep & memory in mice", "URL": "https://example.org/abc",
			"author": []any{map[string]any{"family": "Doe", "given": "Jane Q."}, map[string]any{"family": "Roe", "given": "Richard"},
				map[string]any{"literal": "Aristotle"}},
			"issued": map[string]any{"date-parts": []any{[]any{2021.0}}}}}
		if diff := cmp.Diff(wantItems, items); diff != "" {
			t.Errorf("CSL-JSON (-want +got):\n%s", diff)
		}
	})
	t.Run("SlashInPath", func(t *testing.T) {
		for _, path := range []string{"/v1/papers/10.1000%2Fabc.1/cite", "/v1/papers/10.1000%2fABC.1/cite?format=bibtex",
			"/v1/papers/doi:10.1000/ABC.1/cite", "/v1/papers/https:%2F%2Fdoi.org%2F10.1000%2Fabc.1/cite"} {
			r := e.do("GET", path, nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			if string(r.body) != bibtex {
				t.Errorf("%s: %s", path, r.body)
			}
		}
	})
	t.Run("LocalID", func(t *testing.T) {
		for _, f := range []string{"bibtex", "ris", "csl-json"} {
			r := e.do("GET", "/v1/papers/"+local.DOI+"/cite?format="+f, nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			if body := string(r.body); strings.Contains(body, "local:") || !strings.Contains(body, "Lovelace") {
				t.Errorf("%s: %s", f, body)
			}
		}
	})
	t.Run("BadFormat", func(t *testing.T) {
		for _, q := range []string{"?format=apa", "?format=csl", "?format=%00"} {
			r := e.do("GET", "/v1/papers/10.1000/abc.1/cite"+q, nil, a.auth()...)
			want(t, r, http.StatusBadRequest, "invalid_input")
			var body struct {
				Error struct{ Message string } `json:"error"`
			}
			if err := json.Unmarshal(r.body, &body); err != nil || !strings.Contains(body.Error.Message, "bibtex, ris, csl-json") {
				t.Errorf("%s: %s", q, r.body)
			}
		}
		want(t, e.do("GET", "/v1/papers/not-a-doi/cite", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("NotFound", func(t *testing.T) {
		want(t, e.do("GET", "/v1/papers/10.1000/none/cite", nil, a.auth()...), http.StatusNotFound, "not_found")
		// Another workspace's paper is not found either.
		want(t, e.do("GET", "/v1/papers/10.1000/abc.1/cite?format=ris", nil, b.auth()...), http.StatusNotFound, "not_found")
	})
	t.Run("OpenAPI", func(t *testing.T) {
		var doc struct {
			Paths map[string]map[string]struct {
				Parameters []struct{ Name, In string } `json:"parameters"`
				Responses  map[string]struct {
					Content map[string]any `json:"content"`
				} `json:"responses"`
			} `json:"paths"`
		}
		e.do("GET", "/v1/openapi.json", nil).json(t, &doc)
		op := doc.Paths["/v1/papers/{doi}/cite"]["get"]
		var got []string
		for mediaType := range op.Responses["200"].Content {
			got = append(got, mediaType)
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"application/vnd.citationstyles.csl+json", "application/x-bibtex", "application/x-research-info-systems"}) {
			t.Errorf("200 media types %q", got)
		}
		if _, ok := op.Responses["404"]; !ok || !slices.ContainsFunc(op.Parameters, func(p struct{ Name, In string }) bool {
			return p.Name == "format" && p.In == "query"
		}) {
			t.Errorf("no 404 or no format parameter: %+v", op)
		}
	})
	t.Run("Unauthorized", func(t *testing.T) {
		want(t, e.do("GET", "/v1/papers/10.1000/abc.1/cite", nil), http.StatusUnauthorized, "unauthorized")
	})
}
