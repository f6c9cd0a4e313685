// Package testenv lets a test stand aside for what the machine lacks, but
// never in CI: there (the variable CI set, as .ci/run sets it) every test
// must run, so a missing piece fails the test instead of skipping it. It
// imports no papermem package, so that every package's tests can use it.
package testenv

import (
	"os"
	"testing"
)

// Need skips tb, naming what it needs and why it is missing, or fails it
// when CI is set.
func Need(tb testing.TB, what string, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s is missing and CI is set: %v", what, err)
	}
	tb.Skipf("%s not found: %v", what, err)
}
