package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testutil"
)

// TestRunInProcess runs the agent against its own in-process server and
// checks the substance of the transcript.
func TestRunInProcess(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	transcript := out.String()
	t.Log(transcript)

	t.Run("FirstAnswerCitesTheStimulationPaper", func(t *testing.T) {
		first := citations(transcript, "Q1")
		if len(first) == 0 {
			t.Fatal("Q1 has no citations")
		}
		if !strings.Contains(first[0], doiCLAS) || !strings.Contains(first[0], "18% higher after stimulation") {
			t.Errorf("Q1 [1] = %q, want the closed-loop stimulation result (%s)", first[0], doiCLAS)
		}
		if !regexp.MustCompile(`, Results, chars \d+–\d+$`).MatchString(first[0]) {
			t.Errorf("Q1 [1] = %q, want section and character offsets", first[0])
		}
	})

	t.Run("BudgetHeld", func(t *testing.T) {
		budgets := regexp.MustCompile(`(\d+) spans, total_tokens (\d+) ≤ budget_tokens (\d+)`).FindAllStringSubmatch(transcript, -1)
		if len(budgets) != 3 {
			t.Fatalf("%d budget lines, want one for each of Q1, Q2, Q3", len(budgets))
		}
		for i, m := range budgets {
			spans, total, limit := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
			if spans == 0 || total == 0 || total > limit || limit != budget {
				t.Errorf("Q%d: %d spans, total_tokens %d, budget %d", i+1, spans, total, limit)
			}
			if got := len(citations(transcript, "Q"+strconv.Itoa(i+1))); got != spans {
				t.Errorf("Q%d prints %d citations for %d spans", i+1, got, spans)
			}
		}
	})

	t.Run("AllKindsCited", func(t *testing.T) {
		q2 := strings.Join(citations(transcript, "Q2"), "\n")
		for _, want := range []string{"— analysis of " + doiReplication, "(" + notesFile + ")", doiReplication + ", Results"} {
			if !strings.Contains(q2, want) {
				t.Errorf("Q2 cites no %q:\n%s", want, q2)
			}
		}
	})

	t.Run("PreferenceRecalledLater", func(t *testing.T) {
		later := transcript[strings.Index(transcript, "later, session "+followUpSession):]
		want := "recalled preference [reporting-style]: " + preference.Text
		if !strings.Contains(later, want) {
			t.Errorf("the later session does not recall the preference; want %q", want)
		}
	})

	t.Run("SessionRecordAndGraph", func(t *testing.T) {
		for _, want := range []string{
			"record " + firstSession + " of user usr_",
			": 7 steps,",
			"step 4: research-agent papermem.recall → Q1: nodes ",
			"session " + followUpSession + " linked to ",
			"related edges (Jaccard ≥ 0.2): 1 created",
		} {
			if !strings.Contains(transcript, want) {
				t.Errorf("transcript lacks %q", want)
			}
		}
		g := regexp.MustCompile(`graph around session:` + firstSession + ` \(2 hops\): (\d+) nodes \((\d+) session, (\d+) paper, (\d+) claim\), (\d+) edges \((\d+) uses, (\d+) cites, (\d+) related\)`).
			FindStringSubmatch(transcript)
		if g == nil {
			t.Fatal("no graph line")
		}
		n := make([]int, len(g)-1)
		for i, s := range g[1:] {
			n[i] = atoi(t, s)
		}
		if n[1] != 2 || n[2] == 0 || n[3] == 0 || n[7] != 1 {
			t.Errorf("graph: %d sessions, %d papers, %d claims, %d related; want both sessions, papers, claims, one related edge", n[1], n[2], n[3], n[7])
		}
		if n[0] != n[1]+n[2]+n[3] || n[4] != n[5]+n[6]+n[7] {
			t.Errorf("graph counts do not add up: %v", n)
		}
	})

	t.Run("NoSecretPrinted", func(t *testing.T) {
		if k := regexp.MustCompile(`pm_[A-Za-z0-9_-]{20,}`).FindString(transcript); k != "" {
			t.Errorf("the transcript shows an API key value %q", k)
		}
	})
}

// TestRunWithKey runs the agent with -base and -key against a server the
// test owns, then checks what it wrote through the library.
func TestRunWithKey(t *testing.T) {
	ctx := context.Background()
	m := testutil.Open(t, nil)
	srv := httptest.NewServer(httpapi.New(testutil.Hosted(t, m, nil), httpapi.Config{}))
	defer srv.Close()

	var signup struct {
		AccessToken string `json:"access_token"`
		User        struct {
			UserID string `json:"user_id"`
			OrgID  string `json:"org_id"`
		} `json:"user"`
	}
	post(t, srv.URL+"/v1/auth/signup", "", `{"email":"owner@example.org","password":"correct horse"}`, &signup)
	var key struct {
		Key string `json:"key"`
	}
	post(t, srv.URL+"/v1/account/api-keys", signup.AccessToken, `{"name":"ci"}`, &key)

	var out bytes.Buffer
	if err := run(ctx, []string{"-base", srv.URL, "-key", key.Key}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if want := "using the given API key with X-User-Id: " + signup.User.UserID; !strings.Contains(out.String(), want) {
		t.Errorf("transcript lacks %q:\n%s", want, out.String())
	}
	if strings.Contains(out.String(), "/v1/auth/signup") {
		t.Error("the agent signed up although it was given a key")
	}

	page, err := m.Workspace(signup.User.OrgID).Exports(ctx, papermem.ExportQuery{SessionID: firstSession})
	if err != nil {
		t.Fatal(err)
	}
	if page.Count != 1 {
		t.Fatalf("%d records of %s, want 1", page.Count, firstSession)
	}
	rec := page.Records[0]
	var tools []string
	for _, s := range rec.Steps {
		tools = append(tools, s.Tool)
	}
	wantTools := []string{"papermem.store_papers", "papermem.ingest", "papermem.store_analysis",
		"papermem.recall", "papermem.recall", "papermem.remember", "papermem.remember"}
	if rec.UserID != signup.User.UserID || !slices.Equal(tools, wantTools) || !slices.Contains(rec.RecalledPapers, doiCLAS) {
		t.Errorf("record: user %q, tools %v, papers %v; want user %q, tools %v, papers with %s",
			rec.UserID, tools, rec.RecalledPapers, signup.User.UserID, wantTools, doiCLAS)
	}
}

// TestRunRefusesBadFlags checks the flag combinations run refuses.
func TestRunRefusesBadFlags(t *testing.T) {
	for name, args := range map[string][]string{
		"KeyWithoutBase": {"-key", "pm_x"},
		"UserWithoutKey": {"-base", "http://127.0.0.1:1", "-user", "u"},
		"ExtraArgument":  {"now"},
		"UnknownFlag":    {"-verbose"},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(context.Background(), args, &out); err == nil {
				t.Errorf("run(%q) succeeded:\n%s", args, out.String())
			}
		})
	}
}

// citation is one line of an answer skeleton.
var citation = regexp.MustCompile(`^    \[\d+\] (.*)$`)

// citations returns the text after "[i] " of each citation under the
// question name ("Q1") in the transcript.
func citations(transcript, name string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(transcript, "\n") {
		switch {
		case strings.HasPrefix(line, "  "+name+": "):
			in = true
		case in && (strings.HasPrefix(line, "  Q") || !strings.HasPrefix(line, "  ")):
			return out
		case in:
			if m := citation.FindStringSubmatch(line); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// post sends a JSON body with an optional bearer token and decodes the
// 2xx answer into out.
func post(t *testing.T, url, token, body string, out any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
