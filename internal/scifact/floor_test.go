package scifact

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papermem/papermem/internal/testenv"
)

func TestFloorQuery(t *testing.T) {
	got := FloorQuery("Does IL-6 reduce the risk of stroke? The risk is not small.")
	want := []string{"il", "6", "reduc", "risk", "stroke", "risk", "small"}
	if !slices.Equal(got, want) {
		t.Errorf("FloorQuery = %q, want %q", got, want)
	}
}

func TestFloorSearch(t *testing.T) {
	var f Floor
	f.Add("Vitamin D and fractures", "Supplements were given to adults.")           // 0: title match
	f.Add("Bone health", "Vitamin D lowered the risk of fractures in adults.")      // 1: body match
	f.Add("Sleep", "Naps improve memory.")                                          // 2: no match
	f.Add("Calcium", "Calcium intake and fractures in adolescents were unrelated.") // 3: one word
	got := f.Search(FloorQuery("vitamin D fractures"), 10)
	if want := []int{0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("Search = %v, want %v (title words count twice; rows without a query word are not returned)", got, want)
	}
	if got := f.Search(FloorQuery("vitamin D fractures"), 1); !slices.Equal(got, []int{0}) {
		t.Errorf("Search limit 1 = %v", got)
	}
	if got := f.Search(FloorQuery("the of and"), 10); len(got) != 0 {
		t.Errorf("stop words alone matched %v", got)
	}
}

func TestReadEvidence(t *testing.T) {
	dir := filepath.Join("..", "..", DefaultDir)
	docs, err := Sentences(dir)
	if err != nil {
		testenv.Need(t, "the shared SciFact data", err)
	}
	corpus, err := Corpus(dir)
	if err != nil || len(docs) != len(corpus) {
		t.Fatalf("%d sentence docs, %d abstracts, %v", len(docs), len(corpus), err)
	}
	for i := range 50 {
		if docs[i].ID != corpus[i].ID || strings.Join(docs[i].Sentences, " ") != corpus[i].Text {
			t.Fatalf("abstract %s: its sentences do not join into its text", docs[i].ID)
		}
	}
	evs, err := EvidenceClaims(dir)
	if err != nil || len(evs) != 505 {
		t.Fatalf("%d evidence claims, %v", len(evs), err)
	}
	odd, _ := Half(evs, "odd")
	even, _ := Half(evs, "even")
	if len(odd)+len(even) != len(evs) || even[0].ID != evs[0].ID || odd[0].ID != evs[1].ID {
		t.Errorf("halves of %d: %d odd, %d even", len(evs), len(odd), len(even))
	}
	if _, err := Half(evs, "third"); err == nil {
		t.Error("Half accepted an unknown split")
	}
}

func TestFloorPack(t *testing.T) {
	var f Floor
	f.Add("", "Vitamin D cut fractures.")                   // 0: 24 bytes, 6 tokens; best
	f.Add("", "Vitamin D was given to some of the adults.") // 1: 43 bytes, 11 tokens
	f.Add("", "Vitamin D.")                                 // 2: 10 bytes, 3 tokens
	q := FloorQuery("vitamin fractures")
	tests := []struct {
		budget int
		keep   func(int) bool
		want   []int
		tokens int
	}{
		{100, nil, []int{0, 2, 1}, 20},
		{9, nil, []int{0, 2}, 9},
		{16, nil, []int{0, 2}, 9}, // row 1 does not fit; packing stops there
		{5, nil, nil, 0},          // the best row does not fit: nothing
		{100, func(r int) bool { return r != 2 }, []int{0, 1}, 17},
	}
	for _, tt := range tests {
		got, tokens := f.Pack(q, tt.budget, tt.keep)
		if !slices.Equal(got, tt.want) || tokens != tt.tokens {
			t.Errorf("Pack(budget %d) = %v, %d tokens; want %v, %d", tt.budget, got, tokens, tt.want, tt.tokens)
		}
	}
}

func TestSentenceFloorAnswer(t *testing.T) {
	f := NewSentenceFloor([]SentenceDoc{
		{ID: "1", Title: "Sleep", Sentences: []string{"Naps improve memory.", "Adults slept less."}},
		{ID: "2", Title: "Bones", Sentences: []string{"Vitamin D lowered the risk of fractures.", "Calcium did not."}},
	})
	e := Evidence{Claim: "Vitamin D prevents fractures", Evidence: map[string][]int{"2": {0}}}
	if hit, n := f.Answer(e, 100); hit != 1 || n != FloorTokens("Vitamin D lowered the risk of fractures.") {
		t.Errorf("Answer at 100 = %v, %d; want 1 and the tokens of the one matching sentence", hit, n)
	}
	if hit, n := f.Answer(e, 5); hit != 0 || n != 0 {
		t.Errorf("Answer at 5 = %v, %d; want 0, 0 (the sentence does not fit)", hit, n)
	}
	e.Evidence = map[string][]int{"2": {0, 1}}
	if hit, _ := f.Answer(e, 100); hit != 0 {
		t.Errorf("Answer = %v with a rationale sentence not returned; want 0", hit)
	}
}
