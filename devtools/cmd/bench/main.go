// Command bench grows one memory through several sizes and measures, at
// each, what a research group's whole library asks of it (issue 29): the
// ingest rate of the papers just stored, recall latency beside raw indexes
// measured in the same run over the same text, bytes per node on disk (the
// database, its -wal and its search index files), the process's peak RSS
// and Go heap, and the time to the first recall after reopening the memory.
//
//	go run ./devtools/cmd/bench [-sizes 100000,300000,1600000] [-queries 300] [-raw-queries 40]
//	go run -tags sqlite_fts5 ./devtools/cmd/bench   # adds the raw FTS5 row
//
// Documents are SciFact abstracts (../shared/eval/scifact), stored again
// under new DOIs as often as needed, a batch at a time by a worker per CPU;
// each size stores only the papers past the ones already stored (with
// -dir, a later run grows the same database). Questions are SciFact claims.
//
// The raw indexes live in a database file of their own (bench-raw.db next
// to bench.db), so that the memory's file holds only what papermem wrote: a
// sqlite-vec vec0 kNN over the offline embedder's vector of every node's
// text, embedded by the bench (so the baseline does not depend on the
// format papermem stores its vectors in), and, when built with the tag
// sqlite_fts5 (go-sqlite3 compiles FTS5 only with it), an FTS5
// MATCH … ORDER BY rank LIMIT k over the same text. The vec0 kNN is brute
// force, seconds a question at a million nodes, so above -raw-above nodes
// the raw rows ask only the first -raw-queries questions, and each ratio
// sets a recall's p95 over those same questions against the raw row's.
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
	"runtime/debug"
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

// ingestGoal is issue 29's ingest goal, printed beside each band's rate.
const ingestGoal = 900 // papers/s

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	data := fs.String("data", scifact.DefaultDir, "SciFact directory")
	sizesFlag := fs.String("sizes", "100000,300000,1600000", "memory sizes in nodes, increasing, comma-separated; one database grows through them")
	nq := fs.Int("queries", 300, "questions per measurement")
	rawQ := fs.Int("raw-queries", 40, "questions for each raw row at sizes above -raw-above nodes (0: -queries)")
	rawAbove := fs.Int("raw-above", 300_000, "size in nodes above which the raw rows ask only -raw-queries questions")
	reopenN := fs.Int("reopen", 10, "recalls timed after the first one after reopening")
	dir := fs.String("dir", "", "directory for the databases, kept for a later run to grow (default: a temporary one, removed)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var sizes []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		size, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || size <= 0 || len(sizes) > 0 && size <= sizes[len(sizes)-1] {
			return fmt.Errorf("bad size %q: sizes are positive and increasing", s)
		}
		sizes = append(sizes, size)
	}
	if *nq <= 0 || *rawQ < 0 || *reopenN < 0 {
		return errors.New("-queries must be positive, -raw-queries and -reopen not negative")
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
	} else if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	b, err := open(ctx, *dir, questions)
	if err != nil {
		return err
	}
	defer b.close()
	fmt.Fprintf(out, "%d questions per row; latencies in ms; %d CPUs; memory %s, raw baselines %s\n",
		len(questions), runtime.GOMAXPROCS(0), b.path, b.rawPath)
	for _, size := range sizes {
		if err := b.step(ctx, out, size, docs, *rawQ, *rawAbove, *reopenN); err != nil {
			return err
		}
	}
	return nil
}

// bench is one memory growing through the sizes, with the raw baselines
// in a database of their own.
type bench struct {
	path, rawPath string
	m             *papermem.Memory
	db            *sql.DB // the memory's file, read only: counts and node texts
	raw           *sql.DB // the raw baselines: bench_vec, bench_fts, bench_filled
	emb           papermem.Embedder
	questions     []string
	qvecs         [][]float32
	ftsInsert     string                                    // the statement adding a node to bench_fts, "" without FTS5
	ftsSearch     func(ctx context.Context, q string) error // nil without FTS5
	ftsNote       string
	papers        int // papers stored, numbered 0 to papers-1
	nodes         int // nodes stored, counted from the stores' reports
}

