package hashembed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem/internal/terms"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedder(t *testing.T) {
	e := New(256)
	vs, err := e.Embed(context.Background(), []string{
		"Vitamin D supplementation reduces fracture risk",
		"vitamin D supplements lower the risk of fractures",
		"Transformer models for machine translation",
		"",
	})
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, x := range vs[0] {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-5 {
		t.Errorf("norm² = %v, want 1", n)
	}
	if near, far := cos(vs[0], vs[1]), cos(vs[0], vs[2]); near <= far {
		t.Errorf("related texts cos %.3f <= unrelated %.3f", near, far)
	}
	again, _ := e.Embed(context.Background(), []string{"Vitamin D supplementation reduces fracture risk"})
	if cos(vs[0], again[0]) < 0.9999 {
		t.Error("embedding is not deterministic")
	}
	for _, x := range vs[3] {
		if x != 0 {
			t.Fatal("empty text has a non-zero vector")
		}
	}
}

func BenchmarkEmbed(b *testing.B) {
	e := New(512)
	texts := []string{"Treatment with 4-PBA decreased endoplasmic reticulum stress markers by 40% in mice, compared with untreated controls."}
	b.SetBytes(int64(len(texts[0])))
	for b.Loop() {
		e.Embed(context.Background(), texts)
	}
}

// digest hashes the bits of vectors.
func digest(vs ...[]float32) string {
	h := sha256.New()
	for _, v := range vs {
		for _, x := range v {
			binary.Write(h, binary.LittleEndian, math.Float32bits(x))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// Stored vectors and recall evaluations depend on the exact output, which
// these digests pin. They were taken when words were first summed in the
// order they occur; before, a map's order decided the vectors' last bits.
func TestVectorsPinned(t *testing.T) {
	texts := []string{
		"Vitamin D supplementation reduces fracture risk",
		"Treatment with 4-PBA decreased endoplasmic reticulum stress markers by 40% (p < 0.01) in mice, compared with untreated controls.",
		"Ünïcödé façade naïve 日本語のテキスト Straße ΑΒΓ supplementations supplementation supplementation",
		"",
	}
	idf := func(w string) float64 { return 1 + float64(len(w))/3 }
	want := map[int][]string{
		512: {"2c9ffcc66ffc0f25bba295d2", "6b04869b8985a52f7e49691b", "f877687cbae7829a1a6dc1c3", "e5a00aa9991ac8a5ee310984", "06f94b23c7bcb2adf1ac28ea"},
		256: {"7ff2746317653a8377c6dcce", "da6808e7f08ed4a38931e533", "9b29ebfd62bdcda51398ab34", "5f70bf18a086007016e948b0", "2e35059eacc16bca12ade472"},
		100: {"638fc63c7e74a4155c8635b7", "a34a0ee1678022b94c35e257", "e47535035b28196ab99bc4f8", "7a12e561363385e9dfeeab32", "662f4c6592d37a1126ded089"},
	}
	for dim, want := range want {
		e := New(dim)
		vs, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		wv, err := e.EmbedWeighted(context.Background(), texts[1], idf)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{digest(vs[0]), digest(vs[1]), digest(vs[2]), digest(vs[3]), digest(wv)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("dim %d: vectors changed (-want +got):\n%s", dim, diff)
		}
	}
}

// referenceWords is Words as it was before it read text in one pass.
func referenceWords(text string) []string {
	ws := terms.Content(text)
	for i, w := range ws {
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			ws[i] = w[:len(w)-1]
		}
	}
	return ws
}

// referenceVector is weighted as it was before it was made faster: the
// straightforward reading, which the fast one must match bit for bit.
func referenceVector(e *Embedder, text string, weight func(string) float64) []float32 {
	v := make([]float64, e.dim)
	// Words in the order they first occur: the sums below, and so the
	// vector's last bits, do not depend on a map's iteration order.
	counts := map[string]int{}
	var order []string
	for _, w := range referenceWords(text) {
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
		referenceAdd(e, v, "w:"+w, wordWeight*tf)
		if r := []rune(w); len(r) >= ngramMinWord {
			pr := []rune("<" + w + ">")
			for n := ngramMin; n <= ngramMax; n++ {
				for i := 0; i+n <= len(pr); i++ {
					referenceAdd(e, v, string(pr[i:i+n]), ngramWeight*tf/float64(len(pr)-n+1)*2)
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

// referenceAdd is add as it was, hashing the feature with hash/fnv.
func referenceAdd(e *Embedder, v []float64, f string, w float64) {
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

func TestMatchesReference(t *testing.T) {
	var texts []string
	for _, g := range []string{"txt/*", "md/*", "csv_tsv/*", "json/*"} {
		paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "testdocs", g))
		for _, path := range paths {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, strings.Split(string(b), "\n\n")...)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyz ABCDE éüß日本語ΑΒΓ .,'-0123456789\n\ufffd")
	for range 2000 {
		var b strings.Builder
		for range r.IntN(200) {
			if r.IntN(50) == 0 {
				b.WriteByte(byte(0x80 + r.IntN(0x80))) // invalid UTF-8
			} else {
				b.WriteRune(alphabet[r.IntN(len(alphabet))])
			}
		}
		texts = append(texts, b.String())
	}
	idf := func(w string) float64 { return 1 + math.Log(1+float64(len(w))) }
	for _, dim := range []int{512, 256, 100} {
		e := New(dim)
		for _, text := range texts {
			for _, weight := range []func(string) float64{nil, idf} {
				got, want := e.weighted(text, weight, nil), referenceVector(e, text, weight)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("dim %d, %q: component %d is %v, reference %v", dim, text, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"Vitamin D supplements lower the risk of fractures", "ÜBER Straße İstanbul ΣΊΣΥΦΟΣ 日本語 १२३", "classes glass bus buses", "a\xffb\xe6\x97 c", "\u212aelvin ſs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, want := Words(text), referenceWords(text)
		if len(want) == 0 {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Words(%q) = %q, want %q", text, got, want)
		}
	})
}

// Embedders are shared by concurrent ingests; their word cache must not
// change any vector.
func TestConcurrentEmbed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	words := strings.Fields("glacier glaciers melting ice sheet retreat temperature warming rapid measured annual loss mass balance model predicts sea level rise")
	texts := make([]string, 400)
	for i := range texts {
		var b strings.Builder
		for range 5 + r.IntN(30) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		for j := range 12 { // new words in every text, so that the cache turns over
			fmt.Fprintf(&b, " word%dx%d", i, j)
		}
		texts[i] = b.String()
	}
	want := make([][]float32, len(texts))
	for i, text := range texts {
		want[i] = referenceVector(New(256), text, nil)
	}
	e := New(256)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, text := range texts {
				if got := e.vector(text); !slices.Equal(got, want[i]) {
					t.Errorf("text %d differs from the reference", i)
					return
				}
			}
		})
	}
	wg.Wait()
}
