// Package tokens counts tokens with the cl100k_base encoding, offline.
// Every token count in papermem comes from here.
//
// cl100k_base splits text into pieces with a regular expression and
// encodes each piece on its own with byte-pair merges. Count splits with a
// hand-written equivalent of that expression (split.go) and remembers the
// token counts of short pieces, which recur: the same count as
// tiktoken-go/tokenizer's, which encodes every piece that is not cached,
// several times faster.
package tokens

import (
	"sync"
	"unicode/utf8"

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
	if !utf8.ValidString(s) {
		// The encoder reads invalid bytes as U+FFFD; leave that to it.
		return encode(s)
	}
	n := 0
	for s != "" {
		if s[0] == del {
			s = s[1:]
			continue
		}
		k := pieceLen(s)
		n += pieceTokens(s[:k])
		s = s[k:]
	}
	return n
}

// encode counts the tokens of s with the encoder itself.
func encode(s string) int {
	n, err := cl100k().Count(s)
	if err != nil {
		// Count fails only on text it cannot split, which cl100k's
		// byte-level encoding does not produce; count bytes as tokens so
		// budgets stay conservative.
		return len(s)
	}
	return n
}

// Pieces up to maxCached bytes have their counts remembered, up to
// maxEntries of them; a full cache starts afresh.
const (
	maxCached  = 32
	maxEntries = 1 << 16
)

var cache = struct {
	sync.RWMutex
	m map[string]int32
}{m: make(map[string]int32)}

// pieceTokens returns the token count of one piece of the split.
func pieceTokens(p string) int {
	if len(p) == 1 {
		return 1 // every byte is a token
	}
	if len(p) > maxCached {
		return encode(p)
	}
	cache.RLock()
	n, ok := cache.m[p]
	cache.RUnlock()
	if ok {
		return int(n)
	}
	c := encode(p)
	cache.Lock()
	if len(cache.m) >= maxEntries {
		clear(cache.m)
	}
	// A copy, so that the cache does not keep the caller's text alive.
	cache.m[string([]byte(p))] = int32(c)
	cache.Unlock()
	return c
}
