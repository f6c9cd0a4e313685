// Command ingestbench measures text extraction speed over a folder of test
// documents: pages/s for PDF next to pdftotext (poppler-utils) on the same
// files, and MB/s for the other formats, both for extraction alone and for
// the whole Memory.IngestFile (extraction, chunking, claims, embeddings and
// indexing into a temporary database).
//
//	go run ./devtools/cmd/ingestbench -docs ../shared/testdocs -n 5
//
// PDF figures include starting the extraction child process, as pdftotext's
// include starting pdftotext. Files under malformed/ are skipped.
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/scifact"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ingestbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ingestbench", flag.ContinueOnError)
	docs := fs.String("docs", "../shared/testdocs", "folder of documents to extract")
	n := fs.Int("n", 5, "runs per file")
	sf := fs.String("scifact", scifact.DefaultDir, "SciFact directory, for the CSV and JSON files built from its abstracts (\"\" to skip)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 {
		return errors.New("-n must be at least 1")
	}
	files, err := collect(*docs)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no documents under %s", *docs)
	}
	pdftotext, lookErr := exec.LookPath("pdftotext")

	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(stdout, "PDF text extraction, %d runs per file (child process start included)\n", *n)
	fmt.Fprintln(w, "file\tpages\tpapermem pages/s\tpdftotext pages/s\tratio\tpapermem CPU ms/page\tpdftotext CPU ms/page\t")
	var totalPages int
	var ours, theirs, oursCPU, theirsCPU time.Duration
	for _, f := range files {
		if f.format != extract.PDF {
			continue
		}
		cpu0 := childCPU()
		pages, d, err := timeExtract(ctx, f, *n)
		cpu := childCPU() - cpu0
		if err != nil {
			fmt.Fprintf(w, "%s\t-\terror: %v\t\t\t\t\t\n", f.name, err)
			continue
		}
		totalPages += pages
		ours += d
		oursCPU += cpu
		col, ratio, cpuCol := "skipped", "", ""
		if lookErr == nil {
			cpu0 := childCPU()
			pd, err := timePdftotext(ctx, pdftotext, f.path, *n)
			pcpu := childCPU() - cpu0
			if err != nil {
				col = "error: " + err.Error()
			} else {
				theirs += pd
				theirsCPU += pcpu
				col = fmt.Sprintf("%.0f", rate(pages**n, pd))
				ratio = fmt.Sprintf("%.2fx", pd.Seconds()/d.Seconds())
				cpuCol = perPage(pcpu, pages**n)
			}
		}
		fmt.Fprintf(w, "%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t\n", f.name, pages, rate(pages**n, d), col, ratio, perPage(cpu, pages**n), cpuCol)
	}
	if totalPages > 0 {
		col, ratio, cpuCol := "skipped", "", ""
		if lookErr == nil && theirs > 0 {
			col = fmt.Sprintf("%.0f", rate(totalPages**n, theirs))
			ratio = fmt.Sprintf("%.2fx", theirs.Seconds()/ours.Seconds())
			cpuCol = perPage(theirsCPU, totalPages**n)
		}
		fmt.Fprintf(w, "all PDFs\t%d\t%.0f\t%s\t%s\t%s\t%s\t\n", totalPages, rate(totalPages**n, ours), col, ratio, perPage(oursCPU, totalPages**n), cpuCol)
	}
	w.Flush()
	if lookErr != nil {
		fmt.Fprintln(stdout, "note: pdftotext not found; install poppler-utils (apt-get install -y poppler-utils) for that column")
	}
	fmt.Fprintln(stdout, "ratio > 1.00x means papermem is faster than pdftotext (wall time). CPU ms/page counts the")
	fmt.Fprintln(stdout, "child processes' user+system time, which other load on the machine disturbs less.")

	mem, cleanup, err := openMemory(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	// One ingest before timing, so that one-time work (loading the cl100k
	// vocabulary, preparing statements) does not count against the first
	// format.
	if _, err := mem.IngestFile(ctx, "warmup.txt", strings.NewReader(warmup), papermem.IngestOptions{}); err != nil {
		return fmt.Errorf("warm-up ingest: %w", err)
	}
	fmt.Fprintf(stdout, "\nOther formats, %d runs per file after one warm-up ingest: extraction alone, then the whole IngestFile\n", *n)
	fmt.Fprintln(stdout, "(extraction, chunking, claims, embeddings with the offline embedder, SQLite and vector indexing)")
	fmt.Fprintln(w, "format\tfiles\tbytes\textract MB/s\tingest MB/s\tingest MB/CPU-s\tingest ms/file\t")
	byFormat := map[extract.Format][]file{}
	for _, f := range files {
		if f.format != extract.PDF {
			byFormat[f.format] = append(byFormat[f.format], f)
		}
	}
	var text timing // the text formats together
	for _, info := range extract.Formats() {
		fs := byFormat[info.Format]
		if len(fs) == 0 {
			continue
		}
		var t timing
		for _, f := range fs {
			_, d, err := timeExtract(ctx, f, *n)
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			it, ic, err := timeIngest(ctx, mem, f, *n)
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			t.add(timing{files: 1, size: int64(len(f.data)), extract: d, ingest: it, cpu: ic})
		}
		t.row(w, string(info.Format), *n)
		if textFormats[info.Format] {
			text.add(t)
		}
	}
	if text.files > 0 {
		text.row(w, "text formats", *n)
	}
	if *sf != "" {
		large, err := scifactFiles(*sf, 500)
		if err != nil {
			return err
		}
		for _, f := range large {
			_, d, err := timeExtract(ctx, f, *n)
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			it, ic, err := timeIngest(ctx, mem, f, *n)
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			timing{files: 1, size: int64(len(f.data)), extract: d, ingest: it, cpu: ic}.row(w, f.name, *n)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\"text formats\" are markdown, text, csv and json together: all their bytes over all their time.")
	fmt.Fprintln(stdout, "MB/CPU-s divides by this process's user+system time, which other load on the machine disturbs")
	fmt.Fprintln(stdout, "less than wall time; it exceeds MB/s when indexing runs on several CPUs. ms/file is the wall")
	fmt.Fprintln(stdout, "time of one IngestFile; for files of a few hundred bytes it, not the size, decides MB/s.")
	fmt.Fprintln(stdout, "The scifact-*.csv and .json rows are one file each holding SciFact abstracts (id, title, abstract):")
	fmt.Fprintln(stdout, "the throughput of those formats on files large enough for the per-file cost not to matter.")
	return nil
}

// scifactFiles returns a CSV file and a JSON file (an array of records),
// each holding the first n SciFact abstracts of dir with their ids and
// titles.
func scifactFiles(dir string, n int) ([]file, error) {
	docs, err := scifact.Corpus(dir)
	if err != nil {
		return nil, err
	}
	docs = docs[:min(n, len(docs))]
	var csvBuf bytes.Buffer
	cw := csv.NewWriter(&csvBuf)
	cw.Write([]string{"id", "title", "abstract"})
	type record struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Abstract string `json:"abstract"`
	}
	var records []record
	for _, d := range docs {
		cw.Write([]string{d.ID, d.Title, d.Text})
		records = append(records, record{d.ID, d.Title, d.Text})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return nil, err
	}
	js, err := json.Marshal(records)
	if err != nil {
		return nil, err
	}
	return []file{
		{name: fmt.Sprintf("scifact-%d.csv", len(docs)), format: extract.CSV, data: csvBuf.Bytes()},
		{name: fmt.Sprintf("scifact-%d.json", len(docs)), format: extract.JSON, data: js},
	}, nil
}

