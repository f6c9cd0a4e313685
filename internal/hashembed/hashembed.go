// Package hashembed is papermem's offline embedder: feature hashing of
// words and character n-grams into a fixed number of
// dimensions. It needs no model and no network and is deterministic.
package hashembed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/papermem/papermem/internal/terms"
)

// Embedder hashes text features into Dim dimensions.
type Embedder struct {
	dim int
}

// New returns an embedder of dim dimensions (dim > 0).
func New(dim int) *Embedder { return &Embedder{dim: dim} }

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

// Feature weights. Measured on SciFact (cmd/scifact): character n-grams
// of 3 to 5 runes carry most of the signal; word pairs lowered it.
const (
	wordWeight   = 1.0
	ngramWeight  = 0.35
	ngramMin     = 3
	ngramMax     = 5
	ngramMinWord = 5 // words shorter than this add no character n-grams
)

func (e *Embedder) vector(text string) []float32 {
	return e.weighted(text, nil)
}

// EmbedWeighted embeds one text with each word's features scaled by
// weight(word), where word is as Words returns it: a query embedded with
// its words' inverse document frequencies stresses the rare ones.
func (e *Embedder) EmbedWeighted(_ context.Context, text string, weight func(word string) float64) ([]float32, error) {
	return e.weighted(text, weight), nil
}

func (e *Embedder) weighted(text string, weight func(string) float64) []float32 {
	v := make([]float64, e.dim)
	// Words in the order they first occur: the sums below, and so the
	// vector's last bits, do not depend on a map's iteration order.
	counts := map[string]int{}
	var order []string
	for _, w := range Words(text) {
		if counts[w] == 0 {
			order = append(order, w)
		}
		counts[w]++
	}
	for _, w := range order {
		c := counts[w]
		tf := 1 + math.Log(float64(c))
		if weight != nil {
			tf *= weight(w)
		}
		e.add(v, "w:"+w, wordWeight*tf)
		if r := []rune(w); len(r) >= ngramMinWord {
			pr := []rune("<" + w + ">")
			for n := ngramMin; n <= ngramMax; n++ {
				for i := 0; i+n <= len(pr); i++ {
					e.add(v, string(pr[i:i+n]), ngramWeight*tf/float64(len(pr)-n+1)*2)
				}
			}
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

// add adds weight w of feature f to spread dimensions with hashed signs.
func (e *Embedder) add(v []float64, f string, w float64) {
	h := fnv.New64a()
	h.Write([]byte(f))
	x := h.Sum64()
	for range spread {
		// splitmix64 steps derive independent indices and signs.
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		if z>>63 == 1 {
			v[z%uint64(e.dim)] -= w
		} else {
			v[z%uint64(e.dim)] += w
		}
	}
}

// Words returns the content words of text with a plural "s" stripped, so
// that simple inflections share features.
func Words(text string) []string {
	ws := terms.Content(text)
	for i, w := range ws {
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			ws[i] = w[:len(w)-1]
		}
	}
	return ws
}
