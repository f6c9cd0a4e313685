package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/papermem/papermem/api"
)

// Paper is a row of papers. Text is the full text, or its first character
// in a listing (Papers). Authors and Notices are stored as JSON arrays.
type Paper struct {
	ID                int64
	DOI, Title        string
	Year              int
	Authors           []string
	OA                bool
	SourceURL, Domain string
	Journal, Type     string // the venue and the kind of work, as the origins name them
	Retracted         bool
	Notices           []Notice
	Text              string
	// Metadata is where the origins' metadata stands: MetadataPending,
	// MetadataComplete or MetadataUnavailable.
	Metadata string
}

// Paper.Metadata's values.
const (
	MetadataPending     = api.MetadataPending     // a background job is to ask the origins
	MetadataComplete    = api.MetadataComplete    // the origins answered, or had nothing to add
	MetadataUnavailable = api.MetadataUnavailable // no origin can be asked, or the job gave up
)

// Notice is an editorial notice about a paper: a retraction, a correction
// or an expression of concern, with the notice's own DOI and its date.
type Notice struct {
	Type string `json:"type"`
	DOI  string `json:"doi,omitempty"`
	Date string `json:"date,omitempty"`
}

const paperColumns = `id, doi, title, year, authors, oa, source_url, domain, journal, work_type, retracted, notices, text, metadata`

// scanPaper scans one row of paperColumns.
func scanPaper(sc scanner) (*Paper, error) {
	var p Paper
	var authors, notices string
	if err := sc.Scan(&p.ID, &p.DOI, &p.Title, &p.Year, &authors, &p.OA, &p.SourceURL, &p.Domain,
		&p.Journal, &p.Type, &p.Retracted, &notices, &p.Text, &p.Metadata); err != nil {
		return nil, err
	}
	// JSON columns (jsoncol.go): anything but valid JSON reads as no
	// authors or notices.
	if !decodeColumn(authors, &p.Authors) || p.Authors == nil {
		p.Authors = []string{}
	}
	if !decodeColumn(notices, &p.Notices) {
		p.Notices = nil
	}
	return &p, nil
}

// StorePaper stores org's paper p at now, inserted, or updated in place
// when org holds its DOI, and replaces the paper's nodes with ns (their IDs
// set). It returns the paper's row id.
func (t *Tx) StorePaper(ctx context.Context, org string, p *Paper, ns []Node, now string) (int64, error) {
	id, err := upsertPaper(ctx, t, org, p, now)
	if err != nil {
		return 0, err
	}
	o := Owner{Org: org, Kind: kindPaper, ID: id}
	if err := deleteNodes(ctx, t, o); err != nil {
		return 0, err
	}
	return id, putNodes(ctx, t, o, ns, now)
}

// DeletePaper deletes org's paper doi with its nodes, and the analysis of
// the paper with the analysis's nodes. Errors: ErrNotFound when org holds
// no paper doi.
func (t *Tx) DeletePaper(ctx context.Context, org, doi string) error {
	id, err := PaperID(ctx, t, org, doi)
	if err != nil {
		return err
	}
	if err := deleteNodes(ctx, t, Owner{Org: org, Kind: kindPaper, ID: id}); err != nil {
		return err
	}
	if err := removeAnalysis(ctx, t, org, doi); err != nil {
		return err
	}
	if err := deletePaperLabels(ctx, t, org, id); err != nil {
		return err
	}
	return deletePaper(ctx, t, org, id)
}

// upsertPaper inserts org's paper p, or updates the paper with its DOI,
// and returns its row id.
func upsertPaper(ctx context.Context, q Querier, org string, p *Paper, now string) (int64, error) {
	authors, notices := jsonArray(p.Authors), jsonArray(p.Notices)
	var id int64
	err := queryRow(ctx, q, `INSERT INTO papers (org_id, doi, title, year, authors, oa, source_url, domain,
			journal, work_type, retracted, notices, text, metadata, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (org_id, doi) DO UPDATE SET title = excluded.title, year = excluded.year,
			authors = excluded.authors, oa = excluded.oa, source_url = excluded.source_url,
			domain = excluded.domain, journal = excluded.journal, work_type = excluded.work_type,
			retracted = excluded.retracted, notices = excluded.notices,
			text = excluded.text, metadata = excluded.metadata, updated_at = excluded.updated_at
		RETURNING id`,
		org, p.DOI, p.Title, p.Year, authors, p.OA, p.SourceURL, p.Domain,
		p.Journal, p.Type, p.Retracted, notices, p.Text, cmp.Or(p.Metadata, MetadataComplete), now, now).Scan(&id)
	return id, err
}

