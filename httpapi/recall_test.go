package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testenv"
)

// stopLibrary is a small workspace where a question about naps and memory
// has two answering claims and many spans about computer memory that
// share its words.
var stopLibrary = []map[string]any{
	{"doi": "10.1000/nap", "title": "Afternoon naps and memory in older adults",
		"text": "A 30-minute afternoon nap improved episodic memory in adults over 65. Older adults who napped recalled 12% more words than those who stayed awake."},
	{"doi": "10.1000/dram1", "title": "Refresh overhead in DRAM memory",
		"text": "Refreshing DRAM cells consumes up to 20% of memory bandwidth in large servers. Older DRAM modules need more frequent refresh to keep their memory intact. Memory controllers that skip idle rows cut refresh energy by a third."},
	{"doi": "10.1000/dram2", "title": "Row hammer in older DRAM memory modules",
		"text": "Repeated activation of one DRAM row flips bits in adjacent rows of memory. Older memory modules flip bits after fewer activations than recent ones. Error-correcting codes help memory survive most single-bit flips."},
	{"doi": "10.1000/dram3", "title": "Memory bandwidth of GPU workloads",
		"text": "Training large models is limited by memory bandwidth rather than by compute. High-bandwidth memory helps older GPU designs less than expected."},
	{"doi": "10.1000/vitd", "title": "Vitamin D and fractures",
		"text": "Vitamin D supplementation did not reduce fracture risk in adults over 70. Serum vitamin D rose by 40% in the treated group."},
}

// TestRecallStop checks that recall stops when the evidence is in, through
// /v1/recall, /v1/user/recall and /v1/papers/recall, that fill and
// min_tokens ask for more, and that the budget stays a ceiling (issues 43
// and 40).
func TestRecallStop(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	for _, p := range stopLibrary {
		want(t, e.do("POST", "/v1/papers", p, a.auth()...), http.StatusCreated, "")
	}
	recall := func(t *testing.T, path string, body map[string]any) papermem.RecallResult {
		t.Helper()
		r := e.do("POST", path, body, a.auth()...)
		want(t, r, http.StatusOK, "")
		var res papermem.RecallResult
		r.json(t, &res)
		sum := 0
		for _, s := range res.Spans {
			sum += s.Tokens
		}
		if budget, ok := body["budget_tokens"].(int); sum != res.TotalTokens || ok && sum > budget {
			t.Errorf("%s: %d tokens in spans, total_tokens %d, budget %v", path, sum, res.TotalTokens, body["budget_tokens"])
		}
		return res
	}
	const naps = "Do naps help memory in older adults?"

	t.Run("Stop", func(t *testing.T) {
		for _, label := range []string{"Claim", "Any"} {
			res := recall(t, "/v1/recall", map[string]any{"question": naps, "label": label, "budget_tokens": 2000})
			if len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/nap" {
				t.Fatalf("label %s: spans %+v; want the nap paper's first", label, res.Spans)
			}
			for _, s := range res.Spans {
				if s.Provenance.DOI != "10.1000/nap" {
					t.Errorf("label %s: a span about another subject follows the nap claims: %.3f %q", label, s.Score, s.Text)
				}
			}
		}
	})
	t.Run("Fill", func(t *testing.T) {
		stop := recall(t, "/v1/recall", map[string]any{"question": naps, "budget_tokens": 2000})
		fill := recall(t, "/v1/recall", map[string]any{"question": naps, "budget_tokens": 2000, "fill": true})
		if fill.TotalTokens <= stop.TotalTokens || len(fill.Spans) <= len(stop.Spans) {
			t.Errorf("fill: %d spans, %d tokens; without it %d, %d: want more", len(fill.Spans), fill.TotalTokens, len(stop.Spans), stop.TotalTokens)
		}
		for i, s := range stop.Spans {
			if fill.Spans[i].NodeID != s.NodeID || fill.Spans[i].Score != s.Score {
				t.Errorf("span %d: %+v with fill, %+v without; the answer must begin alike", i, fill.Spans[i], s)
			}
		}
		small := recall(t, "/v1/recall", map[string]any{"question": naps, "budget_tokens": 40, "fill": true})
		if small.TotalTokens > 40 {
			t.Errorf("fill at 40 tokens returned %d", small.TotalTokens)
		}
	})
	t.Run("MinTokens", func(t *testing.T) {
		stop := recall(t, "/v1/recall", map[string]any{"question": naps, "budget_tokens": 2000})
		more := recall(t, "/v1/recall", map[string]any{"question": naps, "budget_tokens": 2000, "min_tokens": stop.TotalTokens + 1})
		if more.TotalTokens <= stop.TotalTokens {
			t.Errorf("min_tokens %d: %d tokens; want more than %d", stop.TotalTokens+1, more.TotalTokens, stop.TotalTokens)
		}
	})
	t.Run("User", func(t *testing.T) {
		turns := []string{
			"I took a nap after lunch and remembered the whole shopping list.",
			"My grandmother naps every afternoon and says her memory is sharper for it.",
			"The new laptop has 32 GB of memory.",
			"We bought a memory card for the camera.",
			"My phone is running out of memory again.",
			"The library keeps old memory chips in a drawer.",
		}
		for i, text := range turns {
			want(t, e.do("POST", "/v1/user/remember", map[string]any{"key": fmt.Sprintf("t%d", i), "text": text}, a.auth()...), http.StatusOK, "")
		}
		stop := recall(t, "/v1/user/recall", map[string]any{"question": "Do naps help my grandmother's memory?", "budget_tokens": 2000})
		fill := recall(t, "/v1/user/recall", map[string]any{"question": "Do naps help my grandmother's memory?", "budget_tokens": 2000, "fill": true})
		if len(stop.Spans) == 0 || !strings.Contains(stop.Spans[0].Text, "grandmother") {
			t.Fatalf("user recall %+v; want the grandmother's nap first", stop.Spans)
		}
		if len(fill.Spans) <= len(stop.Spans) {
			t.Errorf("user recall: %d spans with fill, %d without; want more", len(fill.Spans), len(stop.Spans))
		}
	})
	t.Run("Papers", func(t *testing.T) {
		papers := func(fill string) []papermem.Paper {
			q := url.Values{"q": {naps}}
			if fill != "" {
				q.Set("fill", fill)
			}
			r := e.do("GET", "/v1/papers/recall?"+q.Encode(), nil, a.auth()...)
			want(t, r, http.StatusOK, "")
			var ps []papermem.Paper
			r.json(t, &ps)
			return ps
		}
		stop, fill := papers(""), papers("true")
		if len(stop) == 0 || stop[0].DOI != "10.1000/nap" || len(fill) <= len(stop) {
			t.Errorf("papers: %d without fill (first %+v), %d with; want the nap paper first, and more with fill", len(stop), stop, len(fill))
		}
		if got := papers("false"); len(got) != len(stop) {
			t.Errorf("fill=false: %d papers, want %d", len(got), len(stop))
		}
		want(t, e.do("GET", "/v1/papers/recall?q=naps&fill=yes", nil, a.auth()...), http.StatusBadRequest, "invalid_input")
	})
	t.Run("ErrInput", func(t *testing.T) {
		for _, path := range []string{"/v1/recall", "/v1/user/recall"} {
			for _, body := range []map[string]any{
				{"question": "q", "min_tokens": -1},
				{"question": "q", "budget_tokens": 100, "min_tokens": 101},
				{"question": "q", "min_tokens": papermem.MaxBudgetTokens + 1},
				{"question": "q", "min_tokens": "10"},
				{"question": "q", "fill": "yes"},
			} {
				want(t, e.do("POST", path, body, a.auth()...), http.StatusBadRequest, "invalid_input")
			}
		}
	})
}

