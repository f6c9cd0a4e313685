package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/papermem/papermem"
)

// citationNotes documents what the references and citations routes share.
var citationNotes = "Each work has doi (\"\" when none is known), title, year (0 when unknown) and in_memory (the workspace holds a paper with that DOI), with openalex_id when OpenAlex knows it and text for a Crossref reference with neither DOI nor title. " +
	"Links are read from the origins once per paper (OpenAlex; Crossref's reference list when OpenAlex does not know the paper or lists no reference), at most " + fmt.Sprint(papermem.MaxReferences) + " references and " + fmt.Sprint(papermem.MaxCiters) + " citing works, and kept per workspace: " +
	"a paper whose links were never read is read on this request (the origins' answers come from their day-long cache). refresh=true asks the origins again and replaces the stored links; a failure (502) keeps them; with the origins off it is 400. " +
	"status is fetched, unknown (no origin knows the DOI) or not_fetched (origins off, or a local id); total is the origin's count, which may exceed the works listed. 404 for a paper the workspace does not hold."

// refreshParam is the refresh query parameter.
var refreshParam = param{name: "refresh", typ: "boolean", doc: "true: ask the origins again and replace the stored links; default false"}

var referencesOp = op{tag: "papers", summary: "The works a paper cites", query: []param{refreshParam},
	resp: papermem.CitationList{}, errs: []int{http.StatusNotFound, http.StatusBadGateway},
	notes: "The paper's references, in the origin's order. " + citationNotes}

var citationsOp = op{tag: "papers", summary: "The works citing a paper", query: []param{refreshParam},
	resp: papermem.CitationList{}, errs: []int{http.StatusNotFound, http.StatusBadGateway},
	notes: "The works citing the paper, as OpenAlex pages them (none for a paper OpenAlex does not know). " + citationNotes}

func (s *server) handleReferences(w http.ResponseWriter, r *http.Request) error {
	return s.citationList(w, r, (*papermem.Workspace).References)
}

func (s *server) handleCitations(w http.ResponseWriter, r *http.Request) error {
	return s.citationList(w, r, (*papermem.Workspace).Citations)
}

type citationGetter func(*papermem.Workspace, context.Context, string, papermem.CitationOptions) (*papermem.CitationList, error)

func (s *server) citationList(w http.ResponseWriter, r *http.Request, get citationGetter) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	var o papermem.CitationOptions
	if o.Refresh, err = boolOf(r, "refresh"); err != nil {
		return err
	}
	l, err := get(s.workspace(r), r.Context(), doi, o)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, l)
}

// citationLimitParam is the limit of related and gaps.
var citationLimitParam = param{name: "limit", typ: "integer", doc: "most entries, 1..100; default 20"}

var relatedOp = op{tag: "papers", summary: "Papers in memory related to a paper by citations", query: []param{citationLimitParam},
	resp: []papermem.CitationRelated{}, errs: []int{http.StatusNotFound, http.StatusBadGateway},
	notes: "A JSON array of the workspace's papers (only papers in memory) sharing references (coupling: works both cite) or citers (co_citation: works citing both) with the paper, " +
		"best first by score = coupling + co_citation, then DOI. Counted over the stored links of every paper of the workspace: a paper citing both counts as a citer whichever paper's links name it. " +
		"The paper's own links are read first if they never were. 404 for a paper the workspace does not hold."}

func (s *server) handleRelated(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	n, err := limitOf(r, papermem.MaxCitationLimit)
	if err != nil {
		return err
	}
	rel, err := s.workspace(r).Related(r.Context(), doi, n)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rel)
}

var gapsOp = op{tag: "graph", summary: "Works the workspace's papers cite and it lacks", query: []param{citationLimitParam},
	resp: []papermem.CitationGap{},
	notes: "A JSON array of works not in memory, most cited by the workspace's papers first (count, with cited_by their DOIs), then by DOI or OpenAlex id. " +
		"Only stored links count (nothing is fetched); references known by their text alone are left out."}

func (s *server) handleGaps(w http.ResponseWriter, r *http.Request) error {
	n, err := limitOf(r, papermem.MaxCitationLimit)
	if err != nil {
		return err
	}
	gaps, err := s.workspace(r).Gaps(r.Context(), n)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, gaps)
}
