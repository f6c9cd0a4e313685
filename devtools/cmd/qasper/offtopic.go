package main

import (
	"context"
	"fmt"
	"io"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/locomo"
	"github.com/papermem/papermem/internal/qasper"
	"github.com/papermem/papermem/internal/scifact"
)

// offTopicQuestions is how many questions of each other data set the
// off-topic measurement draws from; each paper is asked two of each.
const offTopicQuestions = 100

// offTopic measures what recall returns in a one-paper workspace for
// questions no NLP paper answers (LoCoMo's, about two people's lives, and
// SciFact's biomedical claims), beside the paper's own questions, at one
// budget: what the relevance cut saves, and what it costs.
type offTopic struct {
	budget          int
	locomo, scifact []string
	rows            map[string]*evalcmd.Returned // by label and question set
	order           []*evalcmd.Returned
}

// offTopicLabels are the labels the off-topic measurement asks with.
var offTopicLabels = []string{papermem.LabelClaim, papermem.LabelAny}

// newOffTopic reads the other data sets' questions.
func newOffTopic(locomoFile, scifactDir string, budget int) (*offTopic, error) {
	convs, err := locomo.Load(locomoFile)
	if err != nil {
		return nil, fmt.Errorf("-locomo: %w", err)
	}
	claims, err := scifact.Queries(scifactDir)
	if err != nil {
		return nil, fmt.Errorf("-scifact: %w", err)
	}
	o := &offTopic{budget: budget, locomo: evalcmd.LoCoMoQuestions(convs, offTopicQuestions), rows: map[string]*evalcmd.Returned{}}
	for _, q := range evalcmd.Spread(claims, offTopicQuestions) {
		o.scifact = append(o.scifact, q.Text)
	}
	for _, label := range offTopicLabels {
		for _, set := range []string{"off-topic: LoCoMo", "off-topic: SciFact", "in-topic"} {
			r := &evalcmd.Returned{Recall: "Recall " + label, Questions: set}
			o.rows[label+set] = r
			o.order = append(o.order, r)
		}
	}
	return o, nil
}

// ask asks the workspace w of the i-th paper two questions of each other
// data set and its own questions.
func (o *offTopic) ask(ctx context.Context, w *papermem.Workspace, i int, own []qasper.Question) error {
	sets := map[string][]string{"in-topic": nil}
	for _, q := range own {
		sets["in-topic"] = append(sets["in-topic"], q.Text)
	}
	for k := range 2 {
		sets["off-topic: LoCoMo"] = append(sets["off-topic: LoCoMo"], o.locomo[(2*i+k)%len(o.locomo)])
		sets["off-topic: SciFact"] = append(sets["off-topic: SciFact"], o.scifact[(2*i+k)%len(o.scifact)])
	}
	for _, label := range offTopicLabels {
		for set, qs := range sets {
			for _, q := range qs {
				res, err := w.Recall(ctx, papermem.RecallRequest{Question: q, Label: label, BudgetTokens: o.budget})
				if err != nil {
					return fmt.Errorf("off-topic recall %q: %w", q, err)
				}
				o.rows[label+set].AddRecall(res)
			}
		}
	}
	return nil
}

// print writes the measurement's table.
func (o *offTopic) print(out io.Writer) error {
	fmt.Fprintf(out, "\noff-topic recall at %d tokens, each paper alone in its workspace: 2 LoCoMo questions and 2 SciFact claims a paper (of %d and %d), beside the paper's own questions\n",
		o.budget, len(o.locomo), len(o.scifact))
	return evalcmd.WriteReturned(out, o.budget, o.order)
}
