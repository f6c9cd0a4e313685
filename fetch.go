package papermem

import (
	"bytes"
	"context"
	"strings"

	"github.com/papermem/papermem/api"
)

// Fetcher downloads a document from its origin URL. Implementations
// should bound time and size and refuse private addresses.
type Fetcher interface {
	Fetch(ctx context.Context, url string) (body []byte, contentType string, err error)
}

// FetchResult reports where a paper's full text came from.
type FetchResult = api.FetchResult

// FetchPaper makes sure the paper's full text is in memory: cache first,
// else a download from its source_url through Options.Fetcher or, for a
// paper without one, of an open-access copy its origins know of
// (Options.Origins: Unpaywall's best location, then OpenAlex's, then
// arXiv's), which is then ingested with IngestFile (PDF, Markdown or plain
// text, by content type). Errors: EINVALID (also an unreadable download),
// ENOTFOUND (paper unknown, or no text and nowhere to fetch it from: no
// source_url and no open-access copy), EUPSTREAM (origin failed),
// ETOOLARGE.
func (w *Workspace) FetchPaper(ctx context.Context, doi string) (_ *FetchResult, err error) {
	defer translate(&err)
	p, err := w.paperByDOI(ctx, doi)
	if err != nil {
		return nil, err
	}
	d := p.DOI
	if p.text != "" {
		return w.countFetch(&FetchResult{DOI: d, Warm: true, Bytes: len(p.text), BytesSaved: len(p.text), Source: "memory"}), nil
	}
	var body []byte
	var ctype string
	switch {
	case p.SourceURL == "" && w.m.origins != nil && !isLocalID(d):
		if body, ctype, err = w.fetchOpenAccess(ctx, d); err != nil {
			return nil, err
		}
	case p.SourceURL == "":
		return nil, Errorf(ENOTFOUND, "Paper %s has no text in memory and no source_url to fetch it from.", d)
	case w.m.fetcher == nil:
		return nil, Errorf(EUPSTREAM, "Fetching from origin is not configured.")
	default:
		if body, ctype, err = w.m.fetcher.Fetch(ctx, p.SourceURL); err != nil {
			return nil, &Error{Code: EUPSTREAM, Message: "Fetching the paper from its origin failed.", Err: err}
		}
	}
	name := "paper.md"
	switch {
	case strings.Contains(ctype, "pdf") || strings.HasPrefix(string(body), "%PDF"):
		name = "paper.pdf"
	case !strings.Contains(ctype, "markdown"):
		name = "paper.txt"
	}
	if _, err := w.ingestPaperFile(ctx, p, name, body); err != nil {
		return nil, err
	}
	return w.countFetch(&FetchResult{DOI: d, Warm: false, Bytes: len(body), BytesSaved: 0, Source: "origin"}), nil
}

// ingestPaperFile ingests a downloaded file as the full text of paper p.
func (w *Workspace) ingestPaperFile(ctx context.Context, p *storedPaper, name string, body []byte) (*IngestReport, error) {
	return w.ingest(ctx, name, bytes.NewReader(body), IngestOptions{DOI: p.DOI}, true)
}
