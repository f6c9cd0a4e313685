// Command bench measures recall latency at several memory sizes and sets it
// against raw indexes, measured in the same run on the same data: a
// sqlite-vec vec0 kNN over the same vectors and, when built with the tag
// sqlite_fts5 (go-sqlite3 compiles FTS5 only with it), an FTS5
// MATCH … ORDER BY rank LIMIT k over the same text.
//
//	go run ./devtools/cmd/bench [-sizes 10000,100000] [-queries 300]
//	go run -tags sqlite_fts5 ./devtools/cmd/bench   # adds the raw FTS5 row
//
// Documents are SciFact abstracts (../shared/eval/scifact), stored as often
// as needed to reach each size; questions are SciFact claims.
package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/evalcmd"
	"github.com/papermem/papermem/internal/scifact"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	data := fs.String("data", scifact.DefaultDir, "SciFact directory")
	sizes := fs.String("sizes", "10000,100000", "memory sizes in nodes, comma-separated")
	nq := fs.Int("queries", 300, "questions per measurement")
	dir := fs.String("dir", "", "directory for the databases (default: a temporary one, removed)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	stopProfile, err := evalcmd.StartCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	docs, err := scifact.Corpus(*data)
	if err != nil {
		return err
	}
	claims, err := scifact.Queries(*data)
	if err != nil {
		return err
	}
	var questions []string
	for _, c := range claims {
		questions = append(questions, c.Text)
	}
	questions = questions[:min(*nq, len(questions))]
	if *dir == "" {
		d, err := os.MkdirTemp("", "papermem-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	fmt.Fprintf(out, "%d questions per row; latencies in ms\n\n", len(questions))
	fmt.Fprintf(out, "%-8s %-34s %8s %8s %10s\n", "nodes", "measurement", "p50", "p95", "p95 ratio")
	for _, s := range strings.Split(*sizes, ",") {
		size, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("bad size %q", s)
		}
		if err := measure(ctx, out, filepath.Join(*dir, fmt.Sprintf("bench-%d.db", size)), size, docs, questions); err != nil {
			return err
		}
	}
	return nil
}

// benchBatch is how many papers measure stores between counts.
const benchBatch = 256

// storeAll stores the papers with a worker per CPU and returns the nodes
// they added.
func storeAll(ctx context.Context, m *papermem.Memory, papers []papermem.PaperInput) (int, error) {
	var added atomic.Int64
	errs := make([]error, len(papers))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range jobs {
				_, rep, err := m.StorePaper(ctx, papers[i])
				if errs[i] = err; err == nil {
					added.Add(int64(rep.NodesStored))
				}
			}
		})
	}
	for i := range papers {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return int(added.Load()), errors.Join(errs...)
}

