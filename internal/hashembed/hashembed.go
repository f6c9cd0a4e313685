// Package hashembed is papermem's offline embedder: feature hashing of
// words and character n-grams into a fixed number of
// dimensions. It needs no model and no network and is deterministic.
package hashembed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/terms"
)

// Embedder hashes text features into Dim dimensions. It is safe for
// concurrent use.
type Embedder struct {
	dim   int
	mask  uint64 // dim-1 when dim is a power of two, else 0
	cache wordCache
}

// New returns an embedder of dim dimensions (dim > 0).
func New(dim int) *Embedder {
	e := &Embedder{dim: dim, cache: wordCache{cur: map[string]features{}, seen: map[string]struct{}{}}}
	if dim > 1 && dim&(dim-1) == 0 {
		e.mask = uint64(dim - 1)
	}
	return e
}

// Name identifies the embedder and its feature scheme; it changes whenever
// the vectors it produces would.
func (e *Embedder) Name() string { return fmt.Sprintf("hash-v3-%d", e.dim) }

// Dim returns the vector length.
func (e *Embedder) Dim() int { return e.dim }

// Embed returns one L2-normalised vector per text.
func (e *Embedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vector(t)
	}
	return out, nil
}

// Feature weights. Measured on SciFact (devtools/cmd/scifact): character n-grams
// of 3 to 5 runes carry most of the signal; word pairs lowered it.
const (
	wordWeight   = 1.0
	ngramWeight  = 0.35
	ngramMin     = 3
	ngramMax     = 5
	ngramMinWord = 5 // words shorter than this add no character n-grams
)

func (e *Embedder) vector(text string) []float32 {
	return e.weighted(text, nil, nil)
}

// EmbedWeighted embeds one text with each word's features scaled by
// weight(word), where word is as Words returns it: a query embedded with
// its words' inverse document frequencies stresses the rare ones.
func (e *Embedder) EmbedWeighted(_ context.Context, text string, weight func(word string) float64) ([]float32, error) {
	return e.weighted(text, weight, nil), nil
}

// EmbedEach embeds text as EmbedWeighted does (weight may be nil) and
// calls each with every distinct word, as Words returns it, the number of
// times it occurs and its weight (1 without weight), in the order of first
// occurrence: an embedder that adds features of its own reads the text and
// weighs its words once.
func (e *Embedder) EmbedEach(text string, weight func(word string) float64, each func(word string, count int, weight float64)) []float32 {
	return e.weighted(text, weight, each)
}

// scratch is the working memory of one embedding, reused through a pool.
type scratch struct {
	v      []float64
	index  map[string]int // each distinct word's place in words
	words  []wordCount
	word   []byte   // the word eachWord is reading
	slots  []uint32 // the features of a word not cached
	gram   []byte   // a word's runes between '<' and '>', UTF-8 encoded
	starts []int    // the offset in gram of each rune, then len(gram)
}

type wordCount struct {
	word  string
	count int
}

var scratches = sync.Pool{New: func() any { return &scratch{index: map[string]int{}} }}

