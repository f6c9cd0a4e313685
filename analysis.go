package papermem

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/store"
)

// Analysis is a reviewer's analysis of a paper, keyed by the paper's DOI.
type Analysis = api.Analysis

// StoreAnalysis stores or replaces the analysis of a.DOI and indexes its
// markdown as Analysis nodes (and the claims in it as Claim nodes). When
// a.ClaimsExtracted is zero it is set to the number of claims found. The
// paper itself need not be in memory. Errors: EINVALID.
func (w *Workspace) StoreAnalysis(ctx context.Context, a Analysis) (_ *Analysis, err error) {
	defer translate(&err)
	doi := NormalizeDOI(a.DOI)
	if doi == "" {
		return nil, Errorf(EINVALID, "doi is required and must be a DOI.")
	}
	if strings.TrimSpace(a.Markdown) == "" {
		return nil, Errorf(EINVALID, "markdown is required.")
	}
	a.DOI = doi
	ns := sectionNodes(analysisSections(a), LabelAnalysis, "")
	if a.ClaimsExtracted == 0 {
		a.ClaimsExtracted = countLabel(ns, LabelClaim)
	}
	if err := w.m.embedNodes(ctx, ns); err != nil {
		return nil, err
	}
	a.UpdatedAt = w.m.nowString()
	row := &store.Analysis{DOI: doi, Markdown: a.Markdown, CoreClaim: a.CoreClaim, Acceptance: a.Acceptance,
		Scorecard: a.Scorecard, SharpestFlaw: a.SharpestFlaw, ClaimsExtracted: a.ClaimsExtracted, UpdatedAt: a.UpdatedAt}
	nodes := stored(ns)
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		return tx.StoreAnalysis(ctx, w.id, row, nodes)
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// analysisSections are the recallable parts of an analysis: the sections of
// its markdown, then its core claim and sharpest flaw as sections of their
// own, each with offsets into its own field.
func analysisSections(a Analysis) []extract.Section {
	sections := textSections(a.Markdown)
	for _, f := range []struct{ heading, text string }{{"Core claim", a.CoreClaim}, {"Sharpest flaw", a.SharpestFlaw}} {
		if t := strings.TrimSpace(f.text); t != "" {
			start := utf8.RuneCountInString(f.text[:strings.Index(f.text, t)])
			sections = append(sections, extract.Section{Heading: f.heading, Type: extract.SectionType(f.heading), Text: t, CharStart: start})
		}
	}
	return sections
}

// Analysis returns the analysis of the paper with the DOI. Errors:
// EINVALID, ENOTFOUND.
func (w *Workspace) Analysis(ctx context.Context, doi string) (_ *Analysis, err error) {
	defer translate(&err)
	d := NormalizeDOI(doi)
	if d == "" {
		return nil, Errorf(EINVALID, "%q is not a DOI.", doi)
	}
	r, err := store.AnalysisByDOI(ctx, w.m.db, w.id, d)
	if err != nil {
		return nil, dbError(err, "No analysis of "+d+".")
	}
	return &Analysis{DOI: r.DOI, Markdown: r.Markdown, CoreClaim: r.CoreClaim, Acceptance: r.Acceptance, Scorecard: r.Scorecard,
		SharpestFlaw: r.SharpestFlaw, ClaimsExtracted: r.ClaimsExtracted, UpdatedAt: r.UpdatedAt}, nil
}