// jsonArray encodes a slice as a JSON array, nil as [].
func jsonArray[T any](xs []T) string {
	if xs == nil {
		return "[]"
	}
	b, _ := json.Marshal(xs) // strings and Notices always encode
	return string(b)
}

// PaperByDOI returns org's paper doi.
func PaperByDOI(ctx context.Context, q Querier, org, doi string) (*Paper, error) {
	return scanPaper(queryRow(ctx, q, `SELECT `+paperColumns+` FROM papers WHERE org_id = ? AND doi = ?`, org, doi))
}

// PaperExists reports whether org holds the paper doi.
func PaperExists(ctx context.Context, q Querier, org, doi string) (bool, error) {
	var n int
	err := queryRow(ctx, q, `SELECT count(*) FROM papers WHERE org_id = ? AND doi = ?`, org, doi).Scan(&n)
	return n > 0, err
}

// PaperIDs returns the row ids of org's papers with the DOIs (normalised),
// in no particular order; a DOI org does not hold gives none.
func PaperIDs(ctx context.Context, q Querier, org string, dois []string) ([]int64, error) {
	var all []int64
	for len(dois) > 0 { // a batch at a time: a tag's papers may be many
		n := min(len(dois), keysPerQuery)
		args := make([]any, 0, 1+n)
		args = append(args, org)
		for _, d := range dois[:n] {
			args = append(args, d)
		}
		dois = dois[n:]
		ids, err := scanIDs(q.QueryContext(ctx, `SELECT id FROM papers WHERE org_id = ? AND doi IN (`+placeholders(n)+`)`, args...))
		if err != nil {
			return nil, fmt.Errorf("paper ids: %w", err)
		}
		all = append(all, ids...)
	}
	return all, nil
}

// deletePaper deletes org's paper row id.
func deletePaper(ctx context.Context, q Querier, org string, id int64) error {
	_, err := q.ExecContext(ctx, `DELETE FROM papers WHERE org_id = ? AND id = ?`, org, id)
	return err
}

// listedColumns are paperColumns with the first character of the text
// only: enough to tell whether the full text is in memory.
const listedColumns = `id, doi, title, year, authors, oa, source_url, domain, journal, work_type, retracted, notices, substr(text, 1, 1), metadata`

// PapersByID returns org's paper rows ids, in no order, with the first
// character of their text only (e is the engine of q). SQLite is told to
// look the ids up by rowid: left to itself it walks the workspace's part
// of the (org_id, doi) index, every paper of it.
func PapersByID(ctx context.Context, q Querier, e Engine, org string, ids []int64) ([]Paper, error) {
	return scanPapers(q.QueryContext(ctx, `SELECT `+listedColumns+` FROM papers `+e.NotIndexed()+` WHERE org_id = ? AND id IN (`+placeholders(len(ids))+`)`,
		withIDs(ids, org)...))
}

// Papers lists org's papers, most recently stored or updated first, at
// most limit of them, with the first character of their text only.
func Papers(ctx context.Context, q Querier, org string, limit int) ([]Paper, error) {
	return scanPapers(q.QueryContext(ctx, `SELECT `+listedColumns+`
		FROM papers WHERE org_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?`, org, limit))
}

// scanPapers reads rows of paperColumns and closes rows.
func scanPapers(rows *sql.Rows, err error) ([]Paper, error) {
	return collect(rows, err, func(rows *sql.Rows, p *Paper) error {
		r, err := scanPaper(rows)
		if err == nil {
			*p = *r
		}
		return err
	})
}

// SectionNode is a node of a paper as its sections list it.
type SectionNode struct{ Label, Section, SectionType, Text string }

// NodesOfOwner returns the nodes of org's owner (kind, ownerID) with one
// of the two labels, in reading order.
func NodesOfOwner(ctx context.Context, q Querier, org, kind string, ownerID int64, label1, label2 string) ([]SectionNode, error) {
	rows, err := q.QueryContext(ctx, `SELECT label, section, section_type, text FROM nodes
		WHERE org_id = ? AND kind = ? AND owner_id = ? AND label IN (?, ?) ORDER BY seq, id`,
		org, kind, ownerID, label1, label2)
	return collect(rows, err, func(rows *sql.Rows, n *SectionNode) error {
		return rows.Scan(&n.Label, &n.Section, &n.SectionType, &n.Text)
	})
}

