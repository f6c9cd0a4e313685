package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/client"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/buildinfo"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/mcpserver"
)

// overTransports runs f over the in-process transport with local files
// (as papermem mcp over stdio) and over /mcp of a running server.
func overTransports(t *testing.T, f func(t *testing.T, cs *mcp.ClientSession)) {
	m, _ := open(t)
	t.Run("InProcess", func(t *testing.T) {
		f(t, connect(t, mcpserver.New(mcpserver.Local(m.Workspace("lab-ada"), "ada"), &mcpserver.Options{Files: true, Logger: quiet})))
	})
	t.Run("HTTP", func(t *testing.T) {
		srv := httptest.NewServer(httpapi.New(testutil.Hosted(t, m, nil), httpapi.Config{Logger: quiet}))
		t.Cleanup(srv.Close)
		tok, err := client.New(srv.URL, nil).Signup(context.Background(), api.SignupRequest{Email: "ada@example.org", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		f(t, overHTTP(t, srv, map[string]string{"Authorization": "Bearer " + tok.AccessToken}))
	})
}

// tools lists the server's tools by name, each input schema decoded.
func tools(t *testing.T, cs *mcp.ClientSession) (map[string]*mcp.Tool, map[string]*jsonschema.Schema) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName, schemas := map[string]*mcp.Tool{}, map[string]*jsonschema.Schema{}
	for _, tl := range res.Tools {
		b, err := json.Marshal(tl.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: input schema %s: %v", tl.Name, b, err)
		}
		byName[tl.Name], schemas[tl.Name] = tl, &s
	}
	return byName, schemas
}

func TestToolAnnotations(t *testing.T) {
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	var (
		reads    = hints{readOnly: true, idempotent: true}
		replaces = hints{destructive: true, idempotent: true}
		writes   = hints{destructive: true}
	)
	want := map[string]hints{
		"recall": reads, "recall_papers": reads, "paper_exists": reads, "get_analysis": reads, "recall_user": reads, "graph": reads, "cite": reads,
		"store_paper": replaces, "store_analysis": replaces, "remember": replaces, "forget": replaces,
		"ingest_file": writes, "export_session": writes,
		"link_session": {idempotent: true},
		"fetch_paper":  {idempotent: true, openWorld: true},
		// #42: read-only, though a paper's links may be read from its origins first.
		"references": {readOnly: true, idempotent: true, openWorld: true}, "citations": {readOnly: true, idempotent: true, openWorld: true},
		"related_papers": {readOnly: true, idempotent: true, openWorld: true}, "citation_gaps": reads,
		"get_paper": reads, "list_papers": reads, "import_status": reads, "delete_paper": replaces, "delete_document": replaces,
		"import_library": {destructive: true, idempotent: true, openWorld: true},
	}
	overTransports(t, func(t *testing.T, cs *mcp.ClientSession) {
		byName, _ := tools(t, cs)
		if len(byName) != len(want) {
			t.Errorf("%d tools, want %d", len(byName), len(want))
		}
		for name, w := range want {
			a := byName[name].Annotations
			if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
				t.Errorf("%s: annotations %+v, want every hint set", name, a)
				continue
			}
			got := hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
			if got != w {
				t.Errorf("%s: hints %+v, want %+v", name, got, w)
			}
		}
	})
}

// httpWords are what a description read over stdio must not mention.
var httpWords = regexp.MustCompile(`(?i)\b(GET|POST|PUT|PATCH|DELETE) /|/v1|/mcp|x-user-id|header|\bhttp\b|\b[45]\d\d\b`)

