// Command pdfclaims counts, for every PDF in a folder, the Claims that
// ingesting it stores which are not whole sentences of prose, beside the
// same counts for another revision of papermem built in the same run:
//
//	go run ./devtools/cmd/pdfclaims [-dir ../shared/testdocs/pdf] [-base HEAD] [-v]
//
// Each PDF goes through Workspace.IngestFile into a fresh database, and the
// stored Claim nodes are read back. A Claim
//   - starts mid-sentence when, after any opening quotes or brackets, it
//     begins with ',', ';', ':', '.', ')' or ']', or with a word whose
//     first letter is lower case and that holds no upper-case letter and
//     no digit ("mRNA", "pH", "p53", "iPhone" and "arXiv" open sentences)
//     and is not "e.g.", "i.e.", "cf." or "viz.";
//   - ends on a hyphenated fragment when its last character is a hyphen
//     ('-', U+2010 or a soft hyphen) right after a letter ("these ta-");
//   - ends unterminated when it ends with neither of those nor a sentence's
//     end: '.', '!', '?', ':' or ';' (closing quotes and brackets, and a
//     footnote number or marker after the punctuation, allowed). A table's
//     cell or row stored as a Claim ("full text full text snippets") ends
//     so, and so does a sentence cut short; the count bounds both.
//
// -base names a git revision (default HEAD, the last commit: the counts of
// uncommitted work beside it). Its tree is exported with git archive to a
// temporary folder, this command's files are copied into it, and it is
// run there with go run; "" skips it. The measuring code (measure.go) uses
// only the library's public API and the nodes table, so that it builds at
// older revisions too. -v lists the current build's offending Claims.
// -json prints the stored Claims of each file as JSON instead (the base
// run uses it).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pdfclaims:", err)
		os.Exit(1)
	}
}

// result is what one build stored for one file.
type result struct {
	Claims []string `json:"claims"`
	Error  string   `json:"error,omitempty"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pdfclaims", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "../shared/testdocs/pdf", "folder of PDFs")
	base := fs.String("base", "HEAD", `git revision to compare with ("" for none)`)
	verbose := fs.Bool("v", false, "list the offending Claims of the current build")
	asJSON := fs.Bool("json", false, "print each file's stored Claims as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(*dir, "*.pdf"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no PDF in %s", *dir)
	}
	sort.Strings(files)
	now, err := measure(ctx, files)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(now)
	}
	var then map[string]result
	if *base != "" {
		if then, err = measureAt(ctx, *base, files, stderr); err != nil {
			return fmt.Errorf("base %s: %w", *base, err)
		}
	}
	report(stdout, files, now, then, *base)
	if *verbose {
		listOffending(stdout, files, now)
	}
	return nil
}

// counts are one build's figures for one file.
type counts struct {
	claims, midStart, hyphenEnd, unterminated int
}

// add adds o's figures to c's.
func (c *counts) add(o counts) {
	c.claims += o.claims
	c.midStart += o.midStart
	c.hyphenEnd += o.hyphenEnd
	c.unterminated += o.unterminated
}

func count(r result) counts {
	c := counts{claims: len(r.Claims)}
	for _, s := range r.Claims {
		switch {
		case hyphenEnd(s):
			c.hyphenEnd++
		case unterminated(s):
			c.unterminated++
		}
		if midStart(s) {
			c.midStart++
		}
	}
	return c
}

// report prints a table of the counts, "base → now" when there is a base.
func report(w io.Writer, files []string, now, then map[string]result, base string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if then != nil {
		fmt.Fprintf(w, "Claims stored per PDF: %s → this tree\n", base)
	} else {
		fmt.Fprintln(w, "Claims stored per PDF: this tree")
	}
	fmt.Fprintln(tw, "file\tclaims\tstart mid-sentence\tend on hyphen\tend unterminated\t")
	var tn, tt counts
	cell := func(a, b int) string {
		if then == nil {
			return fmt.Sprint(b)
		}
		return fmt.Sprintf("%d → %d", a, b)
	}
	for _, f := range files {
		n := filepath.Base(f)
		if now[n].Error != "" || then != nil && then[n].Error != "" {
			msg := "error: " + now[n].Error
			if then != nil {
				msg = fmt.Sprintf("error: %q → %q", then[n].Error, now[n].Error)
			}
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\n", n, msg)
			continue
		}
		a, b := count(then[n]), count(now[n])
		tt.add(a)
		tn.add(b)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", n, cell(a.claims, b.claims), cell(a.midStart, b.midStart), cell(a.hyphenEnd, b.hyphenEnd), cell(a.unterminated, b.unterminated))
	}
	fmt.Fprintf(tw, "all\t%s\t%s\t%s\t%s\t\n", cell(tt.claims, tn.claims), cell(tt.midStart, tn.midStart), cell(tt.hyphenEnd, tn.hyphenEnd), cell(tt.unterminated, tn.unterminated))
	tw.Flush()
}

// listOffending prints each file's Claims that count in a column.
func listOffending(w io.Writer, files []string, now map[string]result) {
	for _, f := range files {
		n := filepath.Base(f)
		fmt.Fprintf(w, "\n%s\n", n)
		for _, s := range now[n].Claims {
			var why []string
			if midStart(s) {
				why = append(why, "mid-sentence")
			}
			if hyphenEnd(s) {
				why = append(why, "hyphen")
			} else if unterminated(s) {
				why = append(why, "unterminated")
			}
			if len(why) > 0 {
				fmt.Fprintf(w, "  %v %q\n", why, s)
			}
		}
	}
}