// warmup is the text of the warm-up ingest.
const warmup = "Warm-up.\n\nThe treatment reduced relapse by 40% compared with placebo (p < 0.01).\n"

// textFormats are the formats whose files are text.
var textFormats = map[extract.Format]bool{extract.Markdown: true, extract.Text: true, extract.CSV: true, extract.JSON: true}

// timing adds up the files of one row of the table.
type timing struct {
	files                int
	size                 int64
	extract, ingest, cpu time.Duration
}

func (t *timing) add(u timing) {
	t.files += u.files
	t.size += u.size
	t.extract += u.extract
	t.ingest += u.ingest
	t.cpu += u.cpu
}

// row prints t for runs runs per file.
func (t timing) row(w io.Writer, name string, runs int) {
	mb := float64(t.size) * float64(runs) / 1e6
	cpuCol := ""
	if t.cpu > 0 {
		cpuCol = fmt.Sprintf("%.2f", mb/t.cpu.Seconds())
	}
	perFile := t.ingest.Seconds() * 1000 / float64(t.files*runs)
	fmt.Fprintf(w, "%s\t%d\t%d\t%.1f\t%.2f\t%s\t%.2f\t\n", name, t.files, t.size, mb/t.extract.Seconds(), mb/t.ingest.Seconds(), cpuCol, perFile)
}

// openMemory opens a papermem database in a temporary directory; cleanup
// closes and removes it.
func openMemory(ctx context.Context) (*papermem.Memory, func(), error) {
	dir, err := os.MkdirTemp("", "ingestbench")
	if err != nil {
		return nil, nil, err
	}
	m, err := papermem.Open(ctx, filepath.Join(dir, "bench.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return m, func() { m.Close(); os.RemoveAll(dir) }, nil
}

// timeIngest runs n IngestFile calls on f and
// returns the wall and CPU time taken. Each call stores a new document, or
// updates the paper of a file that carries a DOI.
func timeIngest(ctx context.Context, m *papermem.Memory, f file, n int) (time.Duration, time.Duration, error) {
	cpu0 := selfCPU()
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := m.IngestFile(ctx, filepath.Base(f.name), bytes.NewReader(f.data), papermem.IngestOptions{}); err != nil {
			return 0, 0, err
		}
	}
	return time.Since(start), selfCPU() - cpu0, nil
}

type file struct {
	name, path string
	format     extract.Format
	data       []byte
}

// collect reads the well-formed documents under dir, sorted by name.
func collect(dir string) ([]file, error) {
	var out []file
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "malformed" {
				return filepath.SkipDir
			}
			return nil
		}
		f, ok := extract.FormatFor(path)
		if !ok || d.Name() == "README.md" || d.Name() == "SOURCES.tsv" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, file{name: rel, path: path, format: f, data: data})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, err
}

// timeExtract runs n extractions of f and returns its pages and the time taken.
func timeExtract(ctx context.Context, f file, n int) (int, time.Duration, error) {
	var pages int
	start := time.Now()
	for i := 0; i < n; i++ {
		doc, err := extract.Extract(ctx, f.format, bytes.NewReader(f.data), extract.Limits{})
		if err != nil {
			return 0, 0, err
		}
		pages = doc.Pages
	}
	return pages, time.Since(start), nil
}

func timePdftotext(ctx context.Context, bin, path string, n int) (time.Duration, error) {
	start := time.Now()
	for i := 0; i < n; i++ {
		cmd := exec.CommandContext(ctx, bin, "-q", path, "-")
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// perPage formats CPU milliseconds per page; "" when not measured.
func perPage(cpu time.Duration, pages int) string {
	if cpu <= 0 || pages <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", cpu.Seconds()*1000/float64(pages))
}

func rate(count int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(count) / d.Seconds()
}
