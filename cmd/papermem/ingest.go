package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/papermem/papermem"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func ingestCmd(t *target, stdout, stderr io.Writer) *cobra.Command {
	var opts papermem.IngestOptions
	c := &cobra.Command{
		Use:   "ingest PATH...",
		Short: "Add files, and folders recursively, to memory; unsupported files are skipped",
		Long: "Ingests every file of a supported format (Markdown, text, CSV/TSV, JSON, PDF, XLSX, DOCX) among the paths, " +
			"folders recursively. A file that carries a DOI (or is given --doi) becomes that paper's full text; any other file a document. " +
			"Progress goes to stderr: a bar with files, bytes, rate and ETA on a terminal, one line a file otherwise. " +
			"A summary table follows on stdout; the exit status is 1 when any file failed.",
		Args: wantArgs(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, skipped, err := collect(args)
			if err != nil {
				return err
			}
			if (opts.DOI != "" || opts.Title != "") && len(files) != 1 {
				return &usageError{err: fmt.Errorf("--doi and --title describe one file, and the paths hold %d files to ingest", len(files))}
			}
			return withMemory(cmd, t, writes, func(ctx context.Context, m memory) error {
				results := ingestAll(ctx, m, files, opts, newProgress(stderr, files, isTerminal(stderr)))
				return summarize(stdout, append(skipped, results...))
			})
		},
	}
	c.Flags().StringVar(&opts.Domain, "domain", "", "topic area stored with every file's spans")
	c.Flags().StringVar(&opts.DOI, "doi", "", "the file is the full text of the paper with this DOI (one file only)")
	c.Flags().StringVar(&opts.Title, "title", "", "the title, instead of the one found in the file (one file only)")
	return c
}

// file is a file to ingest.
type file struct {
	path string
	size int64
}

// outcome is what became of one file.
type outcome struct {
	path   string
	status string // stored, failed or skipped
	rep    *papermem.IngestReport
	note   string
}

// Outcomes of a file.
const (
	stored  = "stored"
	failed  = "failed"
	skipped = "skipped"
)

// collect lists the files under paths in order, and the unsupported ones
// as skipped.
func collect(paths []string) ([]file, []outcome, error) {
	supported := map[string]bool{}
	for _, f := range papermem.IngestFormats() {
		for _, ext := range f.Extensions {
			supported[ext] = true
		}
	}
	var files []file
	var skips []outcome
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(path)); !supported[ext] {
				skips = append(skips, outcome{path: path, status: skipped, note: "unsupported format " + strings.TrimPrefix(ext, ".")})
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, file{path: path, size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return files, skips, nil
}

// progress reports each file as it is done.
type progress interface {
	done(i int, f file, o outcome)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns a bar for a terminal, plain lines otherwise.
func newProgress(w io.Writer, files []file, tty bool) progress {
	if tty {
		var total int64
		for _, f := range files {
			total += f.size
		}
		return &bar{n: len(files), b: progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionShowBytes(true), // bytes and rate
			progressbar.OptionShowCount(),
			progressbar.OptionUseIECUnits(true),
			progressbar.OptionShowTotalBytes(true), // done of total
			progressbar.OptionSetPredictTime(true), // ETA
			progressbar.OptionSetDescription(fmt.Sprintf("0/%d files", len(files))),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionFullWidth())}
	}
	return &lines{w: w, n: len(files)}
}

// bar is the terminal's progress bar.
type bar struct {
	b *progressbar.ProgressBar
	n int
}

func (p *bar) done(i int, f file, _ outcome) {
	p.b.Describe(fmt.Sprintf("%d/%d files", i+1, p.n))
	p.b.Add64(f.size)
}

// lines writes one line a file.
type lines struct {
	w io.Writer
	n int
}

func (p *lines) done(i int, f file, o outcome) {
	fmt.Fprintf(p.w, "[%d/%d] %s %s (%d bytes)%s\n", i+1, p.n, o.status, f.path, f.size, note(o))
}

func note(o outcome) string {
	if o.note == "" {
		return ""
	}
	return ": " + o.note
}

// ingestAll ingests files one after the other.
func ingestAll(ctx context.Context, m memory, files []file, opts papermem.IngestOptions, p progress) []outcome {
	out := make([]outcome, 0, len(files))
	for i, f := range files {
		o := ingestOne(ctx, m, f, opts)
		p.done(i, f, o)
		out = append(out, o)
	}
	return out
}

func ingestOne(ctx context.Context, m memory, f file, opts papermem.IngestOptions) outcome {
	r, err := os.Open(f.path)
	if err != nil {
		return outcome{path: f.path, status: failed, note: err.Error()}
	}
	defer r.Close()
	rep, err := m.Ingest(ctx, filepath.Base(f.path), r, opts)
	if err != nil {
		return outcome{path: f.path, status: failed, note: papermem.ErrorMessage(err)}
	}
	return outcome{path: f.path, status: stored, rep: rep}
}

// summarize prints the table of outcomes and returns an error when any
// file failed.
func summarize(w io.Writer, outs []outcome) error {
	slices.SortStableFunc(outs, func(a, b outcome) int { return strings.Compare(a.path, b.path) })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tSTATUS\tKIND\tFORMAT\tNODES\tCLAIMS\tNOTE")
	counts := map[string]int{}
	for _, o := range outs {
		counts[o.status]++
		kind, format, nodes, claims := "", "", "", ""
		if o.rep != nil {
			kind, format = o.rep.Kind, o.rep.Format
			nodes, claims = fmt.Sprint(o.rep.NodesStored), fmt.Sprint(o.rep.ClaimsFound)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.path, o.status, kind, format, nodes, claims, o.note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d stored, %d failed, %d skipped\n", counts[stored], counts[failed], counts[skipped])
	if counts[failed] > 0 {
		return fmt.Errorf("%d of %d files failed", counts[failed], counts[stored]+counts[failed])
	}
	return nil
}