func (e *Embedder) weighted(text string, weight func(string) float64, each func(string, int, float64)) []float32 {
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	v := sc.v[:0]
	v = append(v, make([]float64, e.dim)...)
	sc.v = v
	// Words in the order they first occur: the sums below, and so the
	// vector's last bits, do not depend on a map's iteration order.
	clear(sc.index)
	words := sc.words[:0]
	sc.word = eachWord(text, sc.word, func(w []byte) {
		if i, ok := sc.index[string(w)]; ok {
			words[i].count++
			return
		}
		word := string(w)
		sc.index[word] = len(words)
		words = append(words, wordCount{word, 1})
	})
	sc.words = words
	for _, wc := range words {
		w := wc.word
		wt := 1.0
		if weight != nil {
			wt = weight(w)
		}
		if each != nil {
			each(w, wc.count, wt)
		}
		tf := (1 + math.Log(float64(wc.count))) * wt
		f, ok := e.cache.get(w)
		if !ok {
			f = e.features(w, sc)
			e.cache.computed(w, f)
		}
		// The word's own feature, then its n-grams by length.
		add(v, f.slots[:spread], wordWeight*tf)
		at := spread
		for n := ngramMin; f.runes > 0 && n <= ngramMax; n++ {
			grams := (f.runes - n + 1) * spread
			add(v, f.slots[at:at+grams], ngramWeight*tf/float64(f.runes-n+1)*2)
			at += grams
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, e.dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// spread is how many dimensions each feature touches. Spreading a feature
// over several signed dimensions (a sparse random projection) makes vectors
// dense, so that their sign bits preserve cosine similarity (SimHash) and a
// Hamming prefilter over them works.
const spread = 8

// features are the dimensions a word's features touch, spread of them
// per feature, in the order weighted adds them: the word itself, then,
// when it has ngramMinWord runes or more, the n-grams of "<" + word + ">"
// for n from ngramMin to ngramMax, left to right. runes counts the runes
// of "<" + word + ">", 0 without n-grams.
type features struct {
	runes int
	slots []uint32 // dimension<<1, | 1 when the weight is subtracted
}

// features computes the features of word w in sc's memory.
func (e *Embedder) features(w string, sc *scratch) features {
	f := features{slots: e.appendSlots(sc.slots[:0], fnv1a(fnv1a(fnvOffset, "w:"), w))}
	if utf8.RuneCountInString(w) >= ngramMinWord {
		// The n-grams of "<" + w + ">", rune by rune.
		gram, starts := append(sc.gram[:0], '<'), append(sc.starts[:0], 0)
		for _, r := range w {
			starts = append(starts, len(gram))
			gram = utf8.AppendRune(gram, r)
		}
		starts = append(starts, len(gram))
		gram = append(gram, '>')
		starts = append(starts, len(gram))
		sc.gram, sc.starts = gram, starts
		f.runes = len(starts) - 1
		for n := ngramMin; n <= ngramMax; n++ {
			for i := 0; i+n <= f.runes; i++ {
				f.slots = e.appendSlots(f.slots, fnv1a(fnvOffset, gram[starts[i]:starts[i+n]]))
			}
		}
	}
	sc.slots = f.slots
	return f
}

// appendSlots appends the spread signed dimensions of the feature with
// FNV-1a hash x.
func (e *Embedder) appendSlots(slots []uint32, x uint64) []uint32 {
	for range spread {
		// splitmix64 steps derive independent indices and signs.
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		var d uint64
		if e.mask != 0 {
			d = z & e.mask // z % dim, for a power of two
		} else {
			d = z % uint64(e.dim)
		}
		slots = append(slots, uint32(d<<1|z>>63))
	}
	return slots
}

// add adds w to the dimensions of slots, or subtracts it where a slot says
// so: adding w with its sign bit flipped is exactly subtracting it, without
// a branch the processor cannot predict.
func add(v []float64, slots []uint32, w float64) {
	bits := math.Float64bits(w)
	for _, s := range slots {
		v[s>>1] += math.Float64frombits(bits ^ uint64(s&1)<<63)
	}
}

// wordCache remembers the features of recent words that recur, in two
// generations: when the current one is full it becomes the old one, and
// the words looked up again move back. A word is kept the second time its
// features are computed, so that the many words seen once cost no memory.
// It holds at most 2*cacheWords words, some 5 MB for English text (an
// 8-letter word has 22 features, 704 bytes).
type wordCache struct {
	mu       sync.RWMutex
	cur, old map[string]features
	seen     map[string]struct{} // words computed once and not kept
}

// cacheWords is the size of one generation of the word cache.
const cacheWords = 4096

func (c *wordCache) get(w string) (features, bool) {
	c.mu.RLock()
	f, ok := c.cur[w]
	old := false
	if !ok {
		f, ok = c.old[w]
		old = ok
	}
	c.mu.RUnlock()
	if old {
		c.mu.Lock()
		c.put(w, f)
		c.mu.Unlock()
	}
	return f, ok
}

// computed records that the features of w were computed: the second time,
// it keeps a copy.
func (c *wordCache) computed(w string, f features) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[w]; !ok {
		if len(c.seen) >= 4*cacheWords {
			clear(c.seen)
		}
		c.seen[w] = struct{}{}
		return
	}
	delete(c.seen, w)
	f.slots = slices.Clone(f.slots)
	c.put(w, f)
}

// put adds w to the current generation; c.mu is locked.
func (c *wordCache) put(w string, f features) {
	if len(c.cur) >= cacheWords {
		c.old, c.cur = c.cur, make(map[string]features, cacheWords)
	}
	c.cur[w] = f
}

// FNV-1a, 64 bits, as hash/fnv computes it.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a continues FNV-1a hash h over the bytes of s.
func fnv1a[T string | []byte](h uint64, s T) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// Words returns the content words of text with a plural "s" stripped, so
// that simple inflections share features: the lower-case runs of letters
// and digits (terms.Words) that are not stop words (terms.Stop).
func Words(text string) []string {
	var ws []string
	eachWord(text, nil, func(w []byte) { ws = append(ws, string(w)) })
	return ws
}

// StripPlural returns the lower-case word w as Words returns it: without a
// final plural "s" when it has more than 4 letters and does not end in
// "ss".
func StripPlural[T string | []byte](w T) T {
	if n := len(w); n > 4 && w[n-1] == 's' && w[n-2] != 's' {
		return w[:n-1]
	}
	return w
}

// eachWord calls f with each word Words returns, in order, held in buf
// (returned for reuse), which f must not keep. It reads text once, as
// strings.ToLower and strings.FieldsFunc would: a rune is lowered with
// unicode.ToLower, an invalid byte reads as U+FFFD (a separator).
func eachWord(text string, buf []byte, f func(w []byte)) []byte {
	w := buf[:0]
	emit := func() {
		if len(w) == 0 || terms.Stop[string(w)] {
			return
		}
		f(StripPlural(w))
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
				w = append(w, c)
				continue
			}
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			i += n
			if r = unicode.ToLower(r); unicode.IsLetter(r) || unicode.IsDigit(r) {
				w = utf8.AppendRune(w, r)
				continue
			}
		}
		emit()
		w = w[:0]
	}
	emit()
	return w
}