func open(ctx context.Context, dir string, questions []string) (*bench, error) {
	b := &bench{path: filepath.Join(dir, "bench.db"), rawPath: filepath.Join(dir, "bench-raw.db"),
		emb: papermem.NewOfflineEmbedder(), questions: questions}
	var err error
	if b.m, err = papermem.Open(ctx, b.path, nil); err != nil {
		return nil, err
	}
	if b.db, err = sql.Open("sqlite3", "file:"+b.path+"?mode=ro&_busy_timeout=10000"); err != nil {
		b.close()
		return nil, err
	}
	// sqlite-vec is registered for every connection by papermem.
	if b.raw, err = sql.Open("sqlite3", "file:"+b.rawPath+"?_journal_mode=WAL&_synchronous=OFF&_busy_timeout=10000"); err != nil {
		b.close()
		return nil, err
	}
	if _, err := b.raw.ExecContext(ctx, fmt.Sprintf(`CREATE VIRTUAL TABLE IF NOT EXISTS bench_vec USING vec0(
			embedding float[%d] distance_metric=cosine);
		CREATE TABLE IF NOT EXISTS bench_filled (last_id INTEGER NOT NULL);
		INSERT INTO bench_filled SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM bench_filled)`, b.emb.Dim())); err != nil {
		b.close()
		return nil, err
	}
	if b.ftsInsert, b.ftsSearch, b.ftsNote, err = ftsBaseline(ctx, b.raw); err != nil {
		b.close()
		return nil, err
	}
	if b.qvecs, err = b.emb.Embed(ctx, questions); err != nil {
		b.close()
		return nil, err
	}
	// A reused database (-dir) already holds papers 0 to papers-1.
	if err := b.db.QueryRowContext(ctx, "SELECT count(*) FROM papers").Scan(&b.papers); err != nil {
		b.close()
		return nil, err
	}
	if err := b.db.QueryRowContext(ctx, "SELECT count(*) FROM nodes").Scan(&b.nodes); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) close() {
	if b.m != nil {
		b.m.Close()
	}
	for _, db := range []*sql.DB{b.db, b.raw} {
		if db != nil {
			db.Close()
		}
	}
}

// step grows the memory to size nodes and measures it.
func (b *bench) step(ctx context.Context, out io.Writer, size int, docs []scifact.Doc, rawQ, rawAbove, reopenN int) error {
	papers0, nodes0 := b.papers, b.nodes
	start := time.Now()
	if err := b.grow(ctx, size, docs); err != nil {
		return err
	}
	took := time.Since(start)
	rssIngest := peakRSS()
	var n int
	if err := b.db.QueryRowContext(ctx, "SELECT count(*) FROM nodes").Scan(&n); err != nil {
		return err
	}
	fmt.Fprintf(out, "\n== %s nodes (%s papers)\n", thousands(n), thousands(b.papers))
	fmt.Fprintf(out, "ingest: +%s papers, +%s nodes in %.1f s: %s papers/s, %s nodes/s (goal ≥ %d papers/s)\n",
		thousands(b.papers-papers0), thousands(b.nodes-nodes0), took.Seconds(),
		thousands(int(float64(b.papers-papers0)/took.Seconds())), thousands(int(float64(b.nodes-nodes0)/took.Seconds())), ingestGoal)

	start = time.Now()
	filled, err := b.fillRaw(ctx)
	if err != nil {
		return fmt.Errorf("raw baselines: %w", err)
	}
	fmt.Fprintf(out, "raw baselines: +%s nodes embedded and indexed in %.1f s\n", thousands(filled), time.Since(start).Seconds())
	rssRaw := peakRSS()

	k := len(b.questions)
	if n > rawAbove && rawQ > 0 {
		k = min(k, rawQ)
	}
	if err := b.recallRows(ctx, out, n, k); err != nil {
		return err
	}
	rssRows := peakRSS()
	if err := b.reopen(ctx, out, reopenN); err != nil {
		return err
	}
	// On disk after reopening: Close checkpointed the WAL and wrote the
	// search index files of this size.
	mem, index, raw := evalcmd.DatabaseSize(b.path), evalcmd.DirSize(b.path+"-index"), evalcmd.DatabaseSize(b.rawPath)
	fmt.Fprintf(out, "disk: %s (database + -wal %s, search index files %s) = %s bytes/node; the raw baselines' own file %s = %s bytes/node\n",
		megabytes(mem+index), megabytes(mem), megabytes(index), thousands(int((mem+index)/int64(n))), megabytes(raw), thousands(int(raw/int64(n))))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// ru_maxrss only grows: taken after each phase, it shows which raised it.
	rss := "n/a (Linux only)"
	if p := peakRSS(); p > 0 {
		rss = fmt.Sprintf("%s (after the ingest %s, the raw baselines' fill %s, the recall rows %s, reopening %s; the whole process, the raw baselines' embedding and scans included)",
			megabytes(p), megabytes(rssIngest), megabytes(rssRaw), megabytes(rssRows), megabytes(p))
	}
	fmt.Fprintf(out, "memory: peak RSS %s, Go heap in use after GC %s\n", rss, megabytes(int64(ms.HeapInuse)))
	return nil
}

// benchBatch is how many papers grow stores between counts.
const benchBatch = 256

