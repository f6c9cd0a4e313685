package httpapi

import (
	"io"
	"net/http"
	"strings"

	"github.com/papermem/papermem"
)

var citeOp = op{tag: "papers", summary: "Cite a paper in BibTeX, RIS or CSL-JSON, from its stored metadata",
	query: []param{{name: "format", typ: "string",
		doc: "the citation format, one of " + strings.Join(papermem.CitationFormats, ", ") + " (case ignored); absent or empty means " +
			papermem.DefaultCitationFormat + "; any other value is 400 invalid_input"}},
	respType: "application/x-bibtex, application/x-research-info-systems, application/vnd.citationstyles.csl+json", resp: "",
	errs: []int{http.StatusNotFound},
	notes: "The reference, from what the workspace stores of the paper (title, authors, year, source_url as the URL, journal, type); nothing is looked up elsewhere. " +
		"Content-Type is the format's media type with charset=utf-8. " +
		"bibtex: one entry (@article for a journal-article or a paper of no type, @inproceedings for a proceedings-article, @misc for a preprint or any other type) keyed by the first author's family name, the year and the title's first significant word in lower-case ASCII (doe2020vitamin); " +
		"authors \"Family, Given\" joined with \" and \", the title in double braces, the journal as journal (booktitle, howpublished), TeX's special characters escaped, doi and url verbatim. " +
		"ris: one record, TY first (JOUR, CONF or GEN), TI, one AU line an author, PY, JO (T2), DO, UR, ER last, every line ending CRLF. " +
		"csl-json: a JSON array of one CSL item: id (the BibTeX key), type (article-journal, paper-conference, article or document), DOI, title, author ([{family, given}], {literal} for a one-word name), issued ({date-parts:[[year]]}), container-title, URL. " +
		"Unknown fields are left out. A paper stored without a DOI (a local: id) is cited without one. Unknown paper, or another workspace's: 404."}

func (s *server) handleCite(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	c, err := s.workspace(r).Cite(r.Context(), doi, r.URL.Query().Get("format"))
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", c.MediaType+"; charset=utf-8")
	h["X-Content-Type-Options"] = noSniff
	h["Cache-Control"] = noStore
	w.WriteHeader(http.StatusOK)
	_, err = io.WriteString(w, c.Text)
	return err
}
