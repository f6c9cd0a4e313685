// Package tokens counts tokens with the cl100k_base encoding, offline.
// Every token count in papermem comes from here.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

var cl100k = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		panic("tokens: embedded cl100k_base encoding failed to load: " + err.Error())
	}
	return c
})

// Count returns the number of cl100k_base tokens in s.
func Count(s string) int {
	if s == "" {
		return 0
	}
	ids, _, err := cl100k().Encode(s)
	if err != nil {
		// Encode fails only on text it cannot split, which cl100k's
		// byte-level encoding does not produce; count bytes as tokens so
		// budgets stay conservative.
		return len(s)
	}
	return len(ids)
}