// grow stores papers until the memory holds size nodes. Papers are stored
// a batch at a time by a worker per CPU, and the nodes counted from the
// stores' reports as they go: counting the table after each paper made
// reaching a million nodes quadratic.
func (b *bench) grow(ctx context.Context, size int, docs []scifact.Doc) error {
	for b.nodes < size {
		batch := make([]papermem.PaperInput, benchBatch)
		for j := range batch {
			i := b.papers + j
			d := docs[i%len(docs)]
			batch[j] = papermem.PaperInput{DOI: fmt.Sprintf("10.0000/bench.%d.%s", i/len(docs), d.ID), Title: d.Title, Text: d.Text}
		}
		added, err := storeAll(ctx, b.m, batch)
		if err != nil {
			return err
		}
		b.papers += len(batch)
		b.nodes += added
	}
	return nil
}

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

// rawBatch is how many nodes fillRaw embeds and inserts at a time.
const rawBatch = 4096

// fillRaw adds the nodes stored since the last fill to the raw baselines
// and returns how many it added: their text to bench_fts, and to bench_vec
// the offline embedder's vector of their text, which is what papermem
// embeds (it stores it normalised, and perhaps quantised; vec0's cosine
// needs neither).
func (b *bench) fillRaw(ctx context.Context) (int, error) {
	var last int64
	if err := b.raw.QueryRowContext(ctx, "SELECT last_id FROM bench_filled").Scan(&last); err != nil {
		return 0, err
	}
	filled := 0
	for {
		ids, texts, err := b.nodeTexts(ctx, last)
		if err != nil || len(ids) == 0 {
			return filled, err
		}
		vecs, err := embedAll(ctx, b.emb, texts)
		if err != nil {
			return filled, err
		}
		tx, err := b.raw.BeginTx(ctx, nil)
		if err != nil {
			return filled, err
		}
		if err := insertRaw(ctx, tx, b.ftsInsert, ids, texts, vecs); err != nil {
			tx.Rollback()
			return filled, err
		}
		if err := tx.Commit(); err != nil {
			return filled, err
		}
		last = ids[len(ids)-1]
		filled += len(ids)
	}
}

// nodeTexts returns up to rawBatch nodes after id after, in id order.
func (b *bench) nodeTexts(ctx context.Context, after int64) ([]int64, []string, error) {
	rows, err := b.db.QueryContext(ctx, "SELECT id, text FROM nodes WHERE id > ? ORDER BY id LIMIT ?", after, rawBatch)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, nil, err
		}
		ids, texts = append(ids, id), append(texts, text)
	}
	return ids, texts, rows.Err()
}

func insertRaw(ctx context.Context, tx *sql.Tx, ftsInsert string, ids []int64, texts []string, vecs [][]float32) error {
	vec, err := tx.PrepareContext(ctx, "INSERT INTO bench_vec (rowid, embedding) VALUES (?, ?)")
	if err != nil {
		return err
	}
	defer vec.Close()
	var fts *sql.Stmt
	if ftsInsert != "" {
		if fts, err = tx.PrepareContext(ctx, ftsInsert); err != nil {
			return err
		}
		defer fts.Close()
	}
	for i, id := range ids {
		if _, err := vec.ExecContext(ctx, id, floatBlob(vecs[i])); err != nil {
			return err
		}
		if fts != nil {
			if _, err := fts.ExecContext(ctx, id, texts[i]); err != nil {
				return err
			}
		}
	}
	_, err = tx.ExecContext(ctx, "UPDATE bench_filled SET last_id = ?", ids[len(ids)-1])
	return err
}

// embedAll embeds texts with a worker per CPU.
func embedAll(ctx context.Context, emb papermem.Embedder, texts []string) ([][]float32, error) {
	vecs := make([][]float32, len(texts))
	workers := runtime.GOMAXPROCS(0)
	per := (len(texts) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(texts)), min((w+1)*per, len(texts))
		wg.Go(func() {
			vs, err := emb.Embed(ctx, texts[lo:hi])
			if err == nil && len(vs) != hi-lo {
				err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vs), hi-lo)
			}
			errs[w] = err
			copy(vecs[lo:hi], vs)
		})
	}
	wg.Wait()
	return vecs, errors.Join(errs...)
}

// The raw rows' names; each recall's p95 is set against one of them.
const (
	rowFTS  = "raw FTS5 MATCH, top 200"
	rowVec0 = "raw sqlite-vec vec0 kNN, k=200"
)

