package papermem_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	for _, f := range parseDir(t, ".") {
		for _, imp := range f.file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := forbidden[path]; bad {
				t.Errorf("%s imports %s: %s", f.name, path, why)
			}
		}
	}
}

// TestLayoutContract keeps api the contract every side imports and the Go
// client a program without cgo: api imports the standard library only, the
// client api and the standard library only, so that neither links the
// library, a database driver or cgo. It reads go list's answer, counting
// indirect imports.
func TestLayoutContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, pkg := range []string{"./api", "./client"} {
		cmd := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			path, std, cgo := f[0], f[1] == "true", f[2] != "0"
			own := path == "github.com/papermem/papermem/api" || path == "github.com/papermem/papermem/client"
			switch {
			case cgo:
				t.Errorf("%s imports %s, which needs cgo", pkg, path)
			case pkg == "./api" && !std && path != "github.com/papermem/papermem/api":
				t.Errorf("api imports %s: it may import the standard library only", path)
			case !std && !own:
				t.Errorf("%s imports %s: the client imports api and the standard library only", pkg, path)
			}
		}
	}
}

// TestMemoryMethods keeps the methods of Memory documented on Memory
// (go doc papermem.Memory lists Recall, StorePaper, …): every exported
// method of *Workspace has a *Memory method of the same name, acting on
// the default workspace.
func TestMemoryMethods(t *testing.T) {
	methods := map[string]map[string]bool{}
	for _, f := range parseDir(t, ".") {
		for _, d := range f.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.IsExported() {
				recv := receiver(fd)
				if methods[recv] == nil {
					methods[recv] = map[string]bool{}
				}
				methods[recv][fd.Name.Name] = true
			}
		}
	}
	for name := range methods["Workspace"] {
		if !methods["Memory"][name] {
			t.Errorf("Workspace.%s has no Memory.%s (memory_methods.go)", name, name)
		}
	}
}

// TestTranslated keeps every exported method that can fail translating the
// store's errors (docs/design.md, Errors): each exported method of the
// memory's Memory and Workspace and of the hosted service's Service and
// Workspace that returns an error, and is not a Memory method that hands
// the call to Workspace, defers translate first.
func TestTranslated(t *testing.T) {
	for dir, recvs := range map[string][]string{".": {"Memory", "Workspace"}, "hosted": {"Service", "Workspace"}} {
		for _, f := range parseDir(t, dir) {
			for _, d := range f.file.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || !fd.Name.IsExported() || !returnsError(fd) {
					continue
				}
				recv := receiver(fd)
				if !slices.Contains(recvs, recv) || forwards(fd) {
					continue
				}
				if !defersTranslate(fd) {
					t.Errorf("%s: %s.%s does not begin with defer translate(&err)", filepath.Join(dir, f.name), recv, fd.Name.Name)
				}
			}
		}
	}
}

type parsedFile struct {
	name string
	file *ast.File
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []parsedFile {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []parsedFile
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsedFile{filepath.Base(name), f})
	}
	return out
}

// receiver is the name of fd's receiver type.
func receiver(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func returnsError(fd *ast.FuncDecl) bool {
	res := fd.Type.Results
	if res == nil || len(res.List) == 0 {
		return false
	}
	id, ok := res.List[len(res.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

// forwards reports whether fd's body is return m.ws.X(…).
func forwards(fd *ast.FuncDecl) bool {
	if receiver(fd) != "Memory" || len(fd.Body.List) != 1 {
		return false
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	inner, ok := sel.X.(*ast.SelectorExpr)
	return ok && inner.Sel.Name == "ws"
}

// defersTranslate reports whether fd's first statement is defer
// translate(&x).
func defersTranslate(fd *ast.FuncDecl) bool {
	if len(fd.Body.List) == 0 {
		return false
	}
	d, ok := fd.Body.List[0].(*ast.DeferStmt)
	if !ok {
		return false
	}
	id, ok := d.Call.Fun.(*ast.Ident)
	return ok && id.Name == "translate"
}
