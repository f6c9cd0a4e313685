package api

// NoteInput is a note a user asked to remember (a "memory" on the wire:
// kind and label Memory). Two metadata keys place a note in a
// conversation: "session" (a string or number naming
// the conversation or session) and "seq" (a number ordering the memories of
// one session after OccurredAt). RecallUser may return a recalled memory's
// neighbours in its session alongside it.
type NoteInput struct {
	Text       string         `json:"text"`        // required
	Key        string         `json:"key"`         // "" means a key derived from the text
	Tags       []string       `json:"tags"`        // free labels
	Domain     string         `json:"domain"`      // optional topic area
	OccurredAt string         `json:"occurred_at"` // ISO-8601 date or time of the event; "" for none
	Metadata   map[string]any `json:"metadata"`    // free JSON object; see NoteInput
}

// Remembered identifies a stored memory.
type Remembered struct {
	NodeID int64  `json:"node_id"`
	Key    string `json:"key"`
}

// UserRecallInput asks for a user's memories that answer a question.
type UserRecallInput struct {
	Question     string    `json:"question"`      // required
	Keywords     []string  `json:"keywords"`      // extra terms
	BudgetTokens int       `json:"budget_tokens"` // 0 means DefaultBudgetTokens
	Fill         bool      `json:"fill"`          // as RecallInput.Fill
	MinTokens    int       `json:"min_tokens"`    // as RecallInput.MinTokens
	Retrieval    Retrieval `json:"-"`             // zero means the full recall; lexical or vector ranks by that source alone
}
