// Package relatedness finds the pairs of sessions whose paper sets overlap
// enough: the Jaccard kernel behind papermem's Workspace.Materialize.
//
// Candidate pairs come from an inverted index paper → sessions, never from
// all pairs of sessions, so sessions that share no paper cost nothing; the
// sets are held as compressed sparse row matrices over dense indexes.
package relatedness

import (
	"cmp"
	"slices"
)

// Link is one session → paper link by row ids.
type Link struct{ Session, Paper int64 }

// Pair is a wanted related edge between session rows A < B, weighing the
// Jaccard index of their paper sets.
type Pair struct {
	A, B   int64
	Weight float64
}

// jaccardSlack absorbs rounding when an index equals the threshold.
const jaccardSlack = 1e-12

// Pairs returns, ordered by (A, B), every pair of sessions whose paper
// sets have a Jaccard index >= threshold, found through the inverted index
// paper → sessions as papermem's Workspace.Materialize describes. Papers
// linked by more than hub sessions generate no pairs but count in every
// pair's index. Links sorted by (session, paper) are used in place, and
// duplicates among them may be overwritten.
func Pairs(links []Link, threshold float64, hub int) []Pair {
	// Dense indexes in row-id order: with links sorted by (session,
	// paper), every row of the matrices below comes out sorted, and i < j
	// means a < b.
	byLink := func(x, y Link) int {
		if x.Session != y.Session {
			return cmp.Compare(x.Session, y.Session)
		}
		return cmp.Compare(x.Paper, y.Paper)
	}
	if !slices.IsSortedFunc(links, byLink) {
		links = slices.SortedFunc(slices.Values(links), byLink)
	}
	links = slices.Compact(links)
	var sessIDs []int64
	paperIDs := make([]int64, 0, len(links))
	for _, l := range links {
		if len(sessIDs) == 0 || sessIDs[len(sessIDs)-1] != l.Session {
			sessIDs = append(sessIDs, l.Session)
		}
		paperIDs = append(paperIDs, l.Paper)
	}
	slices.Sort(paperIDs)
	paperIDs = slices.Compact(paperIDs)
	paperIdx := make(map[int64]int32, len(paperIDs))
	for i, id := range paperIDs {
		paperIdx[id] = int32(i)
	}
	n, np := len(sessIDs), len(paperIDs)
	ls, lp := make([]int32, len(links)), make([]int32, len(links))
	for k, i := 0, int32(-1); k < len(links); k++ {
		if k == 0 || links[k].Session != links[k-1].Session {
			i++
		}
		ls[k], lp[k] = i, paperIdx[links[k].Paper]
	}
	byPaper := csr(np, func(emit func(row, col int32)) {
		for k := range ls {
			emit(lp[k], ls[k])
		}
	})
	isHub := make([]bool, np)
	for p := range np {
		isHub[p] = len(byPaper.row(int32(p))) > hub
	}
	bySession := csr(n, func(emit func(row, col int32)) {
		for k := range ls {
			emit(ls[k], lp[k])
		}
	})
	hubs := csr(n, func(emit func(row, col int32)) {
		for k := range ls {
			if isHub[lp[k]] {
				emit(ls[k], lp[k])
			}
		}
	})

	var out []Pair
	count := make([]int32, n)
	var touched []int32
	for i := range int32(n) {
		for _, p := range bySession.row(i) {
			if isHub[p] {
				continue
			}
			ss := byPaper.row(p)
			k, _ := slices.BinarySearch(ss, i+1)
			for _, j := range ss[k:] {
				if count[j] == 0 {
					touched = append(touched, j)
				}
				count[j]++
			}
		}
		si := len(bySession.row(i))
		for _, j := range touched {
			inter := int(count[j]) + intersectSorted(hubs.row(i), hubs.row(j))
			union := si + len(bySession.row(j)) - inter
			jac := float64(inter) / float64(union)
			if jac+jaccardSlack >= threshold {
				out = append(out, Pair{A: sessIDs[i], B: sessIDs[j], Weight: jac})
			}
			count[j] = 0
		}
		touched = touched[:0]
	}
	slices.SortFunc(out, func(x, y Pair) int {
		if x.A != y.A {
			return cmp.Compare(x.A, y.A)
		}
		return cmp.Compare(x.B, y.B)
	})
	return out
}

// compressed is a compressed sparse row matrix: row r's columns are
// cols[start[r]:start[r+1]], in the order they were emitted.
type compressed struct {
	start []int32
	cols  []int32
}

func (c compressed) row(r int32) []int32 { return c.cols[c.start[r]:c.start[r+1]] }

// csr builds a compressed matrix of rows rows from the (row, col) pairs
// fill emits. fill is called twice and must emit the same pairs.
func csr(rows int, fill func(emit func(row, col int32))) compressed {
	start := make([]int32, rows+1)
	fill(func(r, _ int32) { start[r+1]++ })
	for r := range rows {
		start[r+1] += start[r]
	}
	cols := make([]int32, start[rows])
	next := slices.Clone(start[:rows])
	fill(func(r, c int32) {
		cols[next[r]] = c
		next[r]++
	})
	return compressed{start: start, cols: cols}
}

// intersectSorted counts the values two sorted slices share.
func intersectSorted(a, b []int32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}