// TestRecallPapersKeyword checks that GET /v1/papers/recall lists the one
// paper that holds a rare word for that word alone (issue 40).
func TestRecallPapersKeyword(t *testing.T) {
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	words := []string{"zadokamax", "bedokamax", "tedokamax", "vurilonex", "pemsaroth"}
	for i, w := range words {
		want(t, e.do("POST", "/v1/papers", map[string]any{"doi": fmt.Sprintf("10.1000/k%d", i), "title": "A trial of a new treatment",
			"text": "Background: few treatments are known to work here, and earlier trials were small. " +
				"Methods: we randomised participants to placebo or to the new approach and followed them for a year. " +
				"Results: in this study " + w + " reduced inflammation in mice after two weeks of treatment, and the effect held in a second cohort. " +
				"Conclusions: the approach deserves a larger trial with longer follow-up."}, a.auth()...), http.StatusCreated, "")
	}
	for i, w := range words {
		r := e.do("GET", "/v1/papers/recall?q="+w, nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var ps []papermem.Paper
		r.json(t, &ps)
		if len(ps) == 0 || ps[0].DOI != fmt.Sprintf("10.1000/k%d", i) || ps[0].Score < papermem.MinScore {
			t.Errorf("papers for %q: %+v; want 10.1000/k%d first, scored at least MinScore", w, ps, i)
		}
	}
}

// TestRecallQuantityFromPDF uploads the S2ORC paper of the shared test
// documents and asks how many papers S2ORC holds: the sentence that says
// so with a number comes first, before those that share more of the
// question's words and hold no number.
func TestRecallQuantityFromPDF(t *testing.T) {
	path := filepath.Join("..", testdocsDir, "pdf", "acl2020-s2orc-2020.acl-main.447.pdf")
	if _, err := os.Stat(path); err != nil {
		testenv.Need(t, "../shared/testdocs", err)
	}
	e := newEnv(t, httpapi.Config{}, nil)
	a := e.signup("ada@example.org", "lab-one")
	want(t, e.upload(a.auth(), filePart(t, path)), http.StatusCreated, "")
	r := e.do("POST", "/v1/recall", map[string]any{"question": "How many papers does S2ORC contain?", "budget_tokens": 2000}, a.auth()...)
	want(t, r, http.StatusOK, "")
	var res papermem.RecallResult
	r.json(t, &res)
	if len(res.Spans) == 0 || !strings.Contains(res.Spans[0].Text, "81.1M") {
		for i, s := range res.Spans[:min(5, len(res.Spans))] {
			t.Logf("%d. %.3f %s", i+1, s.Score, s.Text)
		}
		t.Fatal("the sentence that gives S2ORC's size is not first")
	}
}
