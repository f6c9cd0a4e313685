package hashembed

import (
	"context"
	"math"
	"testing"
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
