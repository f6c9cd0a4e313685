// Package locomo reads the LoCoMo conversational memory benchmark
// (../shared/eval/locomo/locomo-dev.json): conversations and their
// questions.
package locomo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// DefaultFile is where the data lies relative to the repository root.
const DefaultFile = "../shared/eval/locomo/locomo-dev.json"

// Adversarial is the category of the questions a conversation holds no
// answer to.
const Adversarial = 5

// Conversation is one LoCoMo sample as stored in the dataset file.
// Conversation holds its speakers, sessions of turns and their dates,
// undecoded.
type Conversation struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []QA                       `json:"qa"`
}

// QA is a question with the dialogue ids of the turns that answer it, as
// the dataset writes them (see the command locomo for their forms).
type QA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

// Load reads the dataset file at path; a file without conversations is an
// error.
func Load(path string) ([]Conversation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var convs []Conversation
	if err := json.Unmarshal(b, &convs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(convs) == 0 {
		return nil, errors.New(path + ": no conversations")
	}
	return convs, nil
}
