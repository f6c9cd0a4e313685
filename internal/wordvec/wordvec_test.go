package wordvec

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
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

func TestTable(t *testing.T) {
	tab, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.weights) != 50000 || len(tab.vecs) != 50000*wordDim || len(tab.index) < 50000 {
		t.Fatalf("table of %d words, %d values, %d indexed", len(tab.weights), len(tab.vecs), len(tab.index))
	}
	for _, w := range []string{"the", "taekwondo", "painting", "kickboxing"} {
		if _, ok := tab.index[w]; !ok {
			t.Errorf("%q is not in the table", w)
		}
	}
	// Words as hashembed reads them: "analysis" without its "s", but
	// "kid", a word of its own, not as "kids".
	if tab.index["analysi"] != tab.index["analysis"] || tab.index["kid"] == tab.index["kids"] {
		t.Error("the table does not read words with a plural s stripped")
	}
	// Smooth inverse frequency: the most frequent word weighs least.
	if tab.weights[tab.index["the"]] >= tab.weights[tab.index["taekwondo"]] {
		t.Error("'the' weighs as much as 'taekwondo'")
	}
}

func TestParseRejects(t *testing.T) {
	good := table1()
	if _, err := parse(good); err != nil {
		t.Fatalf("a well-formed table: %v", err)
	}
	bad := map[string][]byte{
		"empty":         nil,
		"magic":         append([]byte("PMWV2\n"), good[6:]...),
		"truncated":     good[:len(good)-1],
		"trailing":      append(append([]byte{}, good...), 0),
		"dimension":     append([]byte("PMWV1\n\x01\x05"), good[8:]...),
		"no words":      []byte("PMWV1\n\x00\x64"),
		"long word":     []byte("PMWV1\n\x01\x64\x7f"),
		"rank 0":        []byte("PMWV1\n\x01\x64\x01a\x00"),
		"count too big": []byte("PMWV1\n\xff\xff\xff\xff\x0f\x64"),
	}
	for name, b := range bad {
		if _, err := parse(b); err == nil {
			t.Errorf("%s: a bad table was accepted", name)
		}
	}
}

// table1 is a table of one word, "a", of rank 1.
func table1() []byte {
	b := []byte("PMWV1\n\x01\x64\x01a\x01")
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(0.5))
	for i := range wordDim {
		b = append(b, byte(int8(i-50)))
	}
	return b
}

// FuzzParse checks that no input makes parse panic, and that what it
// accepts is consistent.
func FuzzParse(f *testing.F) {
	f.Add(table1())
	f.Add(gloveBin[:300])
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := parse(b)
		if err != nil {
			return
		}
		if len(tab.vecs) != len(tab.weights)*wordDim {
			t.Fatalf("%d values for %d words", len(tab.vecs), len(tab.weights))
		}
		for w, i := range tab.index {
			if int(i) >= len(tab.weights) {
				t.Fatalf("%q indexes word %d of %d", w, i, len(tab.weights))
			}
		}
	})
}

// The word vectors relate texts that share no word; hashed features alone
// do not.
func TestRelatesMeaning(t *testing.T) {
	e := New()
	texts := []string{
		"Which martial arts has John practised?",
		"I'm off to do some taekwondo and kickboxing!",
		"We bought groceries and a new dishwasher.",
	}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if related, unrelated := cos(vs[0], vs[1]), cos(vs[0], vs[2]); related < unrelated+0.1 {
		t.Errorf("cosine with a related text %.3f, with an unrelated one %.3f", related, unrelated)
	}
	hs, _ := e.hash.Embed(context.Background(), texts)
	if related, unrelated := cos(hs[0], hs[1]), cos(hs[0], hs[2]); related >= unrelated+0.1 {
		t.Errorf("hashed features alone relate the texts: %.3f against %.3f", related, unrelated)
	}
	for _, v := range vs {
		if len(v) != Dim || math.Abs(cos(v, v)-1) > 1e-5 || v[Dim-1] != 0 {
			t.Fatalf("vector of %d dimensions, norm² %f, last %f", len(v), cos(v, v), v[Dim-1])
		}
	}
	// A text with no known word still has its hashed features.
	v, _ := e.Embed(context.Background(), []string{"Xqzzyv"})
	if math.Abs(cos(v[0], v[0])-1) > 1e-5 {
		t.Error("an unknown word has no vector")
	}
}

func digest(v []float32) string {
	h := sha256.New()
	for _, x := range v {
		binary.Write(h, binary.LittleEndian, math.Float32bits(x))
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// TestVectorsPinned fails when the vectors change: then Name must change
// too, so that stored vectors are never compared with new ones.
func TestVectorsPinned(t *testing.T) {
	e := New()
	if e.Name() != "offline-v1-hash-v3-512-glove50000" {
		t.Errorf("name %q", e.Name())
	}
	texts := []string{
		"Melanie: We love painting together lately, especially nature-inspired ones.",
		"Treatment with 4-PBA decreased endoplasmic reticulum stress markers by 40% in mice.",
		"",
	}
	vs, _ := e.Embed(context.Background(), texts)
	wv, _ := e.EmbedWeighted(context.Background(), texts[0], func(w string) float64 { return float64(len(w)) })
	got := []string{digest(vs[0]), digest(vs[1]), digest(vs[2]), digest(wv)}
	want := []string{"f4a5a93c5e6a439c6b28087b", "09d32bc61d91b7705da3c749", "96497e49c11ebeb0f73bc01b", "1c71211b398bfa178f8d8f16"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vectors changed (-want +got):\n%s", diff)
	}
}

func TestConcurrentEmbed(t *testing.T) {
	e := New()
	want, _ := e.Embed(context.Background(), []string{"the kids loved the pottery class"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				got, _ := e.Embed(context.Background(), []string{"the kids loved the pottery class"})
				if digest(got[0]) != digest(want[0]) {
					t.Error("concurrent embeddings differ")
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkEmbed(b *testing.B) {
	e := New()
	text := "Melanie: Wow, Caroline! That's great! I just signed up for a pottery class yesterday. " +
		"It's like therapy for me, letting me express myself and get creative."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		e.Embed(context.Background(), []string{text})
	}
}
