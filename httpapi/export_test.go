package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/httpapi"
)

// exportPage is GET /v1/export's answer with records kept raw.
type exportPage struct {
	Records    []json.RawMessage `json:"records"`
	Count      int               `json:"count"`
	NextCursor string            `json:"next_cursor"`
}

// allExports pages through GET /v1/export with the query.
func allExports(t *testing.T, e *env, hdr []string, query string, limit int) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	cursor := ""
	for {
		q := query + "&limit=" + fmt.Sprint(limit)
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		r := e.do("GET", "/v1/export?"+q, nil, hdr...)
		want(t, r, http.StatusOK, "")
		var p exportPage
		r.json(t, &p)
		if p.Count != len(p.Records) || p.Count > limit {
			t.Fatalf("page of %d records says count %d: %s", len(p.Records), p.Count, r.body)
		}
		out = append(out, p.Records...)
		if p.NextCursor == "" {
			return out
		}
		cursor = p.NextCursor
	}
}

// sessionIDs lists the session_id of raw records.
func sessionIDs(t *testing.T, recs []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		var v struct {
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.SessionID)
	}
	return out
}

func TestExportRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	key := e.apiKey(a.auth()...)
	storePaper(t, e, a.auth(), "10.1000/abc.1")
	claim := claimOf(t, e, a.auth(), "Does sleep deprivation impair memory?")

	t.Run("Write", func(t *testing.T) {
		body := `{"session_id":"run-1","created_at":"2025-03-01T10:00:00+01:00",
			"steps":[{"agent":"planner","tool":"recall","args":{"question":"sleep","big":9007199254740993,"nested":[1.5,null]},"result_ref":"spans/1"},
			         {"agent":"writer","tool":"draft"}],
			"recalled_papers":["https://doi.org/10.1000/ABC.1","10.7777/new"],
			"recalled_claims":[` + fmt.Sprint(claim) + `,987654321],
			"metadata":{"domain":"neuroscience","run":{"seed":12345678901234567}}}`
		r := e.do("POST", "/v1/export/session", body, a.auth()...)
		want(t, r, http.StatusOK, "")
		if got := string(r.body); got != `{"written":true,"session_id":"run-1"}`+"\n" {
			t.Fatalf("export: %s", got)
		}
		r = e.do("GET", "/v1/export?session_id=run-1", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var p exportPage
		r.json(t, &p)
		if p.Count != 1 || p.NextCursor != "" {
			t.Fatalf("query: %s", r.body)
		}
		var got, wantRec any
		json.Unmarshal(p.Records[0], &got)
		json.Unmarshal([]byte(`{"session_id":"run-1","user_id":"`+a.userID+`","org_id":"lab-one","created_at":"2025-03-01T09:00:00.000Z",
			"steps":[{"agent":"planner","tool":"recall","args":{"question":"sleep","big":9007199254740993,"nested":[1.5,null]},"result_ref":"spans/1"},
			         {"agent":"writer","tool":"draft","args":null,"result_ref":""}],
			"recalled_papers":["10.1000/abc.1","10.7777/new"],
			"recalled_claims":[`+fmt.Sprint(claim)+`,987654321],
			"metadata":{"domain":"neuroscience","run":{"seed":12345678901234567}}}`), &wantRec)
		if diff := cmp.Diff(wantRec, got); diff != "" {
			t.Errorf("record (-want +got):\n%s", diff)
		}
		for _, big := range []string{"9007199254740993", "12345678901234567"} {
			if !bytes.Contains(p.Records[0], []byte(big)) {
				t.Errorf("the number %s did not survive: %s", big, p.Records[0])
			}
		}
		// The record linked the session to its papers and existing claim.
		r = e.do("GET", "/v1/graph?seed_session=run-1", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		if !bytes.Contains(r.body, []byte(`"paper:10.7777/new"`)) || !bytes.Contains(r.body, []byte(fmt.Sprintf(`"claim:%d"`, claim))) ||
			bytes.Contains(r.body, []byte("987654321")) {
			t.Errorf("graph of the exported session: %s", r.body)
		}
	})

	t.Run("GeneratedIDAndUsers", func(t *testing.T) {
		r := e.do("POST", "/v1/export/session", map[string]any{"steps": []any{}, "user_id": "agent-7", "created_at": "2025-03-02"}, bearer(key)...)
		want(t, r, http.StatusOK, "")
		var w struct {
			Written   bool   `json:"written"`
			SessionID string `json:"session_id"`
		}
		r.json(t, &w)
		if !w.Written || w.SessionID == "" {
			t.Fatalf("export without id: %s", r.body)
		}
		r = e.do("GET", "/v1/export?session_id="+url.QueryEscape(w.SessionID), nil, a.auth()...)
		if !bytes.Contains(r.body, []byte(`"user_id":"agent-7"`)) {
			t.Errorf("API key without X-User-Id keeps the body's user_id: %s", r.body)
		}
		// With a user from the credential, another user_id is refused.
		want(t, e.do("POST", "/v1/export/session", map[string]any{"session_id": "x1", "user_id": "someone-else"}, a.auth()...), http.StatusForbidden, "forbidden")
		want(t, e.do("POST", "/v1/export/session", map[string]any{"session_id": "x1", "user_id": "someone-else"}, append(bearer(key), "X-User-Id", a.userID)...), http.StatusForbidden, "forbidden")
		want(t, e.do("POST", "/v1/export/session", map[string]any{"session_id": "x1", "user_id": a.userID, "created_at": "2025-03-03T12:00:00Z"}, a.auth()...), http.StatusOK, "")
	})

	t.Run("ErrWrite", func(t *testing.T) {
		for _, body := range []any{
			`{"session_id":"bad id"}`,
			`{"session_id":"x2","recalled_papers":["not a doi"]}`,
			`{"session_id":"x2","recalled_papers":"10.1/x"}`,
			`{"session_id":"x2","recalled_claims":["a"]}`,
			`{"session_id":"x2","steps":{"agent":"a"}}`,
			`{"session_id":"x2","steps":[{"agent":5}]}`,
			`{"session_id":"x2","metadata":[1]}`,
			`{"session_id":"x2","created_at":"yesterday"}`,
			`{"session_id":"x2"`,
			``,
		} {
			want(t, e.do("POST", "/v1/export/session", body, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
		want(t, e.do("POST", "/v1/export/session", `{}`), http.StatusUnauthorized, "unauthorized")
		if ids := sessionIDs(t, allExports(t, e, a.auth(), "session_id=x2", 10)); len(ids) != 0 {
			t.Errorf("refused exports stored: %v", ids)
		}
	})

	t.Run("Query", func(t *testing.T) {
		// run-1 at 2025-03-01T09:00Z, the generated one 2025-03-02, x1 2025-03-03T12:00Z.
		all := sessionIDs(t, allExports(t, e, a.auth(), "", 100))
		if len(all) != 3 || all[0] != "x1" || all[2] != "run-1" {
			t.Fatalf("all records, newest first: %v", all)
		}
		for q, wantIDs := range map[string][]string{
			"since=2025-03-02":                            {"x1", all[1]},
			"until=2025-03-02":                            {all[1], "run-1"}, // a date as until means the whole day
			"since=2025-03-01&until=2025-03-01":           {"run-1"},
			"since=2025-03-01T09:00:00Z&until=2025-03-01": {"run-1"},
			"since=2025-03-01T09:00:00.001Z":              {"x1", all[1]},
			"until=2025-03-03T11:59:59Z":                  {all[1], "run-1"},
			"since=2025-03-04":                            nil,
			"session_id=x1&since=2025-01-01":              {"x1"},
			"session_id=nope":                             nil,
		} {
			for _, limit := range []int{1, 2, 100} {
				if got := sessionIDs(t, allExports(t, e, a.auth(), q, limit)); !cmp.Equal(wantIDs, got) {
					t.Errorf("%s (limit %d): %v, want %v", q, limit, got, wantIDs)
				}
			}
		}
		r := e.do("GET", "/v1/export", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var p exportPage
		r.json(t, &p)
		if p.Count != 3 || p.NextCursor != "" {
			t.Errorf("no parameters: %s", r.body)
		}
		r = e.do("GET", "/v1/export?limit=2", nil, a.auth()...)
		r.json(t, &p)
		if p.Count != 2 || p.NextCursor == "" {
			t.Errorf("first page: %s", r.body)
		}
	})

	t.Run("ErrQuery", func(t *testing.T) {
		for _, q := range []string{"since=yesterday", "until=2025-13-01", "since=2025-03-02&until=2025-03-01", "limit=0", "limit=1001",
			"limit=ten", "cursor=garbage!", "since=1700000000"} {
			want(t, e.do("GET", "/v1/export?"+q, nil, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
		for _, q := range []string{"since=yesterday", "until=3/1/2025", "since=2025-03-02&until=2025-03-01"} {
			want(t, e.do("GET", "/v1/export/download?"+q, nil, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
		want(t, e.do("GET", "/v1/export", nil), http.StatusUnauthorized, "unauthorized")
		want(t, e.do("GET", "/v1/export/download", nil), http.StatusUnauthorized, "unauthorized")
	})

	t.Run("DownloadRoundTrip", func(t *testing.T) {
		for _, q := range []string{"", "since=2025-03-02", "session_id=run-1", "since=2030-01-01"} {
			r := e.do("GET", "/v1/export/download?"+q, nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("%s: Content-Type %q", q, ct)
			}
			var lines []json.RawMessage
			sc := bufio.NewScanner(bytes.NewReader(r.body))
			for sc.Scan() {
				var v map[string]any
				if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
					t.Fatalf("%s: line %q is not a JSON object: %v", q, sc.Text(), err)
				}
				lines = append(lines, json.RawMessage(bytes.Clone(sc.Bytes())))
			}
			if len(r.body) > 0 && !bytes.HasSuffix(r.body, []byte("\n")) {
				t.Errorf("%s: the last line has no newline", q)
			}
			viaQuery := allExports(t, e, a.auth(), q, 2)
			if diff := cmp.Diff(asValues(t, viaQuery), asValues(t, lines)); diff != "" {
				t.Errorf("%s: download differs from GET /v1/export (-query +download):\n%s", q, diff)
			}
		}
	})

	t.Run("Tenancy", func(t *testing.T) {
		r := e.do("GET", "/v1/export", nil, b.auth()...)
		want(t, r, http.StatusOK, "")
		if string(r.body) != `{"records":[],"count":0}`+"\n" {
			t.Errorf("lab-two sees: %s", r.body)
		}
		r = e.do("GET", "/v1/export/download", nil, b.auth()...)
		want(t, r, http.StatusOK, "")
		if len(r.body) != 0 {
			t.Errorf("lab-two downloads: %s", r.body)
		}
		// A cursor from lab-one pages nothing of lab-one's in lab-two.
		r = e.do("GET", "/v1/export?limit=1", nil, a.auth()...)
		var p exportPage
		r.json(t, &p)
		r = e.do("GET", "/v1/export?cursor="+url.QueryEscape(p.NextCursor), nil, b.auth()...)
		want(t, r, http.StatusOK, "")
		if string(r.body) != `{"records":[],"count":0}`+"\n" {
			t.Errorf("lab-two with lab-one's cursor: %s", r.body)
		}
	})
}

// asValues decodes raw JSON records for comparison.
func asValues(t *testing.T, recs []json.RawMessage) []any {
	t.Helper()
	out := []any{}
	for _, r := range recs {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