func TestInputSchemas(t *testing.T) {
	overTransports(t, func(t *testing.T, cs *mcp.ClientSession) {
		byName, schemas := tools(t, cs)
		for name, s := range schemas {
			if d := byName[name].Description; httpWords.MatchString(d) {
				t.Errorf("%s: description names %q: %s", name, httpWords.FindString(d), d)
			}
			eachProperty(name, s, func(path string, p *jsonschema.Schema) {
				switch {
				case p.Description == "":
					t.Errorf("%s has no description", path)
				case httpWords.MatchString(p.Description):
					t.Errorf("%s: description names %q: %s", path, httpWords.FindString(p.Description), p.Description)
				}
			})
		}

		recall := schemas["recall"].Properties
		for prop, want := range map[string][]string{
			"label":         {"Claim", "Passage", "Paper", "Analysis", "Document", "Any"},
			"section_types": papermem.SectionTypes,
			"scope_signals": papermem.ScopeSignals,
			"cite.format":   {"bibtex", "ris", "csl-json"},
		} {
			p := recall[prop]
			if tool, name, ok := strings.Cut(prop, "."); ok {
				p = schemas[tool].Properties[name]
			}
			if p.Items != nil {
				p = p.Items
			}
			var got []string
			for _, v := range p.Enum {
				got = append(got, fmt.Sprint(v))
			}
			if !slices.Equal(got, want) {
				t.Errorf("recall.%s: enum %v, want %v", prop, got, want)
			}
		}
		if d := recall["label"].Description; !strings.Contains(d, "case does not matter") {
			t.Errorf("recall.label does not say case does not matter: %s", d)
		}
	})
}

// eachProperty calls f on every property of s, in nested objects and array
// items too, named by its path from tool.
func eachProperty(path string, s *jsonschema.Schema, f func(string, *jsonschema.Schema)) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		f(path+"."+name, p)
		eachProperty(path+"."+name, p, f)
	}
	eachProperty(path+"[]", s.Items, f)
}

// TestLabelAnyCase: recall takes its enums' values in any case.
func TestLabelAnyCase(t *testing.T) {
	m, _ := open(t)
	cs := connect(t, mcpserver.New(mcpserver.Local(m.Workspace("lab-ada"), "ada"), &mcpserver.Options{Logger: quiet}))
	ok[api.StorePaperResponse](t, cs, "store_paper", map[string]any{"doi": doi, "title": "Vitamin D and fractures",
		"text": "## Results\n\nVitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98)."})
	args := func(label, section, signal string) map[string]any {
		return map[string]any{"question": "Does vitamin D prevent fractures?", "label": label,
			"section_types": []string{section}, "scope_signals": []string{signal}}
	}
	want, _ := ok[papermem.RecallResult](t, cs, "recall", args("Any", "results", "evidence"))
	if len(want.Spans) == 0 {
		t.Fatal("recall found nothing")
	}
	got, _ := ok[papermem.RecallResult](t, cs, "recall", args("aNY", "RESULTS", "Evidence"))
	if len(got.Spans) != len(want.Spans) || got.Spans[0].NodeID != want.Spans[0].NodeID {
		t.Errorf("recall in other cases = %+v, want %+v", got.Spans, want.Spans)
	}
	fails(t, cs, "recall", args("Claims", "results", "evidence"), api.CodeInvalidInput)
	fails(t, cs, "recall", args("Any", "result", "evidence"), api.CodeInvalidInput)
}

// TestVersion: the handshake reports the module version of the build, the
// one papermem --version prints, over stdio and over /mcp alike.
func TestVersion(t *testing.T) {
	want := buildinfo.Version()
	if want == "" || want == "(devel)" {
		t.Fatalf("buildinfo.Version() = %q", want)
	}
	overTransports(t, func(t *testing.T, cs *mcp.ClientSession) {
		info := cs.InitializeResult().ServerInfo
		if info.Name != mcpserver.Name || info.Version != want {
			t.Errorf("server info = %+v, want %s %s", info, mcpserver.Name, want)
		}
	})
	m, _ := open(t)
	cs := connect(t, mcpserver.New(mcpserver.Local(m.Workspace("lab-ada"), "ada"), &mcpserver.Options{Version: "v9.9.9", Logger: quiet}))
	if v := cs.InitializeResult().ServerInfo.Version; v != "v9.9.9" {
		t.Errorf("Options.Version: reported %q", v)
	}
}

