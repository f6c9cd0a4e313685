package embedder_test

import (
	"context"
	"testing"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/embedder"
	"github.com/papermem/papermem/internal/testdb"
	"github.com/papermem/papermem/internal/testutil"
)

func TestOpenAI(t *testing.T) {
	ctx := context.Background()
	fake, _ := testutil.FakeEmbeddings(t, "nomic-embed-text")
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
		m, err := papermem.Open(ctx, testdb.Path(t), &papermem.Options{Embedder: e})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if _, err := m.Remember(ctx, "u", papermem.NoteInput{Text: "zzz qqq"}); err != nil {
			t.Fatal(err)
		}
		res, err := m.RecallUser(ctx, "u", papermem.UserRecallRequest{Question: "zzz qqq", Retrieval: papermem.RetrievalVector})
		if err != nil || len(res.Spans) != 1 {
			t.Fatalf("vector recall through the endpoint = %+v, %v", res, err)
		}
	})
}
