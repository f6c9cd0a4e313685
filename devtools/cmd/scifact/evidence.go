package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/chunk"
	"github.com/papermem/papermem/internal/claims"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/scifact"
)

// evidenceRecall prints, for each label and budget, the share of claims
// whose rationale sentences of one evidence abstract all appear inside the
// spans recall returns, beside the sentence floor at the same budget; then
// the claim extractor's recall on rationale sentences.
func evidenceRecall(ctx context.Context, out io.Writer, m *papermem.Memory, c config) error {
	docs, err := scifact.Sentences(c.data)
	if err != nil {
		return err
	}
	evs, err := scifact.EvidenceClaims(c.data)
	if err != nil {
		return err
	}
	if c.maxQueries > 0 && c.maxQueries < len(evs) {
		evs = evs[:c.maxQueries]
	}
	byID := make(map[string]*scifact.SentenceDoc, len(docs))
	for i := range docs {
		byID[docs[i].ID] = &docs[i]
	}
	floor := scifact.NewSentenceFloor(docs)
	for _, e := range evs {
		for id := range e.Evidence {
			if byID[id] == nil {
				return fmt.Errorf("claim %s: evidence abstract %s is not in the corpus", e.ID, id)
			}
		}
	}
	fmt.Fprintf(out, "\nevidence recall, %d claims with rationales, and the mean tokens returned\n%-24s  %6s  %s  %s\n", len(evs), "retrieval", "budget", halvesHeader, tokensHeader)
	for _, b := range c.budgets {
		got, used := make(halves, len(evs)), make(halves, len(evs))
		for i, e := range evs {
			hit, n := floor.Answer(e, b)
			got[i], used[i] = hit, float64(n)
		}
		fmt.Fprintf(out, "%-24s  %6d  %s  %s\n", "floor: FTS5 sentences", b, got.row(), used.tokens())
	}
	for _, label := range c.labels {
		name, fill := evalcmd.Label(label)
		for _, b := range c.budgets {
			got, used := make(halves, len(evs)), make(halves, len(evs))
			for i, e := range evs {
				res, err := m.Recall(ctx, papermem.RecallRequest{Question: e.Claim, Label: name, BudgetTokens: b, Fill: fill})
				if err != nil {
					return fmt.Errorf("recall %s: %w", e.ID, err)
				}
				used[i] = float64(res.TotalTokens)
				got[i] = scifact.Answered(e, func(id string, idx int) bool {
					want := scifact.Normalize(byID[id].Sentences[idx])
					for _, s := range res.Spans {
						if s.Provenance.DOI == docDOI(id) && strings.Contains(scifact.Normalize(s.Text), want) {
							return true
						}
					}
					return false
				})
			}
			fmt.Fprintf(out, "%-24s  %6d  %s  %s\n", "papermem "+label, b, got.row(), used.tokens())
		}
	}
	return claimExtractor(out, docs, byID, evs)
}

// claimExtractor prints the share of rationale sentences that storing an
// abstract makes Claim nodes (a claim sentence contains them), per claim,
// and the share of all the corpus's sentences it marks.
func claimExtractor(out io.Writer, docs []scifact.SentenceDoc, byID map[string]*scifact.SentenceDoc, evs []scifact.Evidence) error {
	claimsOf := func(d *scifact.SentenceDoc) []string {
		var cs []string
		for _, s := range chunk.Sentences(strings.Join(d.Sentences, " ")) {
			if claims.IsClaim(s.Text) {
				cs = append(cs, scifact.Normalize(s.Text))
			}
		}
		return cs
	}
	isClaim := func(cs []string, sentence string) bool {
		n := scifact.Normalize(sentence)
		for _, c := range cs {
			if strings.Contains(c, n) {
				return true
			}
		}
		return false
	}
	share := make(halves, len(evs))
	for i, e := range evs {
		var n, found int
		for id, idxs := range e.Evidence {
			cs := claimsOf(byID[id])
			for _, j := range idxs {
				n++
				if isClaim(cs, byID[id].Sentences[j]) {
					found++
				}
			}
		}
		share[i] = float64(found) / float64(n)
	}
	var all, marked int
	for i := range docs {
		cs := claimsOf(&docs[i])
		for _, s := range docs[i].Sentences {
			all++
			if isClaim(cs, s) {
				marked++
			}
		}
	}
	fmt.Fprintf(out, "\nclaim extractor\n%-40s  %s\n%-40s  %s\n%-40s  %8.4f\n", "", halvesHeader,
		"rationale sentences stored as claims", share.row(),
		"all corpus sentences marked as claims", float64(marked)/float64(all))
	return nil
}
