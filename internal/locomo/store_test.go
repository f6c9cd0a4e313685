package locomo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvidenceIDs(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{[]string{"D1:3"}, []string{"D1:3"}},
		{[]string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}},
		{[]string{"D:11:26", "D1:2", "D1:2"}, []string{"D11:26", "D1:2"}},
		{[]string{"D"}, nil},
	} {
		if got := EvidenceIDs(c.in); !cmp.Equal(got, c.want) {
			t.Errorf("EvidenceIDs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
