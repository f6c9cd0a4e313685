// Command mutate checks that the tests defend the security-relevant code:
// it makes one small breaking change at a time — every org_id and user_id
// predicate in internal/store made always true, each part of the fetch
// guard against private addresses, each authentication and authorization
// check switched off — runs the tests of the packages that should notice,
// and reports the changes no test caught.
//
//	go run ./devtools/cmd/mutate [-run regexp] [-list]
//
// The source tree is never written: each mutant is handed to go test as
// an -overlay. Tests run on the engine the environment selects (see
// internal/testdb), so run it once more with PAPERMEM_TEST_POSTGRES set
// for PostgreSQL. It exits 1 when a mutant survives.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	survivors, err := run(context.Background(), os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	if survivors > 0 {
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) (int, error) {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	pattern := fs.String("run", "", "only the mutations whose file:line matches this regexp")
	list := fs.Bool("list", false, "list the mutations without running them")
	if err := fs.Parse(args); err != nil {
		return 0, err
	}
	sel, err := regexp.Compile(*pattern)
	if err != nil {
		return 0, fmt.Errorf("-run: %w", err)
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return 0, err
	}
	all, err := mutations(root)
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "mutate")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)

	if !*list {
		if err := baseline(ctx, root, all, sel); err != nil {
			return 0, err
		}
	}
	var survivors, ran int
	start := time.Now()
	for i := range all {
		m := &all[i]
		if !sel.MatchString(m.Name()) {
			continue
		}
		if *list {
			fmt.Fprintf(out, "%s\t%s\t%q → %q\n", m.Name(), m.Why, m.Old, m.New)
			continue
		}
		ran++
		by, err := try(ctx, root, tmp, m)
		if err != nil {
			return survivors, err
		}
		if by == "" {
			survivors++
			fmt.Fprintf(out, "SURVIVED %s\t%s\t%q → %q\n", m.Name(), m.Why, m.Old, m.New)
		} else {
			fmt.Fprintf(out, "caught   %s\t%s\tby %s\n", m.Name(), m.Why, by)
		}
	}
	if !*list {
		fmt.Fprintf(out, "%d of %d mutants survived (%s)\n", survivors, ran, time.Since(start).Round(time.Second))
	}
	return survivors, nil
}

// baseline runs, unmutated, the tests of every package the selected
// mutations name: a failure there would pass for a catch of every mutant.
func baseline(ctx context.Context, root string, all []mutation, sel *regexp.Regexp) error {
	var pkgs []string
	for i := range all {
		if sel.MatchString(all[i].Name()) {
			for _, p := range all[i].Pkgs {
				if !slices.Contains(pkgs, p) {
					pkgs = append(pkgs, p)
				}
			}
		}
	}
	if len(pkgs) == 0 {
		return nil
	}
	if out, err := goCmd(ctx, root, append([]string{"test", "-count=1"}, pkgs...)...); err != nil {
		return fmt.Errorf("the tests fail without a mutant, so no mutant can be judged:\n%s", out)
	}
	return nil
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run it inside the papermem module")
	}
	return filepath.Dir(mod), nil
}

// try builds the mutant and runs its packages' tests in order until one
// fails. It returns what caught the mutant — the package and its first
// failing test — or "" when every package passed. A mutant that does not
// compile is an error of the mutation list, not a catch.
func try(ctx context.Context, root, tmp string, m *mutation) (string, error) {
	path := filepath.Join(root, filepath.FromSlash(m.File))
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	mutant, err := m.apply(src)
	if err != nil {
		return "", err
	}
	file := filepath.Join(tmp, "mutant.go")
	overlay := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(file, mutant, 0o644); err != nil {
		return "", err
	}
	spec, err := json.Marshal(map[string]map[string]string{"Replace": {path: file}})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(overlay, spec, 0o644); err != nil {
		return "", err
	}
	if out, err := goCmd(ctx, root, "build", "-overlay", overlay, "./"+filepath.Dir(m.File)); err != nil {
		return "", fmt.Errorf("%s does not build:\n%s", m.Name(), out)
	}
	for _, pkg := range m.Pkgs {
		// A mutant that makes a test hang is caught by the timeout.
		out, err := goCmd(ctx, root, "test", "-count=1", "-overlay", overlay, "-failfast", "-timeout", "5m", pkg)
		var exit *exec.ExitError
		if errors.As(err, &exit) && buildFailed.Match(out) {
			return "", fmt.Errorf("%s: the tests of %s do not build:\n%s", m.Name(), pkg, out)
		}
		if errors.As(err, &exit) {
			return pkg + " " + firstFailure(out), nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", nil
}

// goCmd runs the go command in root and returns its output.
func goCmd(ctx context.Context, root string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.Bytes(), err
}

var buildFailed = regexp.MustCompile(`(?m)^FAIL\s+\S+ \[(build|setup) failed\]`)

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// firstFailure names the first failing test in go test's output.
func firstFailure(out []byte) string {
	if m := failLine.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	if bytes.Contains(out, []byte("panic: test timed out")) {
		return "(timeout)"
	}
	return "(no test named)"
}
