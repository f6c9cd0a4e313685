package papermem_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayout keeps the root package the memory a Go program embeds
// (docs/design.md, Layout): no SQL types (internal/store owns them), no
// HTTP (the root never serves or fetches itself), and nothing of the
// hosted service or the HTTP API.
func TestLayout(t *testing.T) {
	forbidden := map[string]string{
		"database/sql":                         "internal/store speaks SQL",
		"net/http":                             "the root serves and fetches nothing itself",
		"github.com/papermem/papermem/hosted":  "the hosted service is built over the memory, not in it",
		"github.com/papermem/papermem/httpapi": "the HTTP API is built over the memory, not in it",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := forbidden[path]; bad {
				t.Errorf("%s imports %s: %s", name, path, why)
			}
		}
	}
}