// recallRows times the raw rows, over the first k questions, and the
// recalls, over all, printing each recall's p95 beside its raw row's.
func (b *bench) recallRows(ctx context.Context, out io.Writer, n, k int) error {
	type row struct {
		name     string
		raw      bool
		baseline string // the raw row's name
		short    string // and how the ratio calls it
		fn       func(i int) error
	}
	recall := func(label string, r papermem.Retrieval) func(int) error {
		return func(i int) error {
			_, err := b.m.Recall(ctx, papermem.RecallRequest{Question: b.questions[i], Label: label, Retrieval: r})
			return err
		}
	}
	rows := []row{
		{name: rowVec0, raw: true, fn: func(i int) error {
			rows, err := b.raw.QueryContext(ctx, `SELECT rowid, distance FROM bench_vec WHERE embedding MATCH ? AND k = 200`, floatBlob(b.qvecs[i]))
			if err != nil {
				return err
			}
			return drain(rows)
		}},
		{"recall, BM25 only", false, rowFTS, "FTS5", recall("Any", papermem.RetrievalLexical)},
		{"recall, vectors only", false, rowVec0, "vec0", recall("Any", papermem.RetrievalVector)},
		{"recall, hybrid (label Any)", false, rowFTS, "FTS5", recall("Any", papermem.RetrievalHybrid)},
		{"recall, hybrid (label Claim)", false, rowFTS, "FTS5", recall("", papermem.RetrievalHybrid)},
		{"paper recall, hybrid (limit 20)", false, rowFTS, "FTS5", func(i int) error {
			_, err := b.m.RecallPapers(ctx, papermem.PaperRecallRequest{Query: b.questions[i]})
			return err
		}},
	}
	if b.ftsSearch != nil {
		rows = slices.Insert(rows, 0, row{name: rowFTS, raw: true, fn: func(i int) error { return b.ftsSearch(ctx, b.questions[i]) }})
	}
	if k < len(b.questions) {
		fmt.Fprintf(out, "raw rows: the first %d of the %d questions (sqlite-vec's kNN is brute force); each ratio sets the recall's p95 over those %d against the raw row's\n",
			k, len(b.questions), k)
	}
	fmt.Fprintf(out, "%-40s %9s %9s %11s\n", "measurement", "p50", "p95", "p95 ratio")
	results := map[string][]float64{}
	for _, r := range rows {
		count := len(b.questions)
		if r.raw {
			count = k
		}
		lat, err := timeAll(count, r.fn)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		results[r.name] = lat
		ratio := ""
		if base, ok := results[r.baseline]; ok {
			ratio = fmt.Sprintf("%.2fx %s", evalcmd.Percentile(lat[:len(base)], 95)/evalcmd.Percentile(base, 95), r.short)
		}
		name := r.name
		if r.raw && k < len(b.questions) {
			name += fmt.Sprintf(" (%d q)", k)
		}
		fmt.Fprintf(out, "%-40s %9.2f %9.2f %11s\n", name, evalcmd.Percentile(lat, 50), evalcmd.Percentile(lat, 95), ratio)
	}
	if b.ftsNote != "" {
		fmt.Fprintln(out, b.ftsNote)
	}
	return nil
}

// reopen closes the memory and opens it again on the same file, timing
// Open, the first recall (which loads the in-process index) and the p50
// of the next few. The file's pages stay in the OS's cache.
func (b *bench) reopen(ctx context.Context, out io.Writer, next int) error {
	if err := b.m.Close(); err != nil {
		return err
	}
	// The closed memory's index is garbage now; free it so that the peak
	// RSS does not hold it and the reopened one's at once.
	b.m = nil
	debug.FreeOSMemory()
	start := time.Now()
	m, err := papermem.Open(ctx, b.path, nil)
	if err != nil {
		return err
	}
	b.m = m
	opened := time.Since(start)
	first, err := timeOne(func() error {
		_, err := m.Recall(ctx, papermem.RecallRequest{Question: b.questions[0]})
		return err
	})
	if err != nil {
		return err
	}
	lat := make([]float64, 0, next)
	for i := range next {
		d, err := timeOne(func() error {
			_, err := m.Recall(ctx, papermem.RecallRequest{Question: b.questions[(i+1)%len(b.questions)]})
			return err
		})
		if err != nil {
			return err
		}
		lat = append(lat, d)
	}
	p50 := "-"
	if next > 0 {
		p50 = fmt.Sprintf("%.2f ms", evalcmd.Percentile(lat, 50))
	}
	fmt.Fprintf(out, "reopen: Open %.0f ms, first recall (hybrid, label Claim; loads the search index) %.0f ms, p50 of the next %d %s\n",
		float64(opened.Microseconds())/1000, first, next, p50)
	return nil
}

// timeAll runs fn for every question once to warm up, then again timed,
// and returns the latencies in milliseconds, in question order.
func timeAll(n int, fn func(int) error) ([]float64, error) {
	for i := range n {
		if err := fn(i); err != nil {
			return nil, err
		}
	}
	lat := make([]float64, n)
	for i := range n {
		d, err := timeOne(func() error { return fn(i) })
		if err != nil {
			return nil, err
		}
		lat[i] = d
	}
	return lat, nil
}

// timeOne returns how long fn took, in milliseconds.
func timeOne(fn func() error) (float64, error) {
	t := time.Now()
	err := fn()
	return float64(time.Since(t).Microseconds()) / 1000, err
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

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// thousands writes n with commas between thousands.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
