package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/papermem/papermem"
)

// embedderFromEnv returns the OpenAI-compatible embedder named by
// PAPERMEM_EMBEDDINGS_URL and PAPERMEM_EMBEDDINGS_MODEL, or nil (the
// library's offline default) when no URL is set. Its dimension is learnt
// from one probe request at startup.
func embedderFromEnv(getenv func(string) string) (papermem.Embedder, error) {
	url := strings.TrimSpace(getenv("PAPERMEM_EMBEDDINGS_URL"))
	if url == "" {
		return nil, nil
	}
	model := strings.TrimSpace(getenv("PAPERMEM_EMBEDDINGS_MODEL"))
	if model == "" {
		return nil, fmt.Errorf("PAPERMEM_EMBEDDINGS_MODEL is required with PAPERMEM_EMBEDDINGS_URL")
	}
	e := &httpEmbedder{url: url, model: model, client: &http.Client{Timeout: embedTimeout}}
	ctx, cancel := context.WithTimeout(context.Background(), embedTimeout)
	defer cancel()
	vs, err := e.Embed(ctx, []string{"dimension probe"})
	if err != nil {
		return nil, fmt.Errorf("PAPERMEM_EMBEDDINGS_URL: %w", err)
	}
	e.dim = len(vs[0])
	return e, nil
}

// embedTimeout bounds one embeddings request.
const embedTimeout = 60 * time.Second

// httpEmbedder calls an OpenAI-compatible POST {url} with {model, input}
// and reads {data:[{index, embedding}]} (OpenAI, Ollama's /v1/embeddings,
// vLLM, llama.cpp's server).
type httpEmbedder struct {
	url, model string
	dim        int
	client     *http.Client
}

func (e *httpEmbedder) Name() string { return "openai-compatible:" + e.model }
func (e *httpEmbedder) Dim() int     { return e.dim }

// Embed returns one vector per text, in order.
func (e *httpEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(map[string]any{"model": e.model, "input": texts})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := e.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embeddings request: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("embeddings response: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embeddings endpoint answered %s: %.200s", res.Status, raw)
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("embeddings response: %w", err)
	}
	if len(out.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings endpoint returned %d vectors for %d texts", len(out.Data), len(texts))
	}
	vs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) || vs[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings endpoint returned a bad or repeated index %d", d.Index)
		}
		if e.dim != 0 && len(d.Embedding) != e.dim {
			return nil, fmt.Errorf("embeddings endpoint returned %d dimensions, not %d", len(d.Embedding), e.dim)
		}
		vs[d.Index] = d.Embedding
	}
	return vs, nil
}
