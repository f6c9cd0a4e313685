package papermem_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/papermem/papermem"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "papermem-example")
	defer os.RemoveAll(dir)

	m, err := papermem.Open(ctx, filepath.Join(dir, "papermem.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	_, report, err := m.StorePaper(ctx, papermem.PaperInput{
		DOI:   "https://doi.org/10.1000/VitD",
		Title: "Vitamin D supplementation and fractures",
		Text: "Vitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98). " +
			"Serum vitamin D rose by 40% compared with placebo.",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored", report.DocID, "with", report.ClaimsFound, "claims")

	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D prevent fractures?", BudgetTokens: 40})
	if err != nil {
		log.Fatal(err)
	}
	top := res.Spans[0]
	fmt.Printf("%s (%s, chars %d-%d)\n", top.Text, top.Provenance.DOI, top.Provenance.CharStart, top.Provenance.CharEnd)
	fmt.Println(res.TotalTokens <= 40)
	// Output:
	// stored 10.1000/vitd with 2 claims
	// Vitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98). (10.1000/vitd, chars 0-93)
	// true
}

func ExampleMemory_Workspace() {
	ctx := context.Background()
	m, err := papermem.Open(ctx, ":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	acme := m.Workspace("acme")
	if _, _, err := acme.StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/a", Title: "Acme's paper"}); err != nil {
		log.Fatal(err)
	}
	inAcme, _ := acme.PaperExists(ctx, "10.1000/a")
	inGlobex, _ := m.Workspace("globex").PaperExists(ctx, "10.1000/a")
	fmt.Println(inAcme, inGlobex)
	// Output: true false
}

// Each code has a sentinel for errors.Is; package client returns a
// server's errors in the same codes, so these tests hold through it too.
func ExampleError() {
	ctx := context.Background()
	m, err := papermem.Open(ctx, ":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	_, err = m.Paper(ctx, "10.1000/none")
	fmt.Println(errors.Is(err, papermem.ErrNotFound), papermem.ErrorCode(err) == papermem.ENOTFOUND)
	_, err = m.Recall(ctx, papermem.RecallRequest{Question: "fractures", Label: "Bogus"})
	fmt.Println(errors.Is(err, papermem.ErrInvalid), papermem.ErrorCode(err))
	// Output:
	// true true
	// true invalid_input
}

func ExampleWorkspace_RecallUser() {
	ctx := context.Background()
	m, err := papermem.Open(ctx, ":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	_, err = m.Remember(ctx, "alice", papermem.NoteInput{
		Key: "style", Text: "Alice wants answers with effect sizes and confidence intervals.", OccurredAt: "2026-03-01",
	})
	if err != nil {
		log.Fatal(err)
	}
	res, _ := m.RecallUser(ctx, "alice", papermem.UserRecallRequest{Question: "How does Alice like her answers?"})
	fmt.Println(len(res.Spans), res.Spans[0].Provenance.Key)
	res, _ = m.RecallUser(ctx, "bob", papermem.UserRecallRequest{Question: "How does Alice like her answers?"})
	fmt.Println(len(res.Spans))
	// Output:
	// 1 style
	// 0
}

// An export file's entries become papers with their tags; recall can keep
// to a tag. With Dir set, the PDFs the entries name are read from it.
func ExampleWorkspace_RunImport() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "papermem-example")
	defer os.RemoveAll(dir)
	m, err := papermem.Open(ctx, filepath.Join(dir, "papermem.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	bib := `@article{doe2020, title = {Vitamin {D} and fractures}, doi = {10.1000/vitd}, year = {2020},
  keywords = {vitamin D, trials},
  abstract = {Vitamin D supplementation did not reduce fracture risk in adults over 70.}}`
	im, err := m.RunImport(ctx, papermem.ImportRequest{Name: "My Library.bib", Data: []byte(bib)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(im.Status, im.Papers, "paper")
	p, _ := m.Paper(ctx, "10.1000/vitd")
	fmt.Println(p.Title, p.Tags, p.Source)
	res, _ := m.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D prevent fractures?", Tags: []string{"trials"}})
	fmt.Println(res.Spans[0].Provenance.DOI)
	// Output:
	// done 1 paper
	// Vitamin D and fractures [trials vitamin D] bibtex:My Library.bib
	// 10.1000/vitd
}
