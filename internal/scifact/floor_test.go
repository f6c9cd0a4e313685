package scifact

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
		t.Skip("shared SciFact data not found:", err)
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
