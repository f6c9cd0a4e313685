package papermem

import (
	"context"
	"fmt"
	"strings"

	"github.com/papermem/papermem/internal/citation"
)

// The citation formats Cite renders, from a paper's stored metadata alone.
const (
	CitationBibTeX  = citation.FormatBibTeX  // one BibTeX entry (application/x-bibtex)
	CitationRIS     = citation.FormatRIS     // one RIS record, CRLF line ends (application/x-research-info-systems)
	CitationCSLJSON = citation.FormatCSLJSON // an array of one CSL-JSON item (application/vnd.citationstyles.csl+json)

	// DefaultCitationFormat is the format of an empty format name.
	DefaultCitationFormat = CitationBibTeX
)

// CitationFormats lists the citation formats, the default first.
var CitationFormats = []string{CitationBibTeX, CitationRIS, CitationCSLJSON}

// Citation is a paper's reference in a citation format.
type Citation struct {
	DOI       string // the paper's DOI, normalised (or its local: id)
	Format    string // one of CitationFormats
	MediaType string // the format's media type, e.g. "application/x-bibtex"
	Text      string // the reference, UTF-8
}

// Cite renders the stored paper with the DOI as a reference in format
// (BibTeX, RIS or CSL-JSON; case ignored, "" means DefaultCitationFormat),
// from what memory holds of it: title, authors, year, source URL, journal
// and work type (Crossref's: a journal-article, or a paper of no type, is a BibTeX
// @article, a proceedings-article @inproceedings, anything else @misc). Nothing is
// looked up elsewhere. A paper stored without a DOI (a local: id) is
// cited without one. The BibTeX key, also the CSL-JSON id, is the first
// author's family name, the year and the title's first significant word,
// in lower-case ASCII ("doe2020vitamin"). Errors: EINVALID (a format not
// in CitationFormats, or a DOI that is not one), ENOTFOUND.
func (w *Workspace) Cite(ctx context.Context, doi, format string) (_ *Citation, err error) {
	defer translate(&err)
	f, ok := citation.Canonical(format)
	if !ok {
		return nil, Errorf(EINVALID, "format %q is not a citation format: use %s.", format, strings.Join(CitationFormats, ", "))
	}
	p, err := w.Paper(ctx, doi)
	if err != nil {
		return nil, err
	}
	work := citation.Work{Title: p.Title, Authors: p.Authors, Year: p.Year, URL: p.SourceURL,
		Journal: p.Journal, Type: p.Type}
	if !isLocalID(p.DOI) {
		work.DOI = p.DOI
	}
	text, mediaType, err := citation.Format(work, f)
	if err != nil {
		return nil, fmt.Errorf("cite %q as %s: %w", p.DOI, f, err)
	}
	return &Citation{DOI: p.DOI, Format: f, MediaType: mediaType, Text: text}, nil
}
