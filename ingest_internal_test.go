package papermem

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
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

// TestPipeline checks that the pipeline hands over, in order, exactly the
// nodes and vectors of the serial sectionNodes and embedNodes, each run's
// parents pointing into the run; and that it stops at the first error.
func TestPipeline(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	sections := trialSections()
	m := &Memory{embedder: NewHashEmbedder(64)}
	ctx := context.Background()
	want := sectionNodes(sections, LabelDocument, "medicine")
	if err := m.embedNodes(ctx, want); err != nil {
		t.Fatal(err)
	}

	var got []node
	batches := 0
	err := m.pipeline(ctx, sections, LabelDocument, "medicine", func(batch []node) error {
		batches++
		off := len(got)
		for _, n := range batch {
			if n.parent >= 0 {
				n.parent += off
			}
			got = append(got, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if batches < 4 {
		t.Fatalf("%d batches: the input does not exercise the pipeline", batches)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(node{})); diff != "" {
		t.Fatalf("pipeline nodes differ (-serial +pipeline):\n%s", diff)
	}

	t.Run("ErrStore", func(t *testing.T) {
		fail := errors.New("disk full")
		calls := 0
		err := m.pipeline(ctx, sections, LabelDocument, "", func([]node) error {
			calls++
			if calls == 2 {
				return fail
			}
			return nil
		})
		if !errors.Is(err, fail) || calls != 2 {
			t.Errorf("err %v after %d calls, want %v after 2", err, calls, fail)
		}
	})
	t.Run("ErrCanceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		calls := 0
		err := m.pipeline(ctx, sections, LabelDocument, "", func([]node) error {
			calls++
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) || calls != 1 {
			t.Errorf("err %v after %d calls, want %v after 1", err, calls, context.Canceled)
		}
	})
}

// TestNodeInserterCanceled checks that inserting stops at a canceled
// context although the statements run without it.
func TestNodeInserterCanceled(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, t.TempDir()+"/papermem.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := m.Workspace("default")
	ns := sectionNodes(trialSections(), LabelDocument, "")
	if err := m.embedNodes(ctx, ns); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	err = m.write(ctx, func(tx *sql.Tx) error {
		ni, err := w.newNodeInserter(ctx, tx, KindDocument, 1, "")
		if err != nil {
			return err
		}
		defer ni.close()
		if err := ni.insert(ctx, ns[:10]); err != nil {
			return err
		}
		return ni.insert(canceled, ns[10:])
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want %v", err, context.Canceled)
	}
	var n int
	if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM nodes`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d nodes stored (%v), want none", n, err)
	}
}

// TestBitsBlob checks the sign bits stored with each vector: bit i is set
// when component i is greater than zero.
func TestBitsBlob(t *testing.T) {
	v := []float32{0.5, -0.5, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-30, -1e-30}
	want := []byte{0b1001_0001, 0b0000_0000}
	if got := bitsBlob(v); !bytes.Equal(got, want) {
		t.Errorf("bitsBlob = %08b, want %08b", got, want)
	}
}
