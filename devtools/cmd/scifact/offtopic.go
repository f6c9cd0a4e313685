package main

import (
	"context"
	"fmt"
	"io"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/locomo"
	"github.com/papermem/papermem/internal/scifact"
)

// offTopicPapers is the limit of the off-topic measurement's paper recalls.
const offTopicPapers = 20

// offTopic prints how much recall returns for LoCoMo questions, about two
// people's lives, which no abstract answers, beside the same for SciFact
// claims at the same budget: what a relevance cut could save, and what it
// could cost.
func offTopic(ctx context.Context, out io.Writer, m *papermem.Memory, c config, convs []locomo.Conversation, abstracts int) error {
	claims, err := scifact.Queries(c.data)
	if err != nil {
		return err
	}
	asked := map[string][]string{"off-topic": evalcmd.LoCoMoQuestions(convs, c.offTopicQuestions)}
	for _, q := range evalcmd.Spread(claims, c.offTopicQuestions) {
		asked["in-topic"] = append(asked["in-topic"], q.Text)
	}
	fmt.Fprintf(out, "\noff-topic recall at %d tokens: %d LoCoMo questions (categories 1-4, spread over %d conversations) asked of the %d abstracts; in-topic: %d SciFact claims\n",
		c.offTopicBudget, len(asked["off-topic"]), len(convs), abstracts, len(asked["in-topic"]))
	var rows []*evalcmd.Returned
	for _, call := range []struct {
		name, label string
		papers      bool
	}{
		{"Recall Claim", "", false},
		{"Recall Any", papermem.LabelAny, false},
		{fmt.Sprintf("RecallPapers %d", offTopicPapers), "", true},
	} {
		for _, set := range []string{"off-topic", "in-topic"} {
			r := &evalcmd.Returned{Recall: call.name, Questions: set, Papers: call.papers}
			for _, q := range asked[set] {
				if call.papers {
					ps, err := m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: q, Limit: offTopicPapers})
					if err != nil {
						return fmt.Errorf("%s %q: %w", call.name, q, err)
					}
					r.AddPapers(ps)
					continue
				}
				res, err := m.Recall(ctx, papermem.RecallRequest{Question: q, Label: call.label, BudgetTokens: c.offTopicBudget})
				if err != nil {
					return fmt.Errorf("%s %q: %w", call.name, q, err)
				}
				r.AddRecall(res)
			}
			rows = append(rows, r)
		}
	}
	return evalcmd.WriteReturned(out, c.offTopicBudget, rows)
}
