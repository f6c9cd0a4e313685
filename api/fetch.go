package api

// FetchResult reports where a paper's full text came from.
type FetchResult struct {
	DOI        string `json:"doi"`
	Warm       bool   `json:"warm"`        // the text was already in memory
	Bytes      int    `json:"bytes"`       // size of the full text
	BytesSaved int    `json:"bytes_saved"` // bytes not downloaded thanks to memory
	Source     string `json:"source"`      // "memory" or "origin"
}
