// Package tokens counts tokens with the cl100k_base encoding, offline.
// Every token count in papermem comes from here.
package tokens

import (
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

var (
	once sync.Once
	enc  *tiktoken.Tiktoken
)

func encoding() *tiktoken.Tiktoken {
	once.Do(func() {
		// The offline loader embeds the BPE ranks; without it tiktoken-go
		// downloads them at run time.
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		e, err := tiktoken.GetEncoding("cl100k_base")
		if err != nil {
			panic("tokens: embedded cl100k_base encoding failed to load: " + err.Error())
		}
		enc = e
	})
	return enc
}

// Count returns the number of cl100k_base tokens in s.
func Count(s string) int {
	if s == "" {
		return 0
	}
	return len(encoding().EncodeOrdinary(s))
}
