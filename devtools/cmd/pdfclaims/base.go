package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// cmdDir is this command's folder, relative to the repository's root.
const cmdDir = "devtools/cmd/pdfclaims"

// measureAt runs this command, as found in the working tree of the git
// repository around the working directory, over the tree of revision rev,
// and returns what that build stored for each file.
func measureAt(ctx context.Context, rev string, files []string, stderr io.Writer) (map[string]result, error) {
	top, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, fmt.Errorf("not in a git repository: %w", err)
	}
	root := strings.TrimSpace(string(top))
	own, err := filepath.Glob(filepath.Join(root, cmdDir, "*.go"))
	if err != nil || len(own) == 0 {
		return nil, fmt.Errorf("%s not found in the working tree", cmdDir)
	}
	tmp, err := os.MkdirTemp("", "pdfclaims-base-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var tree bytes.Buffer
	archive := exec.CommandContext(ctx, "git", "archive", "--format=tar", rev+"^{tree}")
	archive.Dir, archive.Stdout, archive.Stderr = root, &tree, stderr // the whole tree, not the working directory's part
	if err := archive.Run(); err != nil {
		return nil, fmt.Errorf("git archive: %w", err)
	}
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", tmp)
	untar.Stdin, untar.Stderr = &tree, stderr
	if err := untar.Run(); err != nil {
		return nil, fmt.Errorf("tar: %w", err)
	}
	dst := filepath.Join(tmp, cmdDir)
	if err := os.RemoveAll(dst); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	for _, f := range own {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
			return nil, err
		}
	}
	args := []string{"run", "./" + cmdDir, "-json", "-base", "", "-dir"}
	abs, err := filepath.Abs(filepath.Dir(files[0]))
	if err != nil {
		return nil, err
	}
	args = append(args, abs)
	var out bytes.Buffer
	goRun := exec.CommandContext(ctx, "go", args...)
	goRun.Dir, goRun.Stdout, goRun.Stderr = tmp, &out, stderr
	goRun.Env = append(os.Environ(), "GOWORK=off")
	if err := goRun.Run(); err != nil {
		return nil, fmt.Errorf("go run at %s: %w", rev, err)
	}
	var res map[string]result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("reading the base's output: %w", err)
	}
	return res, nil
}