// Analysis is a row of analyses.
type Analysis struct {
	DOI, Markdown, CoreClaim, Acceptance, Scorecard, SharpestFlaw string
	ClaimsExtracted                                               int
	UpdatedAt                                                     string
}

// StoreAnalysis replaces org's analysis of the paper a.DOI, if any, and
// its nodes, by a and its nodes ns (their IDs set), made at a.UpdatedAt.
func (t *Tx) StoreAnalysis(ctx context.Context, org string, a *Analysis, ns []Node) error {
	if err := removeAnalysis(ctx, t, org, a.DOI); err != nil {
		return err
	}
	id, err := insertAnalysis(ctx, t, org, a)
	if err != nil {
		return err
	}
	return putNodes(ctx, t, Owner{Org: org, Kind: kindAnalysis, ID: id}, ns, a.UpdatedAt)
}

// removeAnalysis deletes org's analysis of the paper doi, if any, with its
// nodes.
func removeAnalysis(ctx context.Context, q Querier, org, doi string) error {
	id, err := analysisID(ctx, q, org, doi)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := deleteNodes(ctx, q, Owner{Org: org, Kind: kindAnalysis, ID: id}); err != nil {
		return err
	}
	return deleteAnalysis(ctx, q, org, id)
}

// insertAnalysis inserts org's analysis a, created and updated at
// a.UpdatedAt, and returns its row id.
func insertAnalysis(ctx context.Context, q Querier, org string, a *Analysis) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `INSERT INTO analyses (org_id, doi, markdown, core_claim, acceptance,
			scorecard, sharpest_flaw, claims_extracted, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		org, a.DOI, a.Markdown, a.CoreClaim, a.Acceptance, a.Scorecard, a.SharpestFlaw,
		a.ClaimsExtracted, a.UpdatedAt, a.UpdatedAt).Scan(&id)
	return id, err
}

// AnalysisByDOI returns org's analysis of the paper doi.
func AnalysisByDOI(ctx context.Context, q Querier, org, doi string) (*Analysis, error) {
	var a Analysis
	err := queryRow(ctx, q, `SELECT doi, markdown, core_claim, acceptance, scorecard, sharpest_flaw,
		claims_extracted, updated_at FROM analyses WHERE org_id = ? AND doi = ?`, org, doi).
		Scan(&a.DOI, &a.Markdown, &a.CoreClaim, &a.Acceptance, &a.Scorecard, &a.SharpestFlaw, &a.ClaimsExtracted, &a.UpdatedAt)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// analysisID returns the row id of org's analysis of the paper doi.
func analysisID(ctx context.Context, q Querier, org, doi string) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `SELECT id FROM analyses WHERE org_id = ? AND doi = ?`, org, doi).Scan(&id)
	return id, err
}

// deleteAnalysis deletes org's analysis row id.
func deleteAnalysis(ctx context.Context, q Querier, org string, id int64) error {
	_, err := q.ExecContext(ctx, `DELETE FROM analyses WHERE org_id = ? AND id = ?`, org, id)
	return err
}

// Document is a row of documents.
type Document struct {
	Name, Format, Title, Domain string
	Bytes                       int64
	CreatedAt                   string
}

// StoreDocument inserts org's document d with its nodes ns (their IDs
// set), made at d.CreatedAt, and returns the document's number in org,
// the id the API shows (doc:<num>).
func (t *Tx) StoreDocument(ctx context.Context, org string, d *Document, ns []Node) (int64, error) {
	id, num, err := insertDocument(ctx, t, org, d)
	if err != nil {
		return 0, fmt.Errorf("insert document: %w", err)
	}
	return num, putNodes(ctx, t, Owner{Org: org, Kind: kindDocument, ID: id}, ns, d.CreatedAt)
}

// insertDocument inserts org's document d, numbering it, and returns its
// row id and number.
func insertDocument(ctx context.Context, q Querier, org string, d *Document) (id, num int64, err error) {
	if num, err = nextNums(ctx, q, org, numberedDocuments, 1); err != nil {
		return 0, 0, err
	}
	err = queryRow(ctx, q, `INSERT INTO documents (org_id, name, format, title, domain, bytes, created_at, num)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		org, d.Name, d.Format, d.Title, d.Domain, d.Bytes, d.CreatedAt, num).Scan(&id)
	return id, num, err
}
