package serve

import (
	"context"
	"fmt"
	"strings"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/embedder"
)

// embedderFromEnv returns the OpenAI-compatible embedder named by
// PAPERMEM_EMBEDDINGS_URL and PAPERMEM_EMBEDDINGS_MODEL, or nil (the
// library's offline default) when no URL is set.
func embedderFromEnv(getenv func(string) string) (papermem.Embedder, error) {
	url := strings.TrimSpace(getenv("PAPERMEM_EMBEDDINGS_URL"))
	if url == "" {
		return nil, nil
	}
	model := strings.TrimSpace(getenv("PAPERMEM_EMBEDDINGS_MODEL"))
	if model == "" {
		return nil, fmt.Errorf("PAPERMEM_EMBEDDINGS_MODEL is required with PAPERMEM_EMBEDDINGS_URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), embedder.DefaultTimeout)
	defer cancel()
	e, err := embedder.NewOpenAI(ctx, url, model, nil)
	if err != nil {
		return nil, fmt.Errorf("PAPERMEM_EMBEDDINGS_URL: %w", err)
	}
	return e, nil
}
