package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func importCmd(t *target, getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	var library, key, source string
	var local bool
	c := &cobra.Command{
		Use:   "import FILE|zotero",
		Short: "Import a reference library: an export file with its PDFs, or a Zotero library (kept in sync)",
		Long: "papermem import FILE imports an export file: BibTeX (.bib; Zotero's and Better BibTeX's, with their file fields), RIS (.ris; DO, L1), " +
			"CSL-JSON (.json) or a CSV manifest of a folder of PDFs (.csv: file,doi,title[,tags]). The files it names are read relative to its folder, never outside it, " +
			"and become the papers' full text. Importing the same export again changes nothing.\n\n" +
			"papermem import zotero --library users/4242 --zotero-key KEY imports a Zotero library through the web API ($PAPERMEM_ZOTERO_URL, default https://api.zotero.org; " +
			"the key may come from $ZOTERO_API_KEY); --local reads Zotero 7 desktop on this machine instead (its local API, no key). " +
			"The next import of the same library reads only what changed there, and removes the papers deleted there.\n\n" +
			"On a database file (--db) the import runs here; on a server (--url) the server runs it: an uploaded export's PDFs are not read there. " +
			"Progress goes to stderr (a bar on a terminal), a summary to stdout; the exit status is 1 when the import failed or any item could not be stored.",
		Args: wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := papermem.ImportRequest{Source: source}
			if args[0] == "zotero" {
				req = papermem.ImportRequest{Source: papermem.ImportZotero, Library: library, APIKey: cmp.Or(key, getenv("ZOTERO_API_KEY"))}
				if local {
					req.Source, req.APIKey = papermem.ImportZoteroLocal, ""
				} else if library == "" {
					return &usageError{err: errors.New("import zotero needs --library users/<id> (or groups/<id>), or --local"), usage: cmd.UsageString()}
				}
			} else {
				if local || library != "" || key != "" {
					return &usageError{err: errors.New("--library, --zotero-key and --local are for import zotero"), usage: cmd.UsageString()}
				}
				data, err := os.ReadFile(args[0])
				if err != nil {
					return err
				}
				req.Name, req.Data, req.Dir = filepath.Base(args[0]), data, filepath.Dir(args[0])
			}
			return withMemory(cmd, t, writes, func(ctx context.Context, m memory) error {
				p := newImportProgress(stderr, isTerminal(stderr))
				im, err := m.importLibrary(ctx, req, p.update)
				p.finish()
				if err != nil {
					return err
				}
				return summarizeImport(stdout, im)
			})
		},
	}
	c.Flags().StringVar(&library, "library", "", "the Zotero library: users/<userID> or groups/<groupID> (--local: users/0)")
	c.Flags().StringVar(&key, "zotero-key", "", "a Zotero API key that may read the library (default $ZOTERO_API_KEY)")
	c.Flags().BoolVar(&local, "local", false, "read Zotero 7 desktop on this machine (http://localhost:23119/api/) instead of the web API")
	c.Flags().StringVar(&source, "format", "", "the export's format: bibtex, ris, csl-json or manifest (default: the file's extension)")
	return c
}

// importProgress shows an import's progress: a bar on a terminal, nothing
// otherwise (the summary follows).
type importProgress struct {
	b *progressbar.ProgressBar
}

func newImportProgress(w io.Writer, tty bool) *importProgress {
	if !tty {
		return &importProgress{}
	}
	return &importProgress{b: progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetDescription("importing"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth())}
}

func (p *importProgress) update(im papermem.Import) {
	if p.b == nil {
		return
	}
	if im.Total > 0 && p.b.GetMax() != im.Total {
		p.b.ChangeMax(im.Total)
	}
	p.b.Describe(fmt.Sprintf("%d papers, %d files, %d skipped", im.Papers, im.Documents, im.Skipped))
	p.b.Set(im.Items)
}

func (p *importProgress) finish() {
	if p.b != nil {
		p.b.Finish()
	}
}

// summarizeImport prints how an import ended; it fails when the import
// did, or when any item could not be stored.
func summarizeImport(w io.Writer, im *papermem.Import) error {
	fmt.Fprintf(w, "import %d of %s %s: %s\n", im.ID, im.Source, im.Library, im.Status)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITEMS\tPAPERS\tFILES\tDELETED\tSKIPPED\tERRORS")
	fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\n", im.Items, im.Papers, im.Documents, im.Deleted, im.Skipped, len(im.Errors))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range im.Errors {
		fmt.Fprintf(w, "  %s: %s (%s)\n", e.Item, e.Message, e.Code)
	}
	switch {
	case im.Status == papermem.ImportFailed:
		return errors.New(im.Message)
	case len(im.Errors) > 0:
		return fmt.Errorf("%d items could not be imported", len(im.Errors))
	}
	return nil
}

// importLibrary runs the import in process, the export's files read from
// req.Dir.
func (l local) importLibrary(ctx context.Context, req papermem.ImportRequest, progress func(papermem.Import)) (*papermem.Import, error) {
	return l.ws.RunImport(ctx, req, progress)
}

// importPoll is how often a server's import is asked for its progress.
const importPoll = 500 * time.Millisecond

// importLibrary starts the import on the server and follows it to its
// end: an export file is uploaded alone (the server reads no attached
// file); Zotero desktop is this machine's, which the server cannot read.
func (r remote) importLibrary(ctx context.Context, req papermem.ImportRequest, progress func(papermem.Import)) (*papermem.Import, error) {
	var im *papermem.Import
	var err error
	switch req.Source {
	case papermem.ImportZoteroLocal:
		return nil, errors.New("import zotero --local reads Zotero desktop on this machine into a database file: use --db, not --url")
	case papermem.ImportZotero:
		im, err = r.StartImport(ctx, api.ImportRequest{Source: req.Source, Library: req.Library, APIKey: req.APIKey})
	default:
		im, err = r.ImportFile(ctx, req.Name, bytes.NewReader(req.Data), req.Source)
	}
	for err == nil && im.Status == papermem.ImportRunning {
		progress(*im)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(importPoll):
		}
		im, err = r.ImportStatus(ctx, im.ID)
	}
	if err != nil {
		return nil, err
	}
	progress(*im)
	return im, nil
}
