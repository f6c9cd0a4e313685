// Command importbench measures a Zotero import (issue 41): a library of
// -items regular items, -pdfs of them with a PDF of -pages pages, served
// by the Zotero web API stand-in (internal/zotero/zoterotest) on a local
// port, imported into a fresh SQLite file (or -db) through the library's
// RunImport, as POST /v1/imports and papermem import zotero run it. It
// prints the first import's time and counts, then the time of a second
// import of the unchanged library (one request, answered 304) and of one
// after 10 items were edited.
//
//	go run ./devtools/cmd/importbench [-items 1000] [-pdfs 200] [-pages 8] [-scifact ../shared/eval/scifact]
//
// Texts are SciFact abstracts (corpus.jsonl.gz in -scifact):
// each item's title and abstract one document's, each PDF page five
// documents' text, about 1,000 words a page. A tenth of the items have
// no DOI and a tenth of the rest carry theirs in Extra, as Zotero keeps it
// for item types without a DOI field; every item has a child note.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/scifact"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/internal/zotero/zoterotest"
)

func main() {
	items := flag.Int("items", 1000, "regular items in the library")
	pdfs := flag.Int("pdfs", 200, "items with a PDF")
	pages := flag.Int("pages", 8, "pages of each PDF")
	scifactDir := flag.String("scifact", scifact.DefaultDir, "directory of the SciFact corpus: the texts")
	db := flag.String("db", "", "database (a SQLite file or a postgres:// URL); default a new file in a temporary directory")
	flag.Parse()
	if err := run(*items, *pdfs, *pages, *scifactDir, *db); err != nil {
		fmt.Fprintln(os.Stderr, "importbench:", err)
		os.Exit(1)
	}
}

// wrap cuts text into lines of about 90 characters.
func wrap(text string) []string {
	var lines []string
	var b strings.Builder
	for _, w := range strings.Fields(text) {
		if b.Len()+len(w) > 90 {
			lines = append(lines, b.String())
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	if b.Len() > 0 {
		lines = append(lines, b.String())
	}
	return lines
}

func run(items, pdfs, pages int, scifactDir, db string) error {
	docs, err := scifact.Corpus(scifactDir)
	if err != nil {
		return err
	}
	lib := zoterotest.New("users/4242", "bench-key")
	srv := lib.Start()
	defer srv.Close()
	tags := []string{"methods", "cohort", "trial", "review", "genetics"}
	lib.Put("COLLBENCH", map[string]any{"itemType": "collection", "name": "Reading list"})
	for i := range items {
		d := docs[i%len(docs)]
		data := map[string]any{"itemType": "journalArticle", "title": d.Title, "abstractNote": d.Text, "date": fmt.Sprint(1990 + i%35),
			"publicationTitle": "Journal " + fmt.Sprint(i%40),
			"creators":         []map[string]any{{"creatorType": "author", "firstName": "Ada", "lastName": fmt.Sprintf("Author%d", i)}},
			"tags":             []map[string]any{{"tag": tags[i%len(tags)]}}, "collections": []string{"COLLBENCH"}}
		switch {
		case i%10 == 9: // no DOI: a local id
		case i%10 == 8:
			data["itemType"], data["extra"] = "report", fmt.Sprintf("DOI: 10.5555/bench.%d", i)
		default:
			data["DOI"] = fmt.Sprintf("10.5555/bench.%d", i)
		}
		key := fmt.Sprintf("ITEM%04d", i)
		lib.Put(key, data)
		lib.Put(fmt.Sprintf("NOTE%04d", i), map[string]any{"itemType": "note", "parentItem": key, "note": "<p>read</p>"})
		if i < pdfs {
			var ps [][]string
			for p := range pages {
				var text []string
				for k := range 5 {
					text = append(text, docs[(items+i*pages*5+p*5+k)%len(docs)].Text)
				}
				ps = append(ps, wrap(strings.Join(text, " ")))
			}
			lib.PutFile(fmt.Sprintf("PDF%04d", i), testutil.PDFPages(ps...), map[string]any{"parentItem": key})
		}
	}
	if db == "" {
		dir, err := os.MkdirTemp("", "importbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db = filepath.Join(dir, "bench.db")
	}
	ctx := context.Background()
	m, err := papermem.Open(ctx, db, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: srv.URL},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer m.Close()
	req := papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/4242", APIKey: "bench-key"}
	fmt.Printf("library: %d items (%d with a %d-page PDF, %d notes), %d requests to build\n", items, pdfs, pages, items, len(lib.Requests()))
	start := time.Now()
	last := time.Now()
	var mu sync.Mutex // progress is called from the import's workers at once
	im, err := m.RunImport(ctx, req, func(im papermem.Import) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "  %5.1fs: %d/%d items read, %d papers, %d PDFs\n", time.Since(start).Seconds(), im.Items, im.Total, im.Papers, im.Documents)
		}
	})
	if err != nil {
		return err
	}
	first := time.Since(start)
	fmt.Printf("first import: %.1f s (%s; %d items read, %d papers, %d PDFs, %d skipped, %d errors; %d requests, at most %d in flight)\n",
		first.Seconds(), im.Status, im.Items, im.Papers, im.Documents, im.Skipped, len(im.Errors), len(lib.Requests()), lib.MaxInFlight())
	for _, e := range im.Errors {
		fmt.Printf("  error %s: %s\n", e.Item, e.Message)
	}
	start = time.Now()
	im, err = m.RunImport(ctx, req, nil)
	if err != nil {
		return err
	}
	fmt.Printf("unchanged library: %.3f s (%d items read, %d requests)\n", time.Since(start).Seconds(), im.Items, len(lib.Requests()))
	for i := range 10 {
		key := fmt.Sprintf("ITEM%04d", i*7)
		lib.Put(key, map[string]any{"itemType": "journalArticle", "title": fmt.Sprintf("Edited title %d", i), "DOI": fmt.Sprintf("10.5555/bench.%d", i*7)})
	}
	start = time.Now()
	im, err = m.RunImport(ctx, req, nil)
	if err != nil {
		return err
	}
	fmt.Printf("10 items edited: %.2f s (%d items read, %d papers, %d PDFs, %d requests)\n", time.Since(start).Seconds(), im.Items, im.Papers, im.Documents, len(lib.Requests()))
	return nil
}
