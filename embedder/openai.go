// Package embedder provides papermem.Embedder implementations that call
// outside services. The offline default needs none: papermem.NewOfflineEmbedder.
package embedder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultTimeout bounds one embeddings request when the client has none.
const DefaultTimeout = 60 * time.Second

// maxResponseBytes bounds an embeddings response.
const maxResponseBytes = 256 << 20

// OpenAI calls an OpenAI-compatible embeddings endpoint: POST url with
// {model, input} answered by {data:[{index, embedding}]}, as OpenAI,
// Ollama's /v1/embeddings, vLLM and llama.cpp's server do. It implements
// papermem.Embedder.
type OpenAI struct {
	url, model string
	dim        int
	client     *http.Client
}

// NewOpenAI returns the embedder for model at url (for example
// http://127.0.0.1:11434/v1/embeddings with nomic-embed-text). It learns the
// dimension from one probe request. A nil client means one with
// DefaultTimeout.
func NewOpenAI(ctx context.Context, url, model string, client *http.Client) (*OpenAI, error) {
	url, model = strings.TrimSpace(url), strings.TrimSpace(model)
	if url == "" || model == "" {
		return nil, errors.New("embedder: an embeddings URL and a model are required")
	}
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	e := &OpenAI{url: url, model: model, client: client}
	vs, err := e.Embed(ctx, []string{"dimension probe"})
	if err != nil {
		return nil, err
	}
	e.dim = len(vs[0])
	return e, nil
}

// Name identifies the model: "openai-compatible:" + model.
func (e *OpenAI) Name() string { return "openai-compatible:" + e.model }

// Dim is the length of the model's vectors.
func (e *OpenAI) Dim() int { return e.dim }

// Embed returns one vector per text, in order.
func (e *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
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
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
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
