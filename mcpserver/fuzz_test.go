package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/mcpserver"
)

// FuzzToolArguments sends arbitrary arguments to every tool: each call
// answers, and a failure is the API's error body with a client error code,
// never a panic or an internal error.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{`{}`, `{"question":"q","budget_tokens":-1}`, `{"question":"q","dois":["10.1000/x","x"]}`,
		`{"doi":7}`, `{"papers":[1,2]}`, `{"steps":[{"args":{"a":[1e999]}}]}`, `{"name":"a.md","content_base64":"!!"}`, `{"seed_session":"s","hops":99}`,
		`{"text":"x","metadata":{"session":[]}}`, `{"key":""}`, `{"path":"/dev/null"}`, `[]`, `null`} {
		f.Add(seed)
	}
	m, _ := open(f)
	cs := connect(f, mcpserver.New(mcpserver.Local(m.Workspace("fuzz"), "fuzzer"), &mcpserver.Options{Logger: quiet}))
	known := map[string]bool{api.CodeInvalidInput: true, api.CodeNotFound: true, api.CodeUnsupportedFormat: true,
		api.CodePayloadTooLarge: true, api.CodeForbidden: true, api.CodeUpstreamFailed: true}
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) {
			return
		}
		for _, name := range toolNames {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
			if err != nil {
				continue // refused by the protocol layer (arguments not an object): no tool ran
			}
			if !res.IsError {
				continue
			}
			var body api.ErrorBody
			if err := json.Unmarshal([]byte(text(res)), &body); err != nil || !known[body.Error.Code] || body.Error.Message == "" {
				t.Fatalf("%s(%s): %s", name, args, text(res))
			}
		}
	})
}
