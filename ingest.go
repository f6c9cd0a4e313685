package papermem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/store"
)

// IngestOptions qualify an ingested file.
type IngestOptions = api.IngestOptions

// IngestFormat is a file format IngestFile reads and the file name extensions
// (lower case, with the dot) that select it.
type IngestFormat = api.IngestFormat

// IngestFormats lists the formats IngestFile reads: markdown, text, csv,
// json, pdf, xlsx and docx.
func IngestFormats() []IngestFormat {
	fs := extract.Formats()
	out := make([]IngestFormat, len(fs))
	for i, f := range fs {
		out[i] = IngestFormat{Format: string(f.Format), Extensions: f.Extensions}
	}
	return out
}

// MaxIngestBytes is the largest file IngestFile accepts (Options.MaxIngestBytes).
func (m *Memory) MaxIngestBytes() int64 { return m.maxIngestBytes }

// maxNameBytes bounds an ingested file's name.
const maxNameBytes = 255

// IngestFile reads a file and adds it to the workspace's memory. Its format
// comes from the extension of name (see IngestFormats); its text is
// extracted with its structure — pages, sheets and rows, sections — under
// a time limit (extract.DefaultTimeout) and a guard that turns any parser
// failure into an error.
//
// A file that carries a DOI (opts.DOI, or one in its metadata, first page
// or a top-level "doi" field) becomes, or updates, the paper with that DOI:
// its extracted text replaces the paper's full text and its title, year
// and authors fill the fields the paper lacks (opts.Title overrides the
// title). Any other file becomes a new document, recalled as Document
// passages and Claim nodes with provenance kind "document", source the
// file's name. Either way offsets count runes of the extracted text, and
// everything is written in one transaction: a failed ingest stores
// nothing.
//
// Errors: EUNSUPPORTED (unknown extension), ETOOLARGE (over
// Options.MaxIngestBytes; r is read no further than one byte past it),
// EINVALID (no name, a malformed DOI, or a corrupt, encrypted, truncated or
// empty file, with the reason), EUPSTREAM (the embedder failed).
func (w *Workspace) IngestFile(ctx context.Context, name string, r io.Reader, opts IngestOptions) (_ *IngestReport, err error) {
	defer translate(&err)
	return w.ingest(ctx, name, r, opts, false)
}

// ingest is IngestFile, observed; stored is set by FetchPaper: the paper
// was looked up at its origins when it was stored, so ingesting its full
// text does not ask them again.
func (w *Workspace) ingest(ctx context.Context, name string, r io.Reader, opts IngestOptions, stored bool) (*IngestReport, error) {
	ctx, end := w.m.observe(ctx, OpIngest, ingestFormat(name))
	rep, err := w.ingestFile(ctx, name, r, opts, stored)
	end(0, err)
	return rep, err
}

// ingestFile is ingest, unobserved.
func (w *Workspace) ingestFile(ctx context.Context, name string, r io.Reader, opts IngestOptions, stored bool) (*IngestReport, error) {
	start := time.Now()
	name, format, err := ingestName(name)
	if err != nil {
		return nil, err
	}
	doi := ""
	if strings.TrimSpace(opts.DOI) != "" {
		if doi = NormalizeDOI(opts.DOI); doi == "" {
			return nil, Errorf(EINVALID, "%q is not a DOI.", opts.DOI)
		}
	}
	opts.Title, opts.Domain = strings.TrimSpace(opts.Title), strings.TrimSpace(opts.Domain)
	if !utf8.ValidString(opts.Title) || !utf8.ValidString(opts.Domain) {
		return nil, Errorf(EINVALID, "title and domain must be UTF-8.")
	}

	in := &countingReader{r: r}
	doc, err := extract.Extract(ctx, format, in, extract.Limits{MaxBytes: w.m.maxIngestBytes})
	if err != nil {
		return nil, extractError(ctx, name, err)
	}
	if doi == "" && doc.DOI != "" {
		doi = NormalizeDOI(doc.DOI)
	}
	rep := &IngestReport{Format: string(doc.Format), CharsRead: doc.Chars, Pages: doc.Pages,
		Sections: len(doc.Sections), Rows: doc.Rows}
	if doi != "" {
		err = w.ingestPaper(ctx, doi, doc, opts, stored, rep)
		if err == nil {
			w.countPaper(int(in.n))
		}
	} else {
		err = w.ingestDocument(ctx, name, in.n, doc, opts, rep)
		if err == nil {
			w.countDocument(in.n)
		}
	}
	if err != nil {
		return nil, err
	}
	rep.ElapsedMS = time.Since(start).Milliseconds()
	return rep, nil
}

