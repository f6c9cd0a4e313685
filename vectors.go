package papermem

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

// Vector search runs over the node index (index.go), which keeps two
// quantisations of every node vector: its sign bits, and its components as
// int8 with one scale per vector. A Hamming scan over the bits picks
// prefilterFactor·k candidates, and the int8 vectors score them by cosine
// similarity in process, within about 1% of the float score.
//
// Measured on this project's 2-core machine, sqlite-vec's vec0 kNN costs
// O(n·k) for its top-k selection and reads vectors row by row (100–500 ms at
// 35k vectors), and rescoring 800 float vectors read from node_vectors costs
// ~20 ms at 100k nodes (random page reads), against well under a
// millisecond for each step here.

// appendWords appends bit vector b as exactly n little-endian words.
func appendWords(dst []uint64, b []byte, n int) []uint64 {
	var buf [8]byte
	for i := range n {
		clear(buf[:])
		if 8*i < len(b) {
			copy(buf[:], b[8*i:])
		}
		dst = append(dst, binary.LittleEndian.Uint64(buf[:]))
	}
	return dst
}

// appendInt8 appends v quantised to int8 and returns the scale s with
// v[i] ≈ s·q[i].
func appendInt8(dst []int8, v []float32) ([]int8, float32) {
	var top float32
	for _, x := range v {
		top = max(top, x, -x)
	}
	if top == 0 {
		return append(dst, make([]int8, len(v))...), 0
	}
	f := 127 / top
	n := len(dst)
	dst = append(dst, make([]int8, len(v))...)
	out := dst[n:]
	for i, x := range v {
		// Round half away from zero, as math.Round, in float32: |x·f| ≤ 127,
		// so adding ½ is exact.
		y := x * f
		if y < 0 {
			y -= 0.5
		} else {
			y += 0.5
		}
		out[i] = int8(y)
	}
	return dst, top / 127
}

// hit is a node found by a search with the search's score: BM25 for the
// full-text search, cosine similarity for the vector search.
type hit struct {
	id    int64
	score float64
}

// prefilterFactor is how many Hamming candidates are rescored for each
// result wanted.
const prefilterFactor = 4

// nearest returns up to q.k nodes of part p with the highest cosine
// similarity to qv (unit length), best first, each with a positive
// similarity.
func (x *nodeIndex) nearest(p *orgIndex, q searchQuery, qv []float32) []hit {
	if !slices.ContainsFunc(qv, func(x float32) bool { return x != 0 }) {
		return nil // nothing to compare: the text has no features
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	f, ok := p.filter(q)
	if !ok {
		return nil
	}
	query := appendWords(nil, bitsBlob(qv), x.words)
	best := make(topHits, 0, q.k)
	for _, e := range p.hamming(query, &f, prefilterFactor*q.k) {
		if s := p.cosine(e, qv); s > 0 {
			best.push(hit{p.ids[e], s}, q.k)
		}
	}
	slices.SortFunc(best, func(a, b hit) int { return cmpHits(b, a) })
	return best
}

// cosine returns the cosine similarity of entry e's vector with unit
// vector qv.
func (p *orgIndex) cosine(e int, qv []float32) float64 {
	row := p.vecs[e*len(qv) : (e+1)*len(qv)]
	var dot float32
	for i, x := range row {
		dot += float32(x) * qv[i]
	}
	return float64(dot * p.scales[e])
}

// distances recycles hamming's per-entry distances.
var distances = sync.Pool{New: func() any { return new([]int32) }}

// hamming returns the (about) n entries admitted by f nearest to query in
// Hamming distance: a histogram of distances finds the cut-off, so
// selection is linear. The caller holds p.mu.
func (p *orgIndex) hamming(query []uint64, f *entryFilter, n int) []int {
	w := len(query)
	buf := distances.Get().(*[]int32)
	defer distances.Put(buf)
	if len(*buf) < len(p.ids) {
		*buf = make([]int32, len(p.ids))
	}
	dist := (*buf)[:len(p.ids)]
	hist := make([]int, 64*w+1)
	for i := range p.ids {
		if !p.admits(i, f) {
			dist[i] = -1
			continue
		}
		d := 0
		row := p.bits[i*w : i*w+w]
		for j, qw := range query {
			d += bits.OnesCount64(qw ^ row[j])
		}
		dist[i] = int32(d)
		hist[d]++
	}
	cut, total := 0, 0
	for cut < len(hist) && total+hist[cut] <= n {
		total += hist[cut]
		cut++
	}
	// Entries at distance < cut all fit; fill up with entries at cut.
	room := n - total
	var out []int
	for i, d := range dist {
		switch {
		case d < 0:
		case int(d) < cut:
			out = append(out, i)
		case int(d) == cut && room > 0:
			out = append(out, i)
			room--
		}
	}
	return out
}