func measure(ctx context.Context, out io.Writer, path string, size int, docs []scifact.Doc, questions []string) error {
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		return err
	}
	defer db.Close()
	nodes := func() (n int) {
		db.QueryRowContext(ctx, "SELECT count(*) FROM nodes").Scan(&n)
		return n
	}
	// Papers are stored a batch at a time by a worker per CPU, and the
	// nodes counted from the stores' reports as they go: counting the
	// table after each paper made reaching a million nodes quadratic.
	start := time.Now()
	stored := nodes()
	// A reused database (-dir) already holds papers 0 to i-1.
	var i int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM papers").Scan(&i); err != nil {
		return err
	}
	for stored < size {
		batch := make([]papermem.PaperInput, benchBatch)
		for j := range batch {
			d := docs[(i+j)%len(docs)]
			batch[j] = papermem.PaperInput{DOI: fmt.Sprintf("10.0000/bench.%d.%s", (i+j)/len(docs), d.ID), Title: d.Title, Text: d.Text}
		}
		i += len(batch)
		added, err := storeAll(ctx, m, batch)
		if err != nil {
			return err
		}
		stored += added
	}
	n := nodes()
	fmt.Fprintf(out, "-- %d nodes stored in %s\n", n, time.Since(start).Round(time.Second))

	// The raw sqlite-vec baseline: a vec0 table holding the same vectors
	// (sqlite-vec is registered for every connection by papermem).
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`CREATE VIRTUAL TABLE IF NOT EXISTS bench_vec USING vec0(
		embedding float[%d] distance_metric=cosine)`, papermem.DefaultDim)); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO bench_vec (rowid, embedding)
		SELECT node_id, embedding FROM node_vectors WHERE node_id NOT IN (SELECT rowid FROM bench_vec)`); err != nil {
		return err
	}
	emb := papermem.NewOfflineEmbedder()
	qvecs, err := emb.Embed(ctx, questions)
	if err != nil {
		return err
	}

	type row struct {
		name string
		fn   func(i int) error
	}
	recall := func(label string, r papermem.Retrieval) func(int) error {
		return func(i int) error {
			_, err := m.Recall(ctx, papermem.RecallRequest{Question: questions[i], Label: label, Retrieval: r})
			return err
		}
	}
	rawFTS, note, err := ftsBaseline(ctx, db, questions)
	if err != nil {
		return err
	}
	rawVec := func(i int) error {
		rows, err := db.QueryContext(ctx, `SELECT rowid, distance FROM bench_vec WHERE embedding MATCH ? AND k = 200`, floatBlob(qvecs[i]))
		if err != nil {
			return err
		}
		return drain(rows)
	}
	const fts, vec0 = "raw FTS5 MATCH, top 200", "raw sqlite-vec vec0 kNN, k=200"
	measurements := []row{
		{vec0, rawVec},
		{"recall, BM25 only", recall("Any", papermem.RetrievalLexical)},
		{"recall, vectors only", recall("Any", papermem.RetrievalVector)},
		{"recall, hybrid (label Any)", recall("Any", papermem.RetrievalHybrid)},
		{"recall, hybrid (label Claim)", recall("", papermem.RetrievalHybrid)},
		{"paper recall, hybrid (limit 20)", func(i int) error {
			_, err := m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: questions[i]})
			return err
		}},
	}
	if rawFTS != nil {
		measurements = slices.Insert(measurements, 0, row{fts, rawFTS})
	}
	// baseline names the raw row each recall's p95 is set against, and
	// how the ratio calls it.
	baseline := map[string][2]string{"recall, BM25 only": {fts, "FTS5"}, "recall, vectors only": {vec0, "vec0"},
		"recall, hybrid (label Any)": {fts, "FTS5"}, "recall, hybrid (label Claim)": {fts, "FTS5"},
		"paper recall, hybrid (limit 20)": {fts, "FTS5"}}
	results := map[string][2]float64{}
	for _, r := range measurements {
		lat, err := timeAll(len(questions), r.fn)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		results[r.name] = lat
		ratio := ""
		if b, ok := results[baseline[r.name][0]]; ok {
			ratio = fmt.Sprintf("%.2fx %s", lat[1]/b[1], baseline[r.name][1])
		}
		fmt.Fprintf(out, "%-8d %-34s %8.2f %8.2f %10s\n", n, r.name, lat[0], lat[1], ratio)
	}
	if note != "" {
		fmt.Fprintln(out, note)
	}
	return nil
}

// timeAll runs fn for every question once to warm up, then again timed,
// and returns the p50 and p95 latencies in milliseconds.
func timeAll(n int, fn func(int) error) ([2]float64, error) {
	for i := range n {
		if err := fn(i); err != nil {
			return [2]float64{}, err
		}
	}
	lat := make([]float64, n)
	for i := range n {
		t := time.Now()
		if err := fn(i); err != nil {
			return [2]float64{}, err
		}
		lat[i] = float64(time.Since(t).Microseconds()) / 1000
	}
	slices.Sort(lat)
	return [2]float64{lat[n/2], lat[min(n-1, n*95/100)]}, nil
}

func drain(rows *sql.Rows) error {
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

func floatBlob(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
