package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/testdb"
)

// TestMain lets the test binary be the child server of the fault and
// scale modes, as the command's own binary is.
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "-serve" || len(os.Args) == 2 && os.Args[1] == "-server" {
		if err := run(os.Args[1:], os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestFaultModesSmoke runs short versions of -mixed and -crash: no 5xx,
// no connection error, no wrong answer, no lost or half-stored write.
func TestFaultModesSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	testdb.SQLiteOnly(t, "kill -9 and a full disk under a server process on a SQLite file, checked with integrity_check")
	var out bytes.Buffer
	if err := runMixed(&out, 4, 2*time.Second, 30); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"5xx: 0; connection errors: 0; wrong answers: 0", "lost acknowledged writes: 0 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("mixed output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := runCrash(&out, 1, 2); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "lost 0; half-stored 0; not recalled 0;") {
		t.Errorf("crash output:\n%s", out.String())
	}
	t.Log(out.String())
}

// TestServersSmoke runs a short -servers 2 with shared rate limits: both
// setups answer without 5xx, connection errors or wrong answers, and every
// acknowledged write is found through every server.
func TestServersSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	var out bytes.Buffer
	if err := runServers(&out, 2, "", 4, time.Second, 20, true); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if n := strings.Count(out.String(), "5xx: 0; connection errors: 0; wrong answers: 0"); n != 2 {
		t.Errorf("%d of 2 setups clean:\n%s", n, out.String())
	}
	for _, want := range []string{"missing through each [0]; lost 0; not recalled 0", "missing through each [0 0]; lost 0; not recalled 0", "SQLite, 2 servers"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestScaleSmoke runs a short -scale: 300 abstracts stored twice through
// the batch route, ten claims asked before and after a restart; every
// figure is printed and none failed.
func TestScaleSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	testdb.SQLiteOnly(t, "the scale mode's server stores to a SQLite file of its own")
	docs, err := scifact.Corpus(filepath.Join("..", "..", "..", scifact.DefaultDir))
	if err != nil {
		t.Fatal(err)
	}
	claims, err := scifact.Queries(filepath.Join("..", "..", "..", scifact.DefaultDir))
	if err != nil {
		t.Fatal(err)
	}
	r := scaleRun{docs: docs[:300], copies: 2, conns: 2}
	for _, c := range claims[:10] {
		r.questions = append(r.questions, c.Text)
	}
	var out bytes.Buffer
	if err := runScale(&out, r); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`ingest: 600 papers \(\d+ nodes\) through POST /v1/papers/batch`),
		regexp.MustCompile(`label the default \(Claim\), 10 questions at 2000 tokens: p50 \S+, p95 \S+`),
		regexp.MustCompile(`label Any, 10 questions`),
		regexp.MustCompile(`restart: the first recall answered [0-9.]+ s after`),
		regexp.MustCompile(`disk: database [1-9]\d* \+ index files [1-9]\d* = [1-9]\d* bytes a node`),
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("output lacks %v:\n%s", want, out.String())
		}
	}
	t.Log(out.String())
}
