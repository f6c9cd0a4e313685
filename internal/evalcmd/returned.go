package evalcmd

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/papermem/papermem"
)

// Spread returns n elements of xs evenly spaced from the first, in order,
// or xs itself when it holds no more than n: a deterministic sample that
// reaches every part of xs.
func Spread[T any](xs []T, n int) []T {
	if n >= len(xs) {
		return xs
	}
	out := make([]T, max(n, 0))
	for i := range out {
		out[i] = xs[i*len(xs)/n]
	}
	return out
}

// Returned records how much each recall of one kind returned over a set of
// questions. Asked where nothing matches (off-topic questions), it shows
// what a relevance cut could save; asked where the answers are (in-topic),
// what such a cut could cost.
type Returned struct {
	Recall    string // the call, e.g. "Recall Claim"
	Questions string // which questions, e.g. "off-topic"
	Papers    bool   // it returns papers, which carry no token count, not spans
	tokens    []int
	items     []int
}

// AddRecall records a span recall's result.
func (r *Returned) AddRecall(res *papermem.RecallResult) {
	r.tokens = append(r.tokens, res.TotalTokens)
	r.items = append(r.items, len(res.Spans))
}

// AddPapers records the papers a paper recall returned.
func (r *Returned) AddPapers(ps []papermem.Paper) { r.items = append(r.items, len(ps)) }

// WriteReturned writes a table with one row for each of rs: the number of
// questions; for span recalls the mean tokens returned, their share of
// budget, and the median and max; the share of questions answered with no
// span or paper; the mean number of spans or papers returned.
func WriteReturned(w io.Writer, budget int, rs []*Returned) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "recall\tquestions\tn\tmean tokens\tof budget\tmedian tokens\tmax tokens\tnone returned\tmean returned\t\n")
	for _, r := range rs {
		n := len(r.items)
		fmt.Fprintf(tw, "%s\t%s\t%d\t", r.Recall, r.Questions, n)
		if n == 0 {
			fmt.Fprint(tw, "-\t-\t-\t-\t-\t-\t\n")
			continue
		}
		unit := "spans"
		if r.Papers {
			unit = "papers"
			fmt.Fprint(tw, "-\t-\t-\t-\t")
		} else {
			mean := float64(sum(r.tokens)) / float64(n)
			fmt.Fprintf(tw, "%.0f\t%.3f\t%.0f\t%d\t", mean, mean/float64(budget), median(r.tokens), slices.Max(r.tokens))
		}
		none := 0
		for _, k := range r.items {
			if k == 0 {
				none++
			}
		}
		fmt.Fprintf(tw, "%.3f\t%.1f %s\t\n", float64(none)/float64(n), float64(sum(r.items))/float64(n), unit)
	}
	return tw.Flush()
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// median is the middle of xs, or the mean of its two middle values; xs
// must not be empty.
func median(xs []int) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
}
