package httpapi

import (
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// FuzzDecode feeds arbitrary bodies to the JSON decoding of every request
// type: it must never panic, and every failure must be a 400 EINVALID.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"question":"q","keywords":["a"],"budget_tokens":5,"domain":null,"section_types":["methods"]}`,
		`{"doi":"10.1/x","title":"t","year":2020,"authors":["a"],"oa":true,"source_url":null}`,
		`{"papers":[{"doi":"10.1/x"},{"title":"y"}]}`,
		`{"text":"t","metadata":{"a":[1,{"b":null}]},"tags":["x"]}`,
		`{"email":"a@b.c","password":"12345678","org_id":"abc"}`,
		`{"current_password":"12345678","new_password":"87654321"}`,
		`{"question": 1e999}`, `{"budget_tokens": 1.5}`, `{"year": -1}`, `{"a":"\ud800"}`,
		`{}`, `{`, `}`, `[]`, `null`, `"s"`, `{"x":1} {"y":2}`, "\xff\xfe{}", `{"question":"q"}   `,
	} {
		f.Add([]byte(seed))
	}
	targets := []func() any{
		func() any { return &api.RecallRequest{} },
		func() any { return &api.PaperRequest{} },
		func() any { return &api.BatchRequest{} },
		func() any { return &api.AnalysisRequest{} },
		func() any { return &api.RememberRequest{} },
		func() any { return &api.UserRecallRequest{} },
		func() any { return &api.SignupRequest{} },
		func() any { return &api.LoginRequest{} },
		func() any { return &api.PasswordRequest{} },
		func() any { return &api.CreateWorkspaceRequest{} },
		func() any { return &api.CreateKeyRequest{} },
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, target := range targets {
			v := target()
			err := api.DecodeJSON(body, v)
			if err == nil {
				continue
			}
			if status, code := statusOf(err); status != 400 || code != "invalid_input" {
				t.Fatalf("decode %q into %T: %d %s (%v)", body, v, status, code, err)
			}
			if papermem.ErrorMessage(err) == "" {
				t.Fatalf("decode %q: empty message", body)
			}
		}
		var r api.RecallRequest
		if api.DecodeJSON(body, &r) == nil {
			// A decoded request converts without panicking.
			if _, err := r.Input(); err != nil && papermem.ErrorCode(err) != papermem.EINVALID {
				t.Fatalf("Input: %v", err)
			}
		}
	})
}