// ingestName checks a file name, drops any directories a client sent with
// it and finds its format.
func ingestName(name string) (string, extract.Format, error) {
	name = strings.TrimSpace(name[strings.LastIndexAny(name, `/\`)+1:])
	if name == "" {
		return "", "", Errorf(EINVALID, "The file needs a name with an extension such as .pdf or .md.")
	}
	if !utf8.ValidString(name) || len(name) > maxNameBytes {
		return "", "", Errorf(EINVALID, "The file name must be UTF-8 and at most %d bytes.", maxNameBytes)
	}
	format, ok := extract.FormatFor(name)
	if !ok {
		var exts []string
		for _, f := range extract.Formats() {
			exts = append(exts, f.Extensions...)
		}
		return "", "", Errorf(EUNSUPPORTED, "Cannot ingest %q: supported extensions are %s.", name, strings.Join(exts, ", "))
	}
	return name, format, nil
}

// extractError translates an extraction failure: bad input keeps the
// parser's reason, a canceled context passes through, and a failing reader
// (a broken upload) is EINVALID.
func extractError(ctx context.Context, name string, err error) error {
	var xe *extract.Error
	switch {
	case errors.As(err, &xe) && errors.Is(err, extract.ErrTooLarge):
		return &Error{Code: ETOOLARGE, Message: fmt.Sprintf("%s is larger than the maximum file size.", name), Err: err}
	case errors.As(err, &xe) && errors.Is(err, extract.ErrUnsupported):
		return &Error{Code: EUNSUPPORTED, Message: fmt.Sprintf("Cannot ingest %s: %s.", name, xe.Reason), Err: err}
	case errors.As(err, &xe):
		return &Error{Code: EINVALID, Message: fmt.Sprintf("Cannot read %s: %s.", name, xe.Reason), Err: err}
	case ctx.Err() != nil:
		return err
	}
	return &Error{Code: EINVALID, Message: fmt.Sprintf("Reading %s failed.", name), Err: err}
}

// ingestPaper stores doc as the full text of the paper with the DOI. The
// paper's stored text is doc's extracted text, so that node offsets cite it.
func (w *Workspace) ingestPaper(ctx context.Context, doi string, doc *extract.Document, opts IngestOptions, stored bool, rep *IngestReport) error {
	old, err := w.paper(ctx, w.m.db, doi)
	if err != nil && ErrorCode(err) != ENOTFOUND {
		return err
	}
	text := doc.Text()
	p := mergePaper(old, doi, PaperInput{Title: opts.Title, Domain: opts.Domain, Text: text}, filed{})
	if p.Title == "" {
		p.Title = doc.Title
	}
	if p.Year == 0 {
		p.Year = doc.Year
	}
	if len(p.Authors) == 0 && len(doc.Authors) > 0 {
		p.Authors = doc.Authors
	}
	if !stored {
		w.planMetadata(p, false)
	}
	rep.DocID, rep.Kind = doi, KindPaper
	return w.storePaper(ctx, p, text, doc.Sections, rep)
}

// ingestDocument stores doc as a new document named name, of size bytes.
// Its nodes are chunked and embedded (on every CPU for a large file) before
// the write transaction begins, so that no other write waits on that work.
func (w *Workspace) ingestDocument(ctx context.Context, name string, size int64, doc *extract.Document, opts IngestOptions, rep *IngestReport) error {
	title := opts.Title
	if title == "" {
		title = doc.Title
	}
	if title == "" {
		title = name
	}
	ns := indexNodes(doc.Sections, LabelDocument, opts.Domain)
	if err := w.m.embedParallel(ctx, ns); err != nil {
		return err
	}
	var id int64
	nodes := stored(ns)
	err := w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		var err error
		id, err = tx.StoreDocument(ctx, w.id, &store.Document{Name: name, Format: string(doc.Format), Title: title,
			Domain: opts.Domain, Bytes: size, CreatedAt: w.m.nowString()}, nodes)
		return err
	})
	if err != nil {
		return err
	}
	rep.DocID, rep.Kind = fmt.Sprintf("doc:%d", id), KindDocument
	rep.NodesStored = len(ns)
	rep.ClaimsFound = countLabel(ns, LabelClaim)
	return nil
}

// parallelMin is the size (bytes of text, or nodes to embed) from which
// indexing is spread over the CPUs.
const parallelMin = 64 << 10

// indexNodes is sectionNodes spread over the CPUs for large inputs: runs of
// sections of about equal size are chunked and searched for claims in
// parallel. Sections are independent, so the nodes, their order and their
// parents are those sectionNodes returns.
func indexNodes(sections []extract.Section, label, domain string) []node {
	size := 0
	for _, s := range sections {
		size += len(s.Text)
	}
	n := min(runtime.GOMAXPROCS(0), len(sections))
	if n < 2 || size < parallelMin {
		return sectionNodes(sections, label, domain)
	}
	var runs [][]extract.Section
	start, acc := 0, 0
	for i, s := range sections {
		acc += len(s.Text)
		if acc*n >= size*(len(runs)+1) || i == len(sections)-1 {
			runs = append(runs, sections[start:i+1])
			start = i + 1
		}
	}
	parts := make([][]node, len(runs))
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Go(func() { parts[i] = sectionNodes(run, label, domain) })
	}
	wg.Wait()
	var out []node
	for _, p := range parts {
		off := len(out)
		for j := range p {
			if p[j].parent >= 0 {
				p[j].parent += off
			}
		}
		out = append(out, p...)
	}
	return out
}

// embedParallel is embedNodes over runs of ns embedded concurrently, one
// per CPU, when ns is large.
func (m *Memory) embedParallel(ctx context.Context, ns []node) error {
	n := runtime.GOMAXPROCS(0)
	size := 0
	for _, x := range ns {
		size += len(x.Text)
	}
	if n < 2 || size < parallelMin {
		return m.embedNodes(ctx, ns)
	}
	per := (len(ns) + n - 1) / n
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i*per < len(ns); i++ {
		run := ns[i*per : min((i+1)*per, len(ns))]
		wg.Go(func() { errs[i] = m.embedNodes(ctx, run) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
