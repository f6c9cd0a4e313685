package evalcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/locomo"
	"github.com/papermem/papermem/internal/testdb"
)

func TestOpenMemory(t *testing.T) {
	m, done, err := OpenMemory(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	done()

	path := testdb.Path(t)
	m, done, err = OpenMemory(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.StorePaper(context.Background(), papermem.PaperInput{DOI: "10.1/kept", Text: "Kept."}); err != nil {
		t.Fatal(err)
	}
	done()
	kept, err := papermem.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if ok, err := kept.PaperExists(context.Background(), "10.1/kept"); err != nil || !ok {
		t.Errorf("a given database must be kept: exists %v (%v)", ok, err)
	}
}

func TestStartCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err := StartCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("profile not written: %v", err)
	}
	stop, err = StartCPUProfile("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
}

func TestSpread(t *testing.T) {
	xs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		n    int
		want []int
	}{
		{3, []int{0, 3, 6}},
		{5, []int{0, 2, 4, 6, 8}},
		{10, xs},
		{20, xs},
		{0, []int{}},
	} {
		if got := Spread(xs, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Spread(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

func TestWriteReturned(t *testing.T) {
	spans := &Returned{Recall: "Recall Claim", Questions: "off-topic"}
	for _, tokens := range []int{0, 1000, 2000, 1990} {
		res := &papermem.RecallResult{TotalTokens: tokens}
		if tokens > 0 {
			res.Spans = make([]papermem.Span, tokens/100)
		}
		spans.AddRecall(res)
	}
	papers := &Returned{Recall: "RecallPapers", Questions: "in-topic", Papers: true}
	papers.AddPapers(make([]papermem.Paper, 20))
	papers.AddPapers(nil)
	var out bytes.Buffer
	if err := WriteReturned(&out, 2000, []*Returned{spans, papers, {Recall: "Recall Any", Questions: "none"}}); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		rows = append(rows, strings.Fields(line))
	}
	want := [][]string{
		{"recall", "questions", "n", "mean", "tokens", "of", "budget", "median", "tokens", "max", "tokens", "none", "returned", "mean", "returned"},
		// mean 4990/4 = 1247.5, median (1000+1990)/2, spans 0+10+20+19.
		{"Recall", "Claim", "off-topic", "4", "1248", "0.624", "1495", "2000", "0.250", "12.2", "spans"},
		{"RecallPapers", "in-topic", "2", "-", "-", "-", "-", "0.500", "10.0", "papers"},
		{"Recall", "Any", "none", "0", "-", "-", "-", "-", "-", "-"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestLoCoMoQuestions(t *testing.T) {
	convs, err := locomo.Load("testdata/locomo.json")
	if err != nil {
		t.Fatal(err)
	}
	// Two from the first conversation, one from the second; never the
	// adversarial category.
	want := []string{"When did Ada run the Lisbon marathon?", "How long did the marathon take?", "What is the name of Cleo's puppy?"}
	if got := LoCoMoQuestions(convs, 3); !slices.Equal(got, want) {
		t.Errorf("3 questions: %q, want %q", got, want)
	}
	if got := LoCoMoQuestions(convs, 100); len(got) != 4 {
		t.Errorf("100 questions: %q, want the 4 there are", got)
	}
}

func TestListAndBudgets(t *testing.T) {
	if got := List(" Claim, ,Any,none "); !slices.Equal(got, []string{"Claim", "Any"}) {
		t.Errorf("List = %q", got)
	}
	if got := List("none"); got != nil {
		t.Errorf("List(none) = %q, want none", got)
	}
	if got, err := Budgets("200, 500,1000"); err != nil || !slices.Equal(got, []int{200, 500, 1000}) {
		t.Errorf("Budgets = %v, %v", got, err)
	}
	for _, bad := range []string{"0", "-5", "x", "200,1e3"} {
		if _, err := Budgets(bad); err == nil {
			t.Errorf("Budgets(%q) accepted", bad)
		}
	}
}

// TestPercentile checks the nearest rank, that the input stays as it was,
// and the empty case.
func TestPercentile(t *testing.T) {
	xs := []int{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for p, want := range map[int]int{0: 1, 50: 6, 95: 10, 99: 10, 100: 10} {
		if got := Percentile(xs, p); got != want {
			t.Errorf("Percentile(%v, %d) = %d, want %d", xs, p, got, want)
		}
	}
	if xs[0] != 5 || xs[9] != 6 {
		t.Errorf("the input was sorted: %v", xs)
	}
	if got := Percentile([]float64(nil), 50); got != 0 {
		t.Errorf("Percentile(nil) = %v", got)
	}
}

func TestLabel(t *testing.T) {
	for in, want := range map[string]struct {
		label string
		fill  bool
	}{"Claim": {"Claim", false}, "Claim" + FillSuffix: {"Claim", true}, "full:fill:x": {"full:fill:x", false}} {
		if label, fill := Label(in); label != want.label || fill != want.fill {
			t.Errorf("Label(%q) = %q, %v; want %q, %v", in, label, fill, want.label, want.fill)
		}
	}
}
