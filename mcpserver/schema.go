package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
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

// inputSchema is the JSON schema of tool input T: its shape from the Go
// type, each property's description from the field's doc tag, and required
// exactly the fields tagged required:"true" (the tags the OpenAPI document
// is generated from).
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
		if f.Tag.Get("required") == "true" {
			s.Required = append(s.Required, name)
		}
		describe(prop, f.Type)
	}
}
