package locomo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/papermem/papermem/internal/testenv"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	convs, err := Load(write("one.json", `[{"sample_id":"c1","conversation":{"speaker_a":"Ada"},
		"qa":[{"question":"Who?","evidence":["D1:1"],"category":2}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || convs[0].SampleID != "c1" || len(convs[0].QA) != 1 || convs[0].QA[0].Category != 2 ||
		string(convs[0].Conversation["speaker_a"]) != `"Ada"` {
		t.Errorf("loaded %+v", convs)
	}
	for name, path := range map[string]string{
		"missing": filepath.Join(dir, "none.json"),
		"empty":   write("empty.json", `[]`),
		"bad":     write("bad.json", `{`),
	} {
		if _, err := Load(path); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestLoadShared(t *testing.T) {
	path := filepath.Join("..", "..", DefaultFile)
	if _, err := os.Stat(path); err != nil {
		testenv.Need(t, "the shared LoCoMo data", err)
	}
	convs, err := Load(path)
	if err != nil || len(convs) != 5 {
		t.Fatalf("%d conversations, %v", len(convs), err)
	}
	for _, c := range convs {
		if c.SampleID == "" || len(c.QA) == 0 || len(c.Conversation) == 0 {
			t.Errorf("conversation %q: %d questions, %d fields", c.SampleID, len(c.QA), len(c.Conversation))
		}
	}
}
