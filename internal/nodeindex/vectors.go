package nodeindex

import (
	"errors"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// Vector search keeps two quantisations of every node vector: its sign
// bits, and its components as int8 with one scale per vector. A Hamming
// scan over the bits picks prefilterFactor·k candidates, and the int8
// vectors score them by cosine similarity in process, within about 1% of
// the float score.
//
// Measured on this project's 2-core machine, sqlite-vec's vec0 kNN costs
// O(n·k) for its top-k selection and reads vectors row by row (100–500 ms at
// 35k vectors), and rescoring 800 float vectors read from node_vectors costs
// ~20 ms at 100k nodes (random page reads), against well under a
// millisecond for each step here.

// appendSigns appends the sign bits of v (bit i set when v[i] > 0, as
// sqlite-vec's vec_quantize_binary) as exactly n little-endian words.
func appendSigns(dst []uint64, v []float32, n int) []uint64 {
	start := len(dst)
	dst = append(dst, make([]uint64, n)...)
	words := dst[start:]
	for i, x := range v {
		// A set, not a branch: the signs are random, so a branch is
		// mispredicted half the time.
		var bit uint64
		if x > 0 {
			bit = 1
		}
		words[i/64] |= bit << (i % 64)
	}
	return dst
}

// prefilterFactor is how many Hamming candidates are rescored for each
// result wanted.
const prefilterFactor = 4

// The coarse pass. The sign bits of 64·coarseWords dense dimensions
// (Config.Coarse: for the offline embedder its word vectors, whose signs
// are set about half the time, where a hashed feature's are mostly unset)
// are kept apart, so that a large part's Hamming scan reads coarseWords
// words an entry instead of all of them: it keeps coarseFactor candidates
// for each one wanted, which all their bits then rank.
const (
	coarseWords  = 2
	coarseFactor = 8
)

// Nearest returns up to q.K nodes admitted by q with the highest cosine
// similarity to qv (unit length, of the index's dimensions), best first,
// each with a positive similarity; among equal scores the lower id ranks
// first. It fails only when a persisted part's vector file cannot be read.
func (p *Part) Nearest(q Query, qv []float32) ([]Hit, error) {
	if !slices.ContainsFunc(qv, func(x float32) bool { return x != 0 }) {
		return nil, nil // nothing to compare: the text has no features
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	f, ok := p.filter(q)
	if !ok {
		return nil, nil
	}
	cands := p.hamming(appendSigns(nil, qv, p.words), &f, prefilterFactor*q.K)
	// The candidates are rescored in as many shares as there are CPUs
	// (each reads its vectors from the file), and the best of each share
	// merged: the best of the whole, whatever the order.
	workers := max(1, min(runtime.GOMAXPROCS(0), len(cands)/rescoreChunk))
	tops := make([]topHits, workers)
	errs := make([]error, workers)
	parallel(workers, func(k int) {
		buf := newVecBuf(p.dim)
		for _, e := range cands[k*len(cands)/workers : (k+1)*len(cands)/workers] {
			s, err := p.cosine(e, qv, buf)
			if err != nil {
				errs[k] = err
				return
			}
			if s > 0 {
				tops[k].push(hit{int32(e), s}, q.K)
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	best := tops[0]
	for _, t := range tops[1:] {
		for _, h := range t {
			best.push(h, q.K)
		}
	}
	return p.hits(best), nil
}

// rescoreChunk is the fewest candidates a goroutine of Nearest rescores.
const rescoreChunk = 256

// Cosine returns the cosine similarity of node id's vector with unit
// vector qv, and false when id is not in the part.
func (p *Part) Cosine(id int64, qv []float32) (float64, bool, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.entry(id)
	if !ok {
		return 0, false, nil
	}
	c, err := p.cosine(e, qv, newVecBuf(p.dim))
	return c, err == nil, err
}

// cosine returns the cosine similarity of entry e's vector with unit
// vector qv, reading the vector into buf when it is on disk.
func (p *Part) cosine(e int, qv []float32, buf *vecBuf) (float64, error) {
	row, err := p.vecs.read(e, buf)
	if err != nil {
		return 0, err
	}
	var dot float32
	for i, x := range row {
		dot += float32(x) * qv[i]
	}
	return float64(dot * p.scales[e]), nil
}

// Mean returns the mean vector of the nodes of hs, as the index holds
// them (of its dimensions): the sum of the vectors of those in the part
// over len(hs).
func (p *Part) Mean(hs []Hit) ([]float32, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	mean := make([]float32, p.dim)
	buf := newVecBuf(p.dim)
	for _, h := range hs {
		e, ok := p.entry(h.ID)
		if !ok {
			continue
		}
		row, err := p.vecs.read(e, buf)
		if err != nil {
			return nil, err
		}
		for i, x := range row {
			mean[i] += float32(x) * p.scales[e] / float32(len(hs))
		}
	}
	return mean, nil
}

// distances recycles scan's per-entry distances.
var distances = sync.Pool{New: func() any { return new([]uint16) }}

// notAdmitted is the distance scan gives an entry its filter leaves out.
const notAdmitted = math.MaxUint16

// scanChunk is the fewest entries a goroutine of scan takes: a large part
// is scanned by as many goroutines as there are CPUs.
const scanChunk = 1 << 16

// hamming returns the (about) n entries admitted by f nearest to query (a
// vector's sign bits, all its words) in Hamming distance, in entry order.
// A part of more than coarseFactor·n entries is scanned in two passes: the
// coarse words of every entry pick coarseFactor·n, and all their words the
// n. The caller holds p.mu.
func (p *Part) hamming(query []uint64, f *entryFilter, n int) []int {
	return p.hammingBy(query, f, n, max(1, min(runtime.GOMAXPROCS(0), len(p.ids)/scanChunk)))
}

// hammingBy is hamming with each scan split among workers goroutines.
func (p *Part) hammingBy(query []uint64, f *entryFilter, n, workers int) []int {
	qc := query[p.coarseAt : p.coarseAt+p.coarseN]
	qr := slices.Concat(query[:p.coarseAt], query[p.coarseAt+p.coarseN:])
	m := coarseFactor * n
	if len(qr) == 0 || len(p.ids) <= m {
		return p.scan(qc, qr, f, n, workers)
	}
	cands := p.scan(qc, nil, f, m, workers)
	dist := make([]uint16, len(cands))
	hist := make([]int, 64*p.words+1)
	for k, e := range cands {
		d := p.distance(qc, p.coarse, e) + p.distance(qr, p.bits, e)
		dist[k] = uint16(d)
		hist[d]++
	}
	out := nearest(dist, hist, n)
	for k, j := range out {
		out[k] = cands[j]
	}
	return out
}

// scan returns the (about) n entries admitted by f nearest in Hamming
// distance to the coarse words qc and, unless nil, the other words qr, in
// entry order, split among workers goroutines.
func (p *Part) scan(qc, qr []uint64, f *entryFilter, n, workers int) []int {
	size := len(p.ids)
	buf := distances.Get().(*[]uint16)
	defer distances.Put(buf)
	if len(*buf) < size {
		*buf = make([]uint16, size)
	}
	dist := (*buf)[:size]
	admitted := p.admitted(f)
	hists := make([][]int, workers)
	per := (size + workers - 1) / workers
	bounds := func(k int) (lo, hi int) { return min(size, k*per), min(size, (k+1)*per) }
	parallel(workers, func(k int) {
		hists[k] = make([]int, 64*(len(qc)+len(qr))+1)
		lo, hi := bounds(k)
		p.distances(qc, qr, admitted, dist, hists[k], lo, hi)
	})
	total := slices.Clone(hists[0])
	for _, h := range hists[1:] {
		for d, c := range h {
			total[d] += c
		}
	}
	// Each goroutine takes the entries of its range under the cut-off, and
	// as many at the cut-off as those of the ranges before it leave room for.
	cut, room := cutoff(total, n)
	rooms := make([]int, workers)
	for k, h := range hists {
		rooms[k] = max(0, room)
		if int(cut) < len(h) {
			room -= h[cut]
		}
	}
	outs := make([][]int, workers)
	parallel(workers, func(k int) {
		lo, hi := bounds(k)
		outs[k] = collect(dist[lo:hi], lo, cut, rooms[k])
	})
	return slices.Concat(outs...)
}

// parallel calls fn(0) to fn(workers-1), each in its own goroutine when
// there are several, and returns when all have.
func parallel(workers int, fn func(k int)) {
	if workers == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() { fn(k) })
	}
	wg.Wait()
}

// nearest returns the positions of the (about) n smallest distances in
// dist, in order, given hist, the count of each distance below
// notAdmitted; among the distances at the cut-off, the first ones are
// taken.
func nearest(dist []uint16, hist []int, n int) []int {
	cut, room := cutoff(hist, n)
	return collect(dist, 0, cut, room)
}

// cutoff returns the distance cut under which hist, the count of each
// distance, holds at most n, and room, how many at cut fill up to n: a
// histogram finds the cut-off, so that selection is linear.
func cutoff(hist []int, n int) (cut uint16, room int) {
	c, total := 0, 0
	for c < len(hist) && total+hist[c] <= n {
		total += hist[c]
		c++
	}
	return uint16(c), n - total
}

// collect returns the positions, plus base, of the distances of dist
// under cut and of the first room at cut, in order.
func collect(dist []uint16, base int, cut uint16, room int) []int {
	var out []int
	// The cut is below notAdmitted, and nearly every distance is beyond it,
	// so one test passes over most.
	for i, d := range dist {
		if d > cut {
			continue
		}
		if d < cut || room > 0 {
			if d == cut {
				room--
			}
			out = append(out, base+i)
		}
	}
	return out
}

// distances sets dist[i] to the Hamming distance of entry i's sign bits
// from qc (its coarse words) and qr (the others, unless nil), for entries
// lo to hi-1, notAdmitted for those not in admitted (nil for all), and
// counts the distances in hist.
func (p *Part) distances(qc, qr, admitted []uint64, dist []uint16, hist []int, lo, hi int) {
	if qr == nil && len(qc) == 2 {
		p.coarseDistances(qc[0], qc[1], admitted, dist, hist, lo, hi)
		return
	}
	for i := lo; i < hi; i++ {
		if !has(admitted, i) {
			dist[i] = notAdmitted
			continue
		}
		d := p.distance(qc, p.coarse, i)
		if qr != nil {
			d += p.distance(qr, p.bits, i)
		}
		dist[i] = uint16(d)
		hist[d]++
	}
}

// coarseDistances is distances over two coarse words alone, the coarse
// pass of a large part: its loop is what a search spends most on. It has
// no branch on the filter, which admits entries in no order a branch
// predictor could learn, and a loop of its own for a filter that admits
// all (nil), a third faster.
func (p *Part) coarseDistances(q0, q1 uint64, admitted []uint64, dist []uint16, hist []int, lo, hi int) {
	rows := p.coarse[2*lo : 2*hi]
	dist = dist[lo:hi]
	hist = hist[:2*64+1]
	if admitted == nil {
		for k := range dist {
			d := bits.OnesCount64(q0^rows[2*k]) + bits.OnesCount64(q1^rows[2*k+1])
			dist[k] = uint16(d)
			hist[d]++
		}
		return
	}
	for k := range dist {
		i := lo + k
		in := admitted[i/64] >> (i % 64) & 1 // 1 when admitted
		d := bits.OnesCount64(q0^rows[2*k]) + bits.OnesCount64(q1^rows[2*k+1])
		dist[k] = uint16(d) | uint16(in-1) // notAdmitted when not
		hist[d] += int(in)
	}
}

// distance returns the Hamming distance of q from entry i's row of rows,
// which holds len(q) words an entry.
func (p *Part) distance(q, rows []uint64, i int) int {
	w := len(q)
	d := 0
	for j, r := range rows[i*w : i*w+w] {
		d += bits.OnesCount64(q[j] ^ r)
	}
	return d
}

// signWord returns word w of the sign bits of the entry whose coarse
// words begin at p.coarse[cs] and other words at p.bits[bs].
func (p *Part) signWord(cs, bs, w int) *uint64 {
	switch {
	case w < p.coarseAt:
		return &p.bits[bs+w]
	case w < p.coarseAt+p.coarseN:
		return &p.coarse[cs+w-p.coarseAt]
	default:
		return &p.bits[bs+w-p.coarseN]
	}
}

// Normalize scales v to unit length in place, as the vectors the index
// holds and the queries it compares them with are; a zero vector stays
// zero.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}