func TestPaperExistsNormalises(t *testing.T) {
	overTransports(t, func(t *testing.T, cs *mcp.ClientSession) {
		ok[api.StorePaperResponse](t, cs, "store_paper", map[string]any{"doi": "10.1000/VitD-2", "title": "Vitamin D", "text": "Vitamin D did not reduce fractures."})
		for _, tt := range []struct {
			in     string
			exists bool
		}{
			{"10.1000/vitd-2", true},
			{"  https://doi.org/10.1000/VITD-2 ", true},
			{"doi:10.1000/VitD-2", true},
			{"DOI:10.1000/Absent", false},
		} {
			got, txt := ok[struct {
				DOI    string
				Exists bool
			}](t, cs, "paper_exists", map[string]any{"doi": tt.in})
			want := papermem.NormalizeDOI(tt.in)
			if got.DOI != want || got.Exists != tt.exists || !strings.HasPrefix(txt, "doi:"+want+" is") {
				t.Errorf("paper_exists(%q) = %+v, %q; want doi %s, exists %v", tt.in, got, txt, want, tt.exists)
			}
		}
		fails(t, cs, "paper_exists", map[string]any{"doi": "not a doi"}, api.CodeInvalidInput)
	})
}

// TestDefaultBudget: recall and recall_user without budget_tokens return at
// most mcpserver.DefaultBudgetTokens, which their descriptions give; with
// it, as much as asked (fill asks for the whole budget, which one paper's
// answer would not take otherwise: papermem.SourceDepth).
func TestDefaultBudget(t *testing.T) {
	if mcpserver.DefaultBudgetTokens >= papermem.DefaultBudgetTokens {
		t.Fatalf("MCP default budget %d, library default %d", mcpserver.DefaultBudgetTokens, papermem.DefaultBudgetTokens)
	}
	m, _ := open(t)
	cs := connect(t, mcpserver.New(mcpserver.Local(m.Workspace("lab-ada"), "ada"), &mcpserver.Options{Logger: quiet}))
	byName, schemas := tools(t, cs)
	for _, name := range []string{"recall", "recall_user"} {
		for where, d := range map[string]string{"description": byName[name].Description, "budget_tokens": schemas[name].Properties["budget_tokens"].Description} {
			if !strings.Contains(d, strconv.Itoa(mcpserver.DefaultBudgetTokens)) {
				t.Errorf("%s's %s does not give the default budget: %s", name, where, d)
			}
		}
	}

	// About 6,000 tokens of claims that all answer the question.
	var text strings.Builder
	text.WriteString("## Results\n\n")
	for i := range 300 {
		fmt.Fprintf(&text, "In cohort %d, vitamin D supplementation of %d IU daily changed fracture risk by %d percent among %d older adults. ", i, 400+i*10, i%17, 100+i*3)
	}
	ok[api.StorePaperResponse](t, cs, "store_paper", map[string]any{"doi": doi, "title": "Vitamin D cohorts", "text": text.String()})
	for i := range 300 {
		ok[papermem.Remembered](t, cs, "remember", map[string]any{"key": fmt.Sprintf("d%d", i),
			"text": fmt.Sprintf("Ada takes %d IU of vitamin D on day %d of her fracture recovery plan.", 400+i*10, i)})
	}
	q := map[string]string{"recall": "Does vitamin D supplementation change fracture risk in older adults?",
		"recall_user": "How much vitamin D does Ada take for her fracture recovery?"}
	for _, name := range []string{"recall", "recall_user"} {
		def, _ := ok[papermem.RecallResult](t, cs, name, map[string]any{"question": q[name], "fill": true})
		if def.TotalTokens > mcpserver.DefaultBudgetTokens || def.TotalTokens < mcpserver.DefaultBudgetTokens*3/4 {
			t.Errorf("%s without a budget: %d tokens, want at most %d and near it", name, def.TotalTokens, mcpserver.DefaultBudgetTokens)
		}
		big, _ := ok[papermem.RecallResult](t, cs, name, map[string]any{"question": q[name], "budget_tokens": papermem.DefaultBudgetTokens, "fill": true})
		if big.TotalTokens <= mcpserver.DefaultBudgetTokens {
			t.Errorf("%s with budget %d: %d tokens, want more than the default %d", name, papermem.DefaultBudgetTokens, big.TotalTokens, mcpserver.DefaultBudgetTokens)
		}
	}
}
