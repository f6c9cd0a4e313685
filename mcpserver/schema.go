package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// schemas caches the schemas built from Go types, by type and use: the
// HTTP transport builds a server for every request.
var schemas sync.Map // schemaKey → *jsonschema.Schema

type schemaKey struct {
	t     reflect.Type
	input bool
}

// rawSchemas maps json.RawMessage, which is any JSON value, not a byte
// array.
var rawSchemas = map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"}}

// field refines a property of a tool's input beyond its Go field's tags.
type field struct {
	doc  string   // replaces the doc tag when not empty
	enum []string // the values allowed: of the property, or of its items for an array
}

// fields refines the properties of the API's request types that tools
// take, and of the tools' own inputs: the enums the library checks, a description where the doc tag has
// none, and descriptions that name no HTTP route, header or status in
// place of those that do (the tools are served over stdio too).
var fields = map[reflect.Type]map[string]field{
	reflect.TypeFor[api.RecallRequest](): {
		"label": {doc: "which nodes to search: Claim (default; a sentence that asserts a finding), Passage (a chunk of a section), Paper (a paper's title and abstract), Analysis, Document (a chunk of an ingested file) or Any (all of these); case does not matter",
			enum: recallLabels},
		"budget_tokens": {doc: fmt.Sprintf("token budget, 1..%d; absent means %d. The spans' tokens never add up to more (total_tokens)",
			papermem.MaxBudgetTokens, DefaultBudgetTokens)},
		"section_types": {doc: "only spans of these section types; another value is refused", enum: papermem.SectionTypes},
		"scope_signals": {doc: "boost spans carrying the cues of these signals; another value is refused", enum: papermem.ScopeSignals},
		"dois": {doc: "only spans of these papers (their title and abstract, passages and claims; not their analyses, and no documents, so labels Analysis and Document then match nothing), with words weighed within them as in a workspace of those papers alone; absent or [] means every source. " +
			"A DOI not in this workspace matches nothing (no error), so when none is the answer has no spans. At most 100 DOIs, duplicates ignored; a string that is not a DOI, or more than 100, is refused"},
		"tags":        {doc: "only spans of the papers with one of these tags (as imported from a reference manager, exact names), scoped as dois are; with dois or collections too, only papers in every scope given. At most 100 names; an empty name is refused"},
		"collections": {doc: "only spans of the papers filed in one of these collections (their names, exact), scoped as dois are. At most 100 names; an empty name is refused"},
	},
	reflect.TypeFor[api.UserRecallRequest](): {
		"question": {doc: "what to recall about the user, e.g. \"How does the user like results reported?\""},
		"keywords": {doc: "extra terms; memories containing them rank higher. Default []"},
		"budget_tokens": {doc: fmt.Sprintf("token budget, 1..%d; absent means %d. The memories' tokens never add up to more (total_tokens)",
			papermem.MaxBudgetTokens, DefaultBudgetTokens)},
	},
	reflect.TypeFor[api.PaperRequest](): {
		"title":      {doc: "the paper's title; default empty"},
		"source_url": {doc: "where the full text can be fetched (fetch_paper downloads it)"},
	},
	reflect.TypeFor[api.AnalysisRequest](): {
		"core_claim":    {doc: "the paper's central claim in a sentence, in your words; recalled with the analysis. Default empty"},
		"acceptance":    {doc: "your verdict, free text, e.g. \"accept with minor revisions\"; stored and returned by get_analysis, not searched. Default empty"},
		"scorecard":     {doc: "your ratings, free text, e.g. \"design 5/5, sample 4/5, generalisability 2/5\"; stored and returned by get_analysis, not searched. Default empty"},
		"sharpest_flaw": {doc: "the paper's weakest point in a sentence; recalled with the analysis. Default empty"},
	},
	reflect.TypeFor[citeInput](): {
		"format": {enum: papermem.CitationFormats},
	},
	reflect.TypeFor[api.LinkRequest](): {
		"claims": {doc: "node ids from recall; each must be a node of this workspace (not a per-user memory), else the call is refused and nothing is linked"},
	},
	reflect.TypeFor[api.ExportRequest](): {
		"user_id":         {doc: "who ran the session; defaults to the connection's user, and must equal it when both are given"},
		"recalled_papers": {doc: "DOIs; linked to the session as link_session does (unknown ones become paper stubs)"},
	},
}

// inputSchema is the JSON schema of tool input T: its shape from the Go
// type, each property's description from the field's doc tag, and required
// exactly the fields tagged required:"true" (the tags the OpenAPI document
// is generated from), refined by fields.
func inputSchema[T any]() *jsonschema.Schema {
	return schemaOf(reflect.TypeFor[T](), true)
}

// outputSchema is the JSON schema of tool result T (a pointer's element).
func outputSchema[T any]() *jsonschema.Schema {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return schemaOf(t, false)
}

func schemaOf(t reflect.Type, input bool) *jsonschema.Schema {
	key := schemaKey{t, input}
	if s, ok := schemas.Load(key); ok {
		return s.(*jsonschema.Schema)
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: rawSchemas})
	if err != nil {
		panic(fmt.Sprintf("schema of %v: %v", t, err)) // a programming error, caught by the tests
	}
	if input {
		describe(s, t)
	}
	schemas.Store(key, s)
	return s
}

// describe sets the descriptions and required properties of schema s of
// type t from its fields' tags, in nested structs too.
func describe(s *jsonschema.Schema, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case s == nil:
		return
	case t.Kind() == reflect.Slice && t != reflect.TypeFor[json.RawMessage]():
		describe(s.Items, t.Elem())
		return
	case t.Kind() != reflect.Struct:
		return
	}
	s.Required = nil
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		prop := s.Properties[name]
		if name == "" || name == "-" || prop == nil {
			continue
		}
		prop.Description = f.Tag.Get("doc")
		if r, ok := fields[t][name]; ok {
			refine(prop, r)
		}
		if f.Tag.Get("required") == "true" {
			s.Required = append(s.Required, name)
		}
		describe(prop, f.Type)
	}
}

// refine applies r to property schema s.
func refine(s *jsonschema.Schema, r field) {
	if r.doc != "" {
		s.Description = r.doc
	}
	if r.enum == nil {
		return
	}
	enum := make([]any, len(r.enum))
	for i, v := range r.enum {
		enum[i] = v
	}
	if s.Items != nil {
		s.Items.Enum = enum
	} else {
		s.Enum = enum
	}
}
