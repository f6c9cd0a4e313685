package embedder_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/embedder"
)

// fakeEndpoint answers like an OpenAI-compatible embeddings endpoint for
// model, with 16-dimensional vectors, items deliberately out of order.
func fakeEndpoint(t *testing.T, model string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != model {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			v := make([]float32, 16)
			for _, r := range req.Input[i] {
				v[int(r)%16]++
			}
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(s.Close)
	return s
}

func TestOpenAI(t *testing.T) {
	ctx := context.Background()
	fake := fakeEndpoint(t, "nomic-embed-text")
	e, err := embedder.NewOpenAI(ctx, fake.URL, "nomic-embed-text", nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 16 || e.Name() != "openai-compatible:nomic-embed-text" {
		t.Fatalf("embedder %s %d", e.Name(), e.Dim())
	}
	vs, err := e.Embed(ctx, []string{"a", "bb"})
	if err != nil || len(vs) != 2 || vs[0]['a'%16] != 1 || vs[1]['b'%16] != 2 {
		t.Fatalf("vectors %v %v", vs, err)
	}
	t.Run("ErrEndpoint", func(t *testing.T) {
		if _, err := embedder.NewOpenAI(ctx, fake.URL, "other-model", nil); err == nil {
			t.Fatal("a failing endpoint was accepted")
		}
		if _, err := embedder.NewOpenAI(ctx, "", "m", nil); err == nil {
			t.Fatal("an empty URL was accepted")
		}
	})
	t.Run("Memory", func(t *testing.T) {
		m, err := papermem.Open(ctx, filepath.Join(t.TempDir(), "pm.db"), &papermem.Options{Embedder: e})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if _, err := m.Remember(ctx, "u", papermem.MemoryInput{Text: "zzz qqq"}); err != nil {
			t.Fatal(err)
		}
		res, err := m.RecallUser(ctx, "u", papermem.UserRecallRequest{Question: "zzz qqq", Retrieval: papermem.RetrievalVector})
		if err != nil || len(res.Spans) != 1 {
			t.Fatalf("vector recall through the endpoint = %+v, %v", res, err)
		}
	})
}
