// Package scifact reads the SciFact retrieval benchmark in BEIR format
// (../shared/eval/scifact): abstracts, claims and relevance judgments.
package scifact

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultDir is where the data lies relative to the repository root.
const DefaultDir = "../shared/eval/scifact"

// Doc is an abstract of the corpus.
type Doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is a claim.
type Query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// Corpus reads corpus.jsonl.gz in dir.
func Corpus(dir string) ([]Doc, error) {
	return readJSONL[Doc](filepath.Join(dir, "corpus.jsonl.gz"))
}

// Queries reads the training claims, queries-train.jsonl in dir.
func Queries(dir string) ([]Query, error) {
	return readJSONL[Query](filepath.Join(dir, "queries-train.jsonl"))
}

// Qrels reads qrels-train.tsv in dir: for each query id, the relevant
// document ids with their grades.
func Qrels(dir string) (map[string]map[string]int, error) {
	path := filepath.Join(dir, "qrels-train.tsv")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]int{}
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		fields := strings.Fields(sc.Text())
		if first || len(fields) != 3 {
			continue // the header, or a blank line
		}
		g, err := strconv.Atoi(fields[2])
		if err != nil || g <= 0 {
			continue
		}
		if out[fields[0]] == nil {
			out[fields[0]] = map[string]int{}
		}
		out[fields[0]][fields[1]] = g
	}
	return out, sc.Err()
}

func readJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var out []T
	dec := json.NewDecoder(r)
	for {
		var v T
		if err := dec.Decode(&v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, v)
	}
}

// SentenceDoc is an abstract split into its sentences as SciFact ships
// them: joining Sentences with spaces gives the abstract's text.
type SentenceDoc struct {
	ID        string   `json:"_id"`
	Title     string   `json:"title"`
	Sentences []string `json:"sentences"`
}

// Sentences reads corpus-sentences.jsonl.gz in dir.
func Sentences(dir string) ([]SentenceDoc, error) {
	return readJSONL[SentenceDoc](filepath.Join(dir, "corpus-sentences.jsonl.gz"))
}

// Evidence is a training claim with its rationales: for each evidence
// abstract, the indexes of the sentences that support or refute the claim,
// marked by the dataset's annotators.
type Evidence struct {
	ID       string           `json:"_id"`
	Claim    string           `json:"claim"`
	Evidence map[string][]int `json:"evidence"`
}

// EvidenceClaims reads evidence-train.jsonl in dir.
func EvidenceClaims(dir string) ([]Evidence, error) {
	return readJSONL[Evidence](filepath.Join(dir, "evidence-train.jsonl"))
}

// Half returns the even- ("even") or odd-numbered ("odd") elements of xs,
// or all of them ("all"): tune on one half, report the other.
func Half[T any](xs []T, split string) ([]T, error) {
	switch split {
	case "all":
		return xs, nil
	case "even", "odd":
		var out []T
		for i, x := range xs {
			if (i%2 == 0) == (split == "even") {
				out = append(out, x)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("split must be all, even or odd, not %q", split)
}

// Answered returns 1 when every rationale sentence of one of e's evidence
// abstracts was returned (found says whether sentence idx of abstract id
// was), else 0.
func Answered(e Evidence, found func(id string, idx int) bool) float64 {
	for id, idxs := range e.Evidence {
		all := len(idxs) > 0
		for _, i := range idxs {
			all = all && found(id, i)
		}
		if all {
			return 1
		}
	}
	return 0
}

// Normalize folds runs of white space to one space.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }
