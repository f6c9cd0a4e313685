package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/fetch"
	"github.com/papermem/papermem/internal/testdb"
)

const paperText = `# Abstract
We show that sleep deprivation impairs memory consolidation in adult mice.

# Results
Mice deprived of sleep for six hours performed 40% worse on the maze task. The effect was mediated by reduced hippocampal replay.

# Limitations
The sample size was small and the results may not generalize to humans.`

func storePaper(t *testing.T, e *env, hdr []string, doi string) {
	t.Helper()
	r := e.do("POST", "/v1/papers", map[string]any{"doi": doi, "title": "Sleep and memory in mice", "text": paperText,
		"authors": []string{"A. Author"}, "year": 2021, "oa": true}, hdr...)
	want(t, r, http.StatusCreated, "")
}

func TestPapers(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/full.md" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Results\nCaffeine improved reaction times by 12% in the trial.")
	}))
	defer origin.Close()
	e := newEnv(t, httpapi.Config{}, &papermem.Options{Fetcher: fetch.New(fetch.Options{AllowPrivate: true})})
	a := e.signup("ada@example.org", "lab-one")

	t.Run("Store", func(t *testing.T) {
		r := e.do("POST", "/v1/papers", map[string]any{"doi": "https://doi.org/10.1000/ABC.1", "title": "Sleep and memory in mice",
			"text": paperText, "authors": []string{"A. Author"}, "year": 2021, "oa": true, "source_url": nil}, a.auth()...)
		want(t, r, http.StatusCreated, "")
		var got map[string]any
		r.json(t, &got)
		rep, _ := got["report"].(map[string]any)
		if got["doi"] != "10.1000/abc.1" || got["title"] != "Sleep and memory in mice" || got["year"] != 2021.0 ||
			got["oa"] != true || got["cached"] != true || rep == nil || rep["nodes_stored"].(float64) < 2 {
			t.Fatalf("stored %s", r.body)
		}
	})
	t.Run("ExistsRawAndEncoded", func(t *testing.T) {
		for path, exists := range map[string]bool{
			"/v1/papers/10.1000/abc.1/exists":     true,
			"/v1/papers/10.1000%2Fabc.1/exists":   true,
			"/v1/papers/10.1000%2fABC.1/exists":   true,
			"/v1/papers/10.1000/other/exists":     false,
			"/v1/papers/doi:10.1000/abc.1/exists": true,
		} {
			r := e.do("GET", path, nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			if got := strings.TrimSpace(string(r.body)); got != fmt.Sprintf(`{"exists":%v}`, exists) {
				t.Errorf("%s: %s", path, got)
			}
		}
		want(t, e.do("GET", "/v1/papers/not-a-doi/exists", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("Recall", func(t *testing.T) {
		r := e.do("GET", "/v1/papers/recall?q=sleep+memory+mice&limit=5", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var ps []papermem.Paper
		r.json(t, &ps)
		if len(ps) != 1 || ps[0].DOI != "10.1000/abc.1" || ps[0].Score <= 0 || !ps[0].Cached {
			t.Fatalf("papers %s", r.body)
		}
		for _, q := range []string{"", "?q=", "?q=%20", "?q=x&limit=0", "?q=x&limit=101", "?q=x&limit=ten"} {
			want(t, e.do("GET", "/v1/papers/recall"+q, nil, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
	})
	t.Run("ErrStore", func(t *testing.T) {
		for _, body := range []any{
			map[string]any{"text": ""},
			map[string]any{"doi": "not a doi"},
			map[string]any{"title": "T", "year": "2021"},
			map[string]any{"title": "T", "authors": "A. Author"},
			map[string]any{"title": "T", "year": 20210},
			map[string]any{"title": "T", "oa": "yes"},
			`{"title": "T",}`,
			`{"title": "T"} {"title": "U"}`,
		} {
			want(t, e.do("POST", "/v1/papers", body, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
	})
	t.Run("Batch", func(t *testing.T) {
		r := e.do("POST", "/v1/papers/batch", map[string]any{"papers": []any{
			map[string]any{"doi": "10.2000/b1", "title": "One", "text": "We found that exercise improves mood."},
			map[string]any{"doi": "bogus"},
			map[string]any{"title": "Untitled preprint without a DOI"},
		}}, a.auth()...)
		want(t, r, http.StatusOK, "")
		var rep struct {
			Ingested, Failed int
			Errors           []struct {
				Index int
				Error string
			}
			DOIs        []string `json:"dois"`
			NodesStored int      `json:"nodes_stored"`
		}
		r.json(t, &rep)
		if rep.Ingested != 2 || rep.Failed != 1 || len(rep.Errors) != 1 || rep.Errors[0].Index != 1 || rep.Errors[0].Error == "" ||
			len(rep.DOIs) != 2 || rep.DOIs[0] != "10.2000/b1" || !strings.HasPrefix(rep.DOIs[1], "local:") || rep.NodesStored == 0 {
			t.Fatalf("batch %s", r.body)
		}
		for _, body := range []any{map[string]any{}, map[string]any{"papers": []any{}}, map[string]any{"papers": "x"},
			map[string]any{"papers": make([]map[string]any, 1001)}} {
			want(t, e.do("POST", "/v1/papers/batch", body, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
	})
	t.Run("FetchWarm", func(t *testing.T) {
		r := e.do("POST", "/v1/papers/10.1000%2Fabc.1/fetch", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var f papermem.FetchResult
		r.json(t, &f)
		if !f.Warm || f.Source != "memory" || f.Bytes == 0 || f.BytesSaved != f.Bytes || f.DOI != "10.1000/abc.1" {
			t.Fatalf("fetch %s", r.body)
		}
	})
	t.Run("FetchOrigin", func(t *testing.T) {
		want(t, e.do("POST", "/v1/papers", map[string]any{"doi": "10.3000/c", "title": "Caffeine trial", "source_url": origin.URL + "/full.md"}, a.auth()...), http.StatusCreated, "")
		r := e.do("POST", "/v1/papers/10.3000/c/fetch", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var f papermem.FetchResult
		r.json(t, &f)
		if f.Warm || f.Source != "origin" || f.BytesSaved != 0 || f.Bytes == 0 {
			t.Fatalf("fetch %s", r.body)
		}
		r = e.do("POST", "/v1/papers/10.3000/c/fetch", nil, a.auth()...)
		r.json(t, &f)
		if !f.Warm || f.Source != "memory" {
			t.Fatalf("second fetch %s", r.body)
		}
	})
	t.Run("ErrFetch", func(t *testing.T) {
		want(t, e.do("POST", "/v1/papers/10.9999/unknown/fetch", nil, a.auth()...), http.StatusNotFound, "not_found")
		want(t, e.do("POST", "/v1/papers", map[string]any{"doi": "10.3000/gone", "title": "Gone", "source_url": origin.URL + "/missing"}, a.auth()...), http.StatusCreated, "")
		r := e.do("POST", "/v1/papers/10.3000/gone/fetch", nil, a.auth()...)
		want(t, r, http.StatusBadGateway, "upstream_failed")
		if strings.Contains(string(r.body), "127.0.0.1") {
			t.Fatalf("upstream error leaks the origin: %s", r.body)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		r := e.do("DELETE", "/v1/papers/10.1000/abc.1", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		if strings.TrimSpace(string(r.body)) != `{"deleted":"10.1000/abc.1"}` {
			t.Fatalf("delete %s", r.body)
		}
		r = e.do("GET", "/v1/papers/10.1000/abc.1/exists", nil, a.auth()...)
		if strings.TrimSpace(string(r.body)) != `{"exists":false}` {
			t.Fatalf("exists after delete %s", r.body)
		}
		want(t, e.do("DELETE", "/v1/papers/10.1000/abc.1", nil, a.auth()...), http.StatusNotFound, "not_found")
	})
}

func TestFetchRefusesPrivateOrigin(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret intranet page") }))
	defer origin.Close()
	e := newEnv(t, httpapi.Config{}, &papermem.Options{Fetcher: fetch.New(fetch.Options{})})
	a := e.signup("ada@example.org", "lab-one")
	want(t, e.do("POST", "/v1/papers", map[string]any{"doi": "10.4000/p", "title": "P", "source_url": origin.URL}, a.auth()...), http.StatusCreated, "")
	want(t, e.do("POST", "/v1/papers/10.4000/p/fetch", nil, a.auth()...), http.StatusBadGateway, "upstream_failed")
	r := e.do("GET", "/v1/papers/recall?q=intranet", nil, a.auth()...)
	if strings.Contains(string(r.body), "10.4000/p\",\"title\":\"P\",\"authors\":[],\"oa\":false,\"cached\":true") {
		t.Fatalf("refused origin was ingested: %s", r.body)
	}
}

func TestRecall(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	storePaper(t, e, a.auth(), "10.1000/sleep")

	t.Run("OK", func(t *testing.T) {
		r := e.do("POST", "/v1/recall", map[string]any{"question": "How does sleep deprivation affect memory?",
			"keywords": []string{"hippocampal"}, "label": "Any", "budget_tokens": 60, "domain": nil, "section_types": nil,
			"scope_signals": []string{"mechanisms"}, "unknown_field": true}, a.auth()...)
		want(t, r, http.StatusOK, "")
		var res papermem.RecallResult
		r.json(t, &res)
		sum := 0
		for _, s := range res.Spans {
			sum += s.Tokens
			if s.Provenance.Kind != "paper" || s.Provenance.DOI != "10.1000/sleep" {
				t.Errorf("provenance %+v", s.Provenance)
			}
		}
		if len(res.Spans) == 0 || sum != res.TotalTokens || res.TotalTokens > 60 {
			t.Fatalf("recall %s", r.body)
		}
	})
	t.Run("Defaults", func(t *testing.T) {
		r := e.do("POST", "/v1/recall", map[string]any{"question": "sample size"}, a.auth()...)
		want(t, r, http.StatusOK, "")
		var res papermem.RecallResult
		r.json(t, &res)
		for _, s := range res.Spans {
			if s.Label != papermem.LabelClaim {
				t.Errorf("default label gave %s", s.Label)
			}
		}
	})
	t.Run("DOIs", func(t *testing.T) {
		r := e.do("POST", "/v1/papers", map[string]any{"doi": "10.1000/caffeine", "title": "Caffeine and reaction times",
			"text": "Caffeine improved reaction times by 12% in adults who slept less than six hours."}, a.auth()...)
		want(t, r, http.StatusCreated, "")
		recall := func(t *testing.T, hdr []string, question string, dois ...string) resp {
			t.Helper()
			r := e.do("POST", "/v1/recall", map[string]any{"question": question, "label": "Any", "dois": dois}, hdr...)
			want(t, r, http.StatusOK, "")
			return r
		}
		const sleepQuestion = "How does sleep deprivation affect memory in mice?"
		for _, tt := range []struct {
			question string
			dois     []string
			want     string
		}{
			{"Does caffeine shorten reaction times?", []string{"10.1000/caffeine"}, "10.1000/caffeine"},
			{sleepQuestion, []string{"https://doi.org/10.1000/SLEEP", "10.1000/sleep", "10.9999/absent"}, "10.1000/sleep"},
		} {
			var res papermem.RecallResult
			recall(t, a.auth(), tt.question, tt.dois...).json(t, &res)
			if len(res.Spans) == 0 {
				t.Errorf("dois %q: no spans", tt.dois)
			}
			for _, s := range res.Spans {
				if s.Provenance.DOI != tt.want {
					t.Errorf("dois %q: span of %s: %q", tt.dois, s.Provenance.DOI, s.Text)
				}
			}
		}
		// A DOI this workspace does not hold matches nothing, though
		// another workspace holds it.
		b := e.signup("bo@example.org", "lab-two")
		for _, r := range []resp{recall(t, a.auth(), sleepQuestion, "10.9999/absent"), recall(t, b.auth(), sleepQuestion, "10.1000/sleep")} {
			if got := strings.TrimSpace(string(r.body)); got != `{"spans":[],"total_tokens":0}` {
				t.Errorf("recall of absent DOIs: %s", got)
			}
		}
	})
	t.Run("ErrInput", func(t *testing.T) {
		for _, body := range []any{
			map[string]any{},
			map[string]any{"question": ""},
			map[string]any{"question": "   "},
			map[string]any{"question": 5},
			map[string]any{"question": "q", "keywords": "sleep"},
			map[string]any{"question": "q", "budget_tokens": 0},
			map[string]any{"question": "q", "budget_tokens": -1},
			map[string]any{"question": "q", "budget_tokens": 200001},
			map[string]any{"question": "q", "budget_tokens": 1.5},
			map[string]any{"question": "q", "budget_tokens": "100"},
			map[string]any{"question": "q", "label": "Memory"},
			map[string]any{"question": "q", "section_types": []string{"chapter"}},
			map[string]any{"question": "q", "scope_signals": []string{"vibes"}},
			map[string]any{"question": "q", "dois": "10.1000/sleep"},
			map[string]any{"question": "q", "dois": []any{5}},
			map[string]any{"question": "q", "dois": []any{nil}},
			map[string]any{"question": "q", "dois": []string{"10.1000/sleep", "not a doi"}},
			map[string]any{"question": "q", "dois": slices.Repeat([]string{"10.1000/sleep"}, papermem.MaxRecallDOIs+1)},
			`{"question": "q"`,
			`not json`,
			`"question"`,
			`null`,
		} {
			want(t, e.do("POST", "/v1/recall", body, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
	})
	t.Run("ErrTooLarge", func(t *testing.T) {
		small := newEnv(t, httpapi.Config{MaxBodyBytes: 64, DevAuth: true}, nil)
		r := small.do("POST", "/v1/recall", map[string]any{"question": strings.Repeat("q", 100)}, "X-Dev-Org-Id", "lab-one")
		want(t, r, http.StatusRequestEntityTooLarge, "payload_too_large")
	})
}

func TestAnalysis(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	r := e.do("POST", "/v1/analysis", map[string]any{"doi": "10.1000/Sleep", "markdown": "# Review\nThe study shows a strong effect of sleep on memory.",
		"core_claim": "Sleep loss impairs memory.", "scorecard": "B+"}, a.auth()...)
	want(t, r, http.StatusCreated, "")
	var stored map[string]any
	r.json(t, &stored)
	if stored["doi"] != "10.1000/sleep" || stored["stored"] != true || stored["updated_at"] == "" {
		t.Fatalf("stored %s", r.body)
	}
	r = e.do("GET", "/v1/analysis/10.1000%2Fsleep", nil, a.auth()...)
	want(t, r, http.StatusOK, "")
	var got papermem.Analysis
	r.json(t, &got)
	if got.CoreClaim != "Sleep loss impairs memory." || got.Scorecard != "B+" || !strings.Contains(got.Markdown, "strong effect") {
		t.Fatalf("analysis %s", r.body)
	}
	want(t, e.do("GET", "/v1/analysis/10.1000/sleep", nil, b.auth()...), http.StatusNotFound, "not_found")
	want(t, e.do("GET", "/v1/analysis/10.1000/none", nil, a.auth()...), http.StatusNotFound, "not_found")
	for _, body := range []any{
		map[string]any{"doi": "10.1000/x"},
		map[string]any{"markdown": "m"},
		map[string]any{"doi": "10.1000/x", "markdown": "m", "claims_extracted": "3"},
	} {
		want(t, e.do("POST", "/v1/analysis", body, a.auth()...), http.StatusBadRequest, "invalid_input")
	}
}

func TestUserMemory(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	key := e.apiKey(a.auth()...)

	r := e.do("POST", "/v1/user/remember", map[string]any{"text": "My favourite assay is ELISA.", "key": "assay",
		"tags": []string{"lab"}, "domain": "biology", "metadata": map[string]any{"source": "chat"}}, a.auth()...)
	want(t, r, http.StatusOK, "")
	var rem papermem.Remembered
	r.json(t, &rem)
	if rem.Key != "assay" || rem.NodeID == 0 {
		t.Fatalf("remember %s", r.body)
	}

	t.Run("RecallOwn", func(t *testing.T) {
		r := e.do("POST", "/v1/user/recall", map[string]any{"question": "Which assay do I like?"}, a.auth()...)
		want(t, r, http.StatusOK, "")
		if !strings.Contains(string(r.body), "ELISA") {
			t.Fatalf("recall %s", r.body)
		}
		// The same user through an API key and X-User-Id.
		r = e.do("POST", "/v1/user/recall", map[string]any{"question": "Which assay do I like?"}, append(bearer(key), "X-User-Id", a.userID)...)
		want(t, r, http.StatusOK, "")
		if !strings.Contains(string(r.body), "ELISA") {
			t.Fatalf("recall with key %s", r.body)
		}
	})
	t.Run("Isolation", func(t *testing.T) {
		r := e.do("POST", "/v1/user/recall", map[string]any{"question": "Which assay do I like?"}, b.auth()...)
		want(t, r, http.StatusOK, "")
		if strings.Contains(string(r.body), "ELISA") {
			t.Fatalf("another user recalls it: %s", r.body)
		}
		r = e.do("POST", "/v1/recall", map[string]any{"question": "favourite assay ELISA", "label": "Any"}, a.auth()...)
		if strings.Contains(string(r.body), "ELISA") {
			t.Fatalf("workspace recall shows a user memory: %s", r.body)
		}
		want(t, e.do("DELETE", "/v1/user/memory/assay", nil, b.auth()...), http.StatusNotFound, "not_found")
	})
	t.Run("ErrMissingUser", func(t *testing.T) {
		want(t, e.do("POST", "/v1/user/remember", map[string]any{"text": "x"}, bearer(key)...), http.StatusBadRequest, "missing_user_id")
		want(t, e.do("POST", "/v1/user/recall", map[string]any{"question": "x"}, bearer(key)...), http.StatusBadRequest, "missing_user_id")
		want(t, e.do("DELETE", "/v1/user/memory/assay", nil, bearer(key)...), http.StatusBadRequest, "missing_user_id")
	})
	t.Run("ErrForbiddenUser", func(t *testing.T) {
		// A session token naming another user.
		want(t, e.do("POST", "/v1/user/recall", map[string]any{"question": "x"}, append(a.auth(), "X-User-Id", b.userID)...), http.StatusForbidden, "forbidden")
		// An API key naming a user of another workspace, or nobody.
		want(t, e.do("POST", "/v1/user/recall", map[string]any{"question": "x"}, append(bearer(key), "X-User-Id", b.userID)...), http.StatusForbidden, "forbidden")
		want(t, e.do("POST", "/v1/user/recall", map[string]any{"question": "x"}, append(bearer(key), "X-User-Id", "usr_nobody")...), http.StatusForbidden, "forbidden")
	})
	t.Run("ErrInput", func(t *testing.T) {
		for _, body := range []any{map[string]any{}, map[string]any{"text": ""}, map[string]any{"text": "x", "metadata": []int{1}},
			map[string]any{"text": "x", "occurred_at": "yesterday"}, map[string]any{"text": "x", "tags": "t"}} {
			want(t, e.do("POST", "/v1/user/remember", body, a.auth()...), http.StatusBadRequest, "invalid_input")
		}
		want(t, e.do("POST", "/v1/user/recall", map[string]any{"question": "x", "budget_tokens": 0}, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("Forget", func(t *testing.T) {
		r := e.do("DELETE", "/v1/user/memory/assay", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		if strings.TrimSpace(string(r.body)) != `{"deleted":"assay"}` {
			t.Fatalf("forget %s", r.body)
		}
		want(t, e.do("DELETE", "/v1/user/memory/assay", nil, a.auth()...), http.StatusNotFound, "not_found")
	})
}

func TestUsersAndWorkspaces(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	e.signup("bob@example.org", "lab-two")
	key := e.apiKey(a.auth()...)
	want(t, e.do("POST", "/v1/user/remember", map[string]any{"text": "note", "domain": "physics"}, a.auth()...), http.StatusOK, "")

	t.Run("Users", func(t *testing.T) {
		r := e.do("GET", "/v1/users", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var res struct {
			Users []struct {
				UserID, Email, Role string
				Domains             []string
				Sessions            int
				FirstSeen           string `json:"first_seen"`
				LastSeen            string `json:"last_seen"`
			}
			Count   int
			Current *string
		}
		r.json(t, &res)
		if res.Count != 1 || len(res.Users) != 1 || res.Users[0].Email != "ada@example.org" || res.Current == nil || *res.Current != a.userID ||
			!cmp.Equal(res.Users[0].Domains, []string{"physics"}) || res.Users[0].FirstSeen == "" || res.Users[0].LastSeen == "" {
			t.Fatalf("users %s", r.body)
		}
		r = e.do("GET", "/v1/users", nil, bearer(key)...)
		r.json(t, &res)
		if res.Current != nil || res.Count != 1 {
			t.Fatalf("users with a key %s", r.body)
		}
	})
	t.Run("CreateAndList", func(t *testing.T) {
		r := e.do("POST", "/v1/workspaces", map[string]any{"org_id": "side-project", "name": "Side"}, a.auth()...)
		want(t, r, http.StatusCreated, "")
		var ws struct {
			OrgID  string `json:"org_id"`
			Name   string
			Plan   string
			APIKey struct {
				KeyID string `json:"key_id"`
				Key   string
			} `json:"api_key"`
		}
		r.json(t, &ws)
		e.keys = append(e.keys, ws.APIKey.Key)
		if ws.OrgID != "side-project" || ws.Plan != "Starter Tier" || ws.APIKey.KeyID == "" || !strings.HasPrefix(ws.APIKey.Key, "pm_") {
			t.Fatalf("created %s", r.body)
		}
		// The new key works in the new workspace.
		r = e.do("GET", "/v1/workspaces", nil, bearer(ws.APIKey.Key)...)
		want(t, r, http.StatusOK, "")
		var list struct {
			Workspaces []struct {
				OrgID string `json:"org_id"`
			}
			Current string
		}
		r.json(t, &list)
		if list.Current != "side-project" || len(list.Workspaces) != 1 {
			t.Fatalf("new workspace's view %s", r.body)
		}
		r = e.do("GET", "/v1/workspaces", nil, a.auth()...)
		r.json(t, &list)
		if list.Current != "lab-one" || len(list.Workspaces) != 2 || list.Workspaces[0].OrgID != "lab-one" || list.Workspaces[1].OrgID != "side-project" {
			t.Fatalf("creator's view %s", r.body)
		}
	})
	t.Run("ErrCreate", func(t *testing.T) {
		for _, id := range []any{"side-project", "lab-two", "x", "Upper", "-lead", "with space", ""} {
			want(t, e.do("POST", "/v1/workspaces", map[string]any{"org_id": id}, a.auth()...), http.StatusBadRequest, "invalid_workspace")
		}
		want(t, e.do("POST", "/v1/workspaces", map[string]any{"org_id": 12}, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
}

func TestTenancy(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")
	storePaper(t, e, a.auth(), "10.1000/private")
	want(t, e.do("POST", "/v1/analysis", map[string]any{"doi": "10.1000/private", "markdown": "Hidden analysis of sleep."}, a.auth()...), http.StatusCreated, "")

	for name, check := range map[string]func(t *testing.T){
		"Exists": func(t *testing.T) {
			r := e.do("GET", "/v1/papers/10.1000/private/exists", nil, b.auth()...)
			if strings.TrimSpace(string(r.body)) != `{"exists":false}` {
				t.Fatal(string(r.body))
			}
		},
		"Recall": func(t *testing.T) {
			r := e.do("POST", "/v1/recall", map[string]any{"question": "sleep deprivation memory", "label": "Any"}, b.auth()...)
			want(t, r, http.StatusOK, "")
			if strings.TrimSpace(string(r.body)) != `{"spans":[],"total_tokens":0}` {
				t.Fatal(string(r.body))
			}
		},
		"RecallPapers": func(t *testing.T) {
			r := e.do("GET", "/v1/papers/recall?q=sleep", nil, b.auth()...)
			if strings.TrimSpace(string(r.body)) != `[]` {
				t.Fatal(string(r.body))
			}
		},
		"Analysis": func(t *testing.T) {
			want(t, e.do("GET", "/v1/analysis/10.1000/private", nil, b.auth()...), http.StatusNotFound, "not_found")
		},
		"Fetch": func(t *testing.T) {
			want(t, e.do("POST", "/v1/papers/10.1000/private/fetch", nil, b.auth()...), http.StatusNotFound, "not_found")
		},
		"Delete": func(t *testing.T) {
			want(t, e.do("DELETE", "/v1/papers/10.1000/private", nil, b.auth()...), http.StatusNotFound, "not_found")
		},
		"Users": func(t *testing.T) {
			r := e.do("GET", "/v1/users", nil, b.auth()...)
			if strings.Contains(string(r.body), "ada@example.org") {
				t.Fatal(string(r.body))
			}
		},
	} {
		t.Run(name, check)
	}
	r := e.do("GET", "/v1/papers/10.1000/private/exists", nil, a.auth()...)
	if strings.TrimSpace(string(r.body)) != `{"exists":true}` {
		t.Fatalf("the owner lost the paper: %s", r.body)
	}
}

func TestDevAuth(t *testing.T) {
	e := newEnv(t, httpapi.Config{DevAuth: true}, nil)
	dev := []string{"X-Dev-Org-Id", "dev-lab", "X-Dev-User-Id", "dev-user"}
	want(t, e.do("POST", "/v1/user/remember", map[string]any{"text": "dev note"}, dev...), http.StatusOK, "")
	r := e.do("POST", "/v1/user/recall", map[string]any{"question": "dev note"}, dev...)
	if !strings.Contains(string(r.body), "dev note") {
		t.Fatalf("dev recall %s", r.body)
	}
	storePaper(t, e, dev[:2], "10.5000/dev")
	// Not on routes other than memory ones.
	want(t, e.do("GET", "/v1/users", nil, dev...), http.StatusUnauthorized, "unauthorized")
	want(t, e.do("GET", "/v1/workspaces", nil, dev...), http.StatusUnauthorized, "unauthorized")
	want(t, e.do("POST", "/v1/recall", map[string]any{"question": "q"}, "X-Dev-Org-Id", "Bad Org"), http.StatusBadRequest, "invalid_workspace")
	// A bearer credential wins over developer headers.
	want(t, e.do("POST", "/v1/recall", map[string]any{"question": "q"}, append(bearer("garbage"), dev...)...), http.StatusUnauthorized, "unauthorized")
}

func TestRoutingErrors(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	want(t, e.do("GET", "/v1/nothing", nil), http.StatusNotFound, "not_found")
	want(t, e.do("PUT", "/v1/recall", nil), http.StatusMethodNotAllowed, "method_not_allowed")
}

func TestInternalErrorsLeakNothing(t *testing.T) {
	e := newEnv(t, httpapi.Config{DevAuth: true}, nil)
	e.m.Close()
	r := e.do("POST", "/v1/recall", map[string]any{"question": "q"}, "X-Dev-Org-Id", "lab-one")
	want(t, r, http.StatusInternalServerError, "internal")
	if !strings.Contains(string(r.body), `"Internal error."`) || strings.Contains(string(r.body), "sql") {
		t.Fatalf("500 body %s", r.body)
	}
	if !strings.Contains(e.log.String(), "request failed") {
		t.Fatalf("the internal error was not logged: %s", e.log.String())
	}
}

// TestRootBrowser checks that GET / sends a browser to the dashboard and
// answers any other client with the JSON.
func TestRootBrowser(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		accept string
		html   bool
	}{
		{"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", true},                                                   // Firefox
		{"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7", true}, // Chromium
		{"text/html", true},
		{"", false},
		{"*/*", false}, // curl
		{"application/json", false},
		{"application/json, text/html;q=0.9", false},
		{"text/html, application/json", false},
		{"text/html;q=0", false},
	} {
		req, _ := http.NewRequest("GET", e.srv.URL+"/", nil)
		if c.accept != "" {
			req.Header.Set("Accept", c.accept)
		}
		res, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.Header.Get("Vary") != "Accept" {
			t.Errorf("%q: Vary %q", c.accept, res.Header.Get("Vary"))
		}
		if c.html != (res.StatusCode == http.StatusFound && res.Header.Get("Location") == "/dashboard/") ||
			!c.html && (res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"service":"papermem"`)) {
			t.Errorf("%q: %d, Location %q, %s", c.accept, res.StatusCode, res.Header.Get("Location"), body)
		}
	}
	// Followed, the redirect lands on the dashboard's page.
	req, _ := http.NewRequest("GET", e.srv.URL+"/", nil)
	req.Header.Set("Accept", "text/html")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || res.Request.URL.Path == "/" {
		t.Errorf("following / from a browser: %d %s at %s", res.StatusCode, res.Header.Get("Content-Type"), res.Request.URL)
	}
}

func TestPublicRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	for path, body := range map[string]string{
		"/":          `{"service":"papermem","api_version":"v1","dashboard":"/dashboard/"}`,
		"/v1/health": `{"status":"ok","enabled":true,"storage_mode":"` + testdb.Engine() + `","vector_enabled":true}`,
	} {
		r := e.do("GET", path, nil)
		want(t, r, http.StatusOK, "")
		if strings.TrimSpace(string(r.body)) != body {
			t.Errorf("%s: %s", path, r.body)
		}
	}
	r := e.do("GET", "/v1/status", nil)
	want(t, r, http.StatusOK, "")
	if !strings.Contains(string(r.body), `"status":"ok"`) || !strings.Contains(string(r.body), `"database":"ok"`) {
		t.Fatalf("status %s", r.body)
	}
	r = e.do("GET", "/v1/openapi.json", nil)
	want(t, r, http.StatusOK, "")
	if !strings.Contains(string(r.body), `"openapi":"3.0.3"`) {
		t.Fatalf("openapi %.200s", r.body)
	}
	if !strings.Contains(e.log.String(), "path=/v1/health status=200") {
		t.Fatalf("request log lacks a line: %s", e.log.String())
	}
}
