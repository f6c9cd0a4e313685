package relatedness_test

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/papermem/papermem/internal/relatedness"
)

// TestRelatedPairsBruteForce checks the inverted-index search against all
// pairs compared directly, on random links with a small hub cap.
func TestRelatedPairsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	pairs, hubs, hubOnly := 0, 0, 0
	for trial := range 20 {
		const sessions, papers, hub = 60, 40, 12
		var links []relatedness.Link
		sets := map[int64]map[int64]bool{}
		for s := int64(1); s <= sessions; s++ {
			if r.IntN(10) == 0 {
				continue // a session without papers
			}
			sets[s] = map[int64]bool{}
			for range 1 + r.IntN(8) {
				p := int64(1 + r.IntN(papers))
				if r.IntN(3) == 0 {
					p = int64(1 + r.IntN(3)) // papers 1–3 are popular: hubs
				}
				if !sets[s][p] {
					sets[s][p] = true
					links = append(links, relatedness.Link{Session: s * 7, Paper: p}) // sparse row ids
				}
			}
		}
		perPaper := map[int64]int{}
		for _, l := range links {
			perPaper[l.Paper]++
		}
		for _, n := range perPaper {
			if n > hub {
				hubs++
			}
		}
		threshold := []float64{0.1, 0.2, 0.5, 1}[trial%4]

		var want []relatedness.Pair
		for a := int64(1); a <= sessions; a++ {
			for b := a + 1; b <= sessions; b++ {
				A, B := sets[a], sets[b]
				inter, viaNonHub := 0, false
				for p := range A {
					if B[p] {
						inter++
						viaNonHub = viaNonHub || perPaper[p] <= hub
					}
				}
				if !viaNonHub {
					if inter > 0 {
						hubOnly++
					}
					continue // only hubs shared: documented as not found
				}
				jac := float64(inter) / float64(len(A)+len(B)-inter)
				if jac >= threshold {
					want = append(want, relatedness.Pair{A: a * 7, B: b * 7, Weight: jac})
				}
			}
		}
		pairs += len(want)
		got := relatedness.Pairs(links, threshold, hub)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("trial %d, threshold %v (-brute force +inverted index):\n%s", trial, threshold, diff)
		}
	}
	// The data must exercise every case: pairs found, hub papers, and
	// pairs that share only hubs.
	if pairs == 0 || hubs == 0 || hubOnly == 0 {
		t.Fatalf("degenerate data: %d pairs, %d hubs, %d hub-only overlaps", pairs, hubs, hubOnly)
	}
	t.Logf("%d related pairs, %d hub papers, %d hub-only overlaps", pairs, hubs, hubOnly)
}
