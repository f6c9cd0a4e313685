package papermem

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/internal/extract"
)

// trialSections builds sections of results with claims in them.
func trialSections() []extract.Section {
	var sections []extract.Section
	pos := 0
	for i := 0; i < 60; i++ {
		var sb strings.Builder
		for j := 0; j < 12; j++ {
			fmt.Fprintf(&sb, "In trial %d.%d the treatment reduced relapse by %d%% compared with placebo. Patients were followed for %d months. ", i, j, 10+j, 6+i%5)
		}
		text := sb.String()
		n := len([]rune(text))
		sections = append(sections, extract.Section{Heading: fmt.Sprintf("Trial %d", i), Type: extract.TypeResults,
			Page: i/10 + 1, Text: text, CharStart: pos, CharEnd: pos + n})
		pos += n + 2
	}
	return sections
}

// TestIndexNodesParallel checks that spreading a large input over CPUs
// yields exactly the nodes, order and parents of the serial sectionNodes,
// and that parallel embedding fills the same vectors.
func TestIndexNodesParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	sections := trialSections()
	serial := sectionNodes(sections, LabelDocument, "medicine")
	parallel := indexNodes(sections, LabelDocument, "medicine")
	if diff := cmp.Diff(serial, parallel, cmp.AllowUnexported(node{})); diff != "" {
		t.Fatalf("parallel nodes differ (-serial +parallel):\n%s", diff)
	}
	if countLabel(serial, LabelClaim) == 0 {
		t.Fatal("no claims: the input does not exercise parents")
	}

	m := &Memory{embedder: NewHashEmbedder(64)}
	ctx := context.Background()
	if err := m.embedNodes(ctx, serial); err != nil {
		t.Fatal(err)
	}
	if err := m.embedParallel(ctx, parallel); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(serial, parallel, cmp.AllowUnexported(node{})); diff != "" {
		t.Fatalf("parallel vectors differ (-serial +parallel):\n%s", diff)
	}
}
