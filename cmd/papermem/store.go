package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/spf13/cobra"
)

func storeCmd(t *target, stdin io.Reader, stdout io.Writer) *cobra.Command {
	var req api.PaperRequest
	var doi, sourceURL, file string
	var year int
	var asJSON bool
	c := &cobra.Command{
		Use:   "store",
		Short: "Store or update a paper: its DOI, title and other metadata, and its full text from --text or --file",
		Long: "Stores the paper with --doi, or updates it: fields left out keep their stored values. " +
			"Its text (plain or Markdown, from --text, or --file, - for stdin) becomes passages and claims to recall. " +
			"A PDF, DOCX or XLSX is read by ingest: papermem ingest FILE --doi DOI.",
		Args: wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			if !f.Changed("doi") && !f.Changed("title") && !f.Changed("source-url") {
				return &usageError{err: errors.New("store needs --doi, --title or --source-url")}
			}
			if f.Changed("doi") {
				req.DOI = &doi
			}
			if f.Changed("year") {
				req.Year = &year
			}
			if f.Changed("source-url") {
				req.SourceURL = &sourceURL
			}
			if file != "" {
				text, err := readText(file, stdin)
				if err != nil {
					return err
				}
				req.Text = text
			}
			return withMemory(cmd, t, writes, func(ctx context.Context, m memory) error {
				res, err := m.StorePaper(ctx, req)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, res)
				}
				var what []string
				if res.Report != nil {
					what = append(what, count(res.Report.NodesStored, "node"), count(res.Report.ClaimsFound, "claim"))
				}
				if !res.Cached {
					what = append(what, "no full text")
				}
				fmt.Fprintf(stdout, "stored doi:%s %q (%s)\n", res.DOI, res.Title, strings.Join(what, ", "))
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&doi, "doi", "", "the paper's DOI (default: found in --source-url or the text, else a local: id from the title)")
	f.StringVar(&req.Title, "title", "", "the title")
	f.StringVar(&req.Text, "text", "", "the full text, plain or Markdown")
	f.StringVar(&file, "file", "", "read the full text from this UTF-8 text or Markdown file (- for stdin)")
	f.StringArrayVar(&req.Authors, "author", nil, "an author (repeatable)")
	f.IntVar(&year, "year", 0, "publication year")
	f.StringVar(&req.Domain, "domain", "", "topic area, used to filter recall")
	f.StringVar(&sourceURL, "source-url", "", "where the full text can be fetched")
	f.BoolVar(&req.OA, "oa", false, "the paper is open access")
	f.BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	c.MarkFlagsMutuallyExclusive("text", "file")
	return c
}

// readText reads a paper's text from the file at path, or from stdin for
// "-"; a file that is not UTF-8 text is refused, pointing to ingest.
func readText(path string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", err
	}
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".pdf" || ext == ".docx" || ext == ".xlsx" || !utf8.Valid(b):
		return "", fmt.Errorf("%s is not UTF-8 text: store a PDF, DOCX or XLSX as the paper's full text with papermem ingest %s --doi DOI", path, path)
	}
	return string(b), nil
}
