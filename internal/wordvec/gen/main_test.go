package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "glove.bin")
	// "," is not a plain word; "c" is beyond the three words kept.
	json := `{"dimensions": 3, "words": ["the", ",", "a", "b", "c"], "vectors": {
		"the": [1, 2, 3, 9, 0], ",": [0, 0, 0, 9, 1], "a": [3, 1, 0, 9, 2], "b": [0, -2, 5, 9, 3], "c": [1, 1, 1, 9, 4]}}`
	if err := os.WriteFile(in, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(in, out, 3, 1); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	header := "PMWV1\n\x03\x03" + "\x03the\x01" + "\x01a\x03" + "\x01b\x04"
	if !bytes.HasPrefix(b, []byte(header)) || len(b) != len(header)+3*(4+3) {
		t.Fatalf("table %q", b)
	}
	// Each vector, scaled back, is centred and has no component along the
	// top principal direction: the three are collinear in what remains.
	var vecs [3][3]float64
	for i := range 3 {
		scale := math.Float32frombits(binary.LittleEndian.Uint32(b[len(header)+4*i:]))
		for j := range 3 {
			vecs[i][j] = float64(int8(b[len(header)+12+3*i+j])) * float64(scale)
		}
	}
	for j := range 3 {
		if s := vecs[0][j] + vecs[1][j] + vecs[2][j]; math.Abs(s) > 0.1 {
			t.Errorf("dimension %d sums to %f, not 0", j, s)
		}
	}
	cross := [3]float64{
		vecs[0][1]*vecs[1][2] - vecs[0][2]*vecs[1][1],
		vecs[0][2]*vecs[1][0] - vecs[0][0]*vecs[1][2],
		vecs[0][0]*vecs[1][1] - vecs[0][1]*vecs[1][0],
	}
	if math.Abs(cross[0])+math.Abs(cross[1])+math.Abs(cross[2]) > 0.2 {
		t.Errorf("vectors %v are not collinear after removing the top direction", vecs)
	}
}

func TestRunRejects(t *testing.T) {
	dir := t.TempDir()
	for name, json := range map[string]string{
		"not json":      `{`,
		"no dimensions": `{"words": ["a"], "vectors": {"a": [1]}}`,
		"short vector":  `{"dimensions": 2, "words": ["a"], "vectors": {"a": [1]}}`,
		"no words":      `{"dimensions": 2, "words": [","], "vectors": {",": [1, 2]}}`,
	} {
		in := filepath.Join(dir, "in.json")
		if err := os.WriteFile(in, []byte(json), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := run(in, filepath.Join(dir, "out.bin"), 10, 1); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
