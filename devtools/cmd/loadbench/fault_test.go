package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/testdb"
)

// TestMain lets the test binary be the child server of the fault modes,
// as the command's own binary is.
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "-serve" {
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
