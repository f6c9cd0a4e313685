package hashembed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
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
