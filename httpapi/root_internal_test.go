package httpapi

import (
	"strings"
	"testing"
)

// FuzzPrefersHTML reads any Accept header without panicking; a header
// naming no HTML never prefers it.
func FuzzPrefersHTML(f *testing.F) {
	for _, s := range []string{"", "*/*", "text/html", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"application/json, text/html;q=0.5", "text/html;q=abc", ";;,,=", "TEXT/HTML;Q=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got := prefersHTML([]string{accept})
		if got && !strings.Contains(strings.ToLower(accept), "html") {
			t.Errorf("prefersHTML(%q) without html", accept)
		}
	})
}
