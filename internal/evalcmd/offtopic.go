package evalcmd

import "github.com/papermem/papermem/internal/locomo"

// LoCoMoQuestions returns n LoCoMo questions of categories 1–4, as evenly
// from each conversation as they allow, each conversation's spread over
// it: questions about two people's lives, which no paper answers.
func LoCoMoQuestions(convs []locomo.Conversation, n int) []string {
	var out []string
	for i, c := range convs {
		var qs []string
		for _, qa := range c.QA {
			if qa.Category != locomo.Adversarial {
				qs = append(qs, qa.Question)
			}
		}
		share := n / len(convs)
		if i < n%len(convs) {
			share++
		}
		out = append(out, Spread(qs, share)...)
	}
	return out
}
