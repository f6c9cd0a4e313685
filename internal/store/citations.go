package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
)

// Directions of a citation link.
const (
	Reference = "reference" // the paper cites the work
	Citer     = "citer"     // the work cites the paper
)

// CitationLink is a work at the other end of one of a paper's citation
// links. WorkKey names it for matching: its DOI, else "openalex:<id>",
// else "" (known by its text alone). InMemory is set when read: the
// workspace holds a paper with its DOI.
type CitationLink struct {
	WorkKey, DOI, OpenAlexID, Title string
	Year                            int
	Text                            string
	InMemory                        bool
}

// CitationFetch records when a paper's links were read from its origins.
type CitationFetch struct {
	Status                 string // "fetched", or "unknown" when no origin knows the DOI
	RefsFrom, CitersFrom   string // where each list came from: "openalex", "crossref" or ""
	RefsTotal, CitersTotal int    // as the origins count them
	FetchedAt              string
}

// ReplaceCitationLinks replaces org's paper row paper's links with refs
// and citers, in their order, and records f.
func ReplaceCitationLinks(ctx context.Context, q Querier, org string, paper int64, f CitationFetch, refs, citers []CitationLink) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM citation_links WHERE org_id = ? AND paper_id = ?`, org, paper); err != nil {
		return fmt.Errorf("delete citation links: %w", err)
	}
	ins, err := q.PrepareContext(ctx, `INSERT INTO citation_links (paper_id, direction, ord, org_id, work_key, doi, openalex_id, title, year, text)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, set := range []struct {
		dir   string
		links []CitationLink
	}{{Reference, refs}, {Citer, citers}} {
		for i, l := range set.links {
			if _, err := ins.ExecContext(ctx, paper, set.dir, i, org, l.WorkKey, l.DOI, l.OpenAlexID, l.Title, l.Year, l.Text); err != nil {
				return fmt.Errorf("insert citation link: %w", err)
			}
		}
	}
	_, err = q.ExecContext(ctx, `INSERT INTO citation_fetches (paper_id, org_id, status, refs_from, citers_from, refs_total, citers_total, fetched_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (paper_id) DO UPDATE SET status = excluded.status, refs_from = excluded.refs_from, citers_from = excluded.citers_from,
			refs_total = excluded.refs_total, citers_total = excluded.citers_total, fetched_at = excluded.fetched_at`,
		paper, org, f.Status, f.RefsFrom, f.CitersFrom, f.RefsTotal, f.CitersTotal, f.FetchedAt)
	if err != nil {
		return fmt.Errorf("record citation fetch: %w", err)
	}
	return nil
}

// CitationFetchOf returns the record of org's paper row paper's last
// fetch; ErrNotFound when its links were never fetched.
func CitationFetchOf(ctx context.Context, q Querier, org string, paper int64) (*CitationFetch, error) {
	var f CitationFetch
	err := queryRow(ctx, q, `SELECT status, refs_from, citers_from, refs_total, citers_total, fetched_at FROM citation_fetches
		WHERE org_id = ? AND paper_id = ?`, org, paper).Scan(&f.Status, &f.RefsFrom, &f.CitersFrom, &f.RefsTotal, &f.CitersTotal, &f.FetchedAt)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// CitationLinks returns org's paper row paper's links of direction, in
// their order, each marked InMemory when org holds its DOI (whose title,
// then, stands in for a missing one).
func CitationLinks(ctx context.Context, q Querier, org string, paper int64, direction string) ([]CitationLink, error) {
	rows, err := q.QueryContext(ctx, `SELECT l.work_key, l.doi, l.openalex_id, CASE WHEN l.title = '' AND m.title IS NOT NULL THEN m.title ELSE l.title END,
			l.year, l.text, m.id IS NOT NULL
		FROM citation_links l LEFT JOIN papers m ON m.org_id = l.org_id AND m.doi = l.work_key AND l.doi != ''
		WHERE l.org_id = ? AND l.paper_id = ? AND l.direction = ? ORDER BY l.ord`, org, paper, direction)
	return collect(rows, err, func(rows *sql.Rows, l *CitationLink) error {
		return rows.Scan(&l.WorkKey, &l.DOI, &l.OpenAlexID, &l.Title, &l.Year, &l.Text, &l.InMemory)
	})
}

// citationEdges is the SQL of org's citation edges (citing, cited) by
// work key, as two parameters org: what its papers reference, and what
// cites them. Each edge is once, whichever paper's links give it.
const citationEdges = `SELECT p.doi AS citing, l.work_key AS cited FROM citation_links l
		JOIN papers p ON p.id = l.paper_id AND p.org_id = l.org_id
		WHERE l.org_id = ? AND l.direction = 'reference' AND l.work_key != ''
	UNION
	SELECT l.work_key, p.doi FROM citation_links l
		JOIN papers p ON p.id = l.paper_id AND p.org_id = l.org_id
		WHERE l.org_id = ? AND l.direction = 'citer' AND l.work_key != ''`

// CitationRelation is a paper of the workspace related to another by
// citations: Coupling counts the works both cite (bibliographic
// coupling), CoCitation the works citing both.
type CitationRelation struct {
	DOI, Title           string
	Year                 int
	Coupling, CoCitation int
}

// CitationRelated returns org's papers other than doi that share a cited
// or a citing work with it, by Coupling + CoCitation (highest first),
// then DOI, at most limit of them.
func CitationRelated(ctx context.Context, q Querier, org, doi string, limit int) ([]CitationRelation, error) {
	rows, err := q.QueryContext(ctx, `WITH e (citing, cited) AS (`+citationEdges+`),
		coupled (doi, n) AS (SELECT b.citing, count(*) FROM e a JOIN e b ON b.cited = a.cited AND b.citing != a.citing
			WHERE a.citing = ? GROUP BY b.citing),
		cocited (doi, n) AS (SELECT b.cited, count(*) FROM e a JOIN e b ON b.citing = a.citing AND b.cited != a.cited
			WHERE a.cited = ? GROUP BY b.cited)
		SELECT p.doi, p.title, p.year, coalesce(c.n, 0), coalesce(k.n, 0)
		FROM papers p LEFT JOIN coupled c ON c.doi = p.doi LEFT JOIN cocited k ON k.doi = p.doi
		WHERE p.org_id = ? AND p.doi != ? AND (c.n IS NOT NULL OR k.n IS NOT NULL)
		ORDER BY coalesce(c.n, 0) + coalesce(k.n, 0) DESC, p.doi LIMIT ?`, org, org, doi, doi, org, doi, limit)
	return collect(rows, err, func(rows *sql.Rows, r *CitationRelation) error {
		return rows.Scan(&r.DOI, &r.Title, &r.Year, &r.Coupling, &r.CoCitation)
	})
}

// CitationGap is a work org's papers reference that org does not hold.
type CitationGap struct {
	WorkKey, DOI, OpenAlexID, Title string
	Year                            int
	CitedBy                         []string // DOIs of org's papers citing it, in order
}

// CitationGaps returns the works org's papers reference and org does not
// hold, by how many of its papers reference them (most first), then work
// key, at most limit of them. References known by their text alone are
// left out: nothing matches them across papers.
func CitationGaps(ctx context.Context, q Querier, org string, limit int) ([]CitationGap, error) {
	keys, err := scanStrings(q.QueryContext(ctx, `SELECT l.work_key FROM citation_links l
		JOIN papers p ON p.id = l.paper_id AND p.org_id = l.org_id
		WHERE l.org_id = ? AND l.direction = 'reference' AND l.work_key != ''
			AND NOT EXISTS (SELECT 1 FROM papers m WHERE m.org_id = l.org_id AND m.doi = l.work_key)
		GROUP BY l.work_key ORDER BY count(DISTINCT l.paper_id) DESC, l.work_key LIMIT ?`, org, limit))
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	args := []any{org}
	for _, k := range keys {
		args = append(args, k)
	}
	rows, err := q.QueryContext(ctx, `SELECT l.work_key, l.doi, l.openalex_id, l.title, l.year, p.doi FROM citation_links l
		JOIN papers p ON p.id = l.paper_id AND p.org_id = l.org_id
		WHERE l.org_id = ? AND l.direction = 'reference' AND l.work_key IN (`+placeholders(len(keys))+`)
		ORDER BY p.doi`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byKey := map[string]*CitationGap{}
	for rows.Next() {
		var g CitationGap
		var citing string
		if err := rows.Scan(&g.WorkKey, &g.DOI, &g.OpenAlexID, &g.Title, &g.Year, &citing); err != nil {
			return nil, err
		}
		have := byKey[g.WorkKey]
		if have == nil {
			have = &g
			byKey[g.WorkKey] = have
		}
		if len(g.Title) > len(have.Title) {
			have.Title = g.Title
		}
		have.DOI, have.OpenAlexID, have.Year = cmp.Or(have.DOI, g.DOI), cmp.Or(have.OpenAlexID, g.OpenAlexID), max(have.Year, g.Year)
		if n := len(have.CitedBy); n == 0 || have.CitedBy[n-1] != citing {
			have.CitedBy = append(have.CitedBy, citing)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]CitationGap, 0, len(keys))
	for _, k := range keys {
		if g := byKey[k]; g != nil {
			out = append(out, *g)
		}
	}
	return out, nil
}

// CitationNeighbours returns the citation edges, citing paper row →
// cited paper row, between org's papers, that touch the paper rows ids.
func CitationNeighbours(ctx context.Context, q Querier, org string, ids []int64) ([]Edge, error) {
	in := placeholders(len(ids))
	args := withIDs(ids, org)
	args = append(args, withIDs(ids)...)
	args = append(args, withIDs(ids, org)...)
	args = append(args, withIDs(ids)...)
	return edges(ctx, q, `SELECT a, b FROM (
		SELECT l.paper_id AS a, m.id AS b FROM citation_links l
			JOIN papers p ON p.id = l.paper_id AND p.org_id = l.org_id
			JOIN papers m ON m.org_id = l.org_id AND m.doi = l.work_key
			WHERE l.org_id = ? AND l.direction = 'reference' AND l.doi != '' AND (l.paper_id IN (`+in+`) OR m.id IN (`+in+`))
		UNION
		SELECT m.id, l.paper_id FROM citation_links l
			JOIN papers p ON p.id = l.paper_id AND p.org_id = l.org_id
			JOIN papers m ON m.org_id = l.org_id AND m.doi = l.work_key
			WHERE l.org_id = ? AND l.direction = 'citer' AND l.doi != '' AND (l.paper_id IN (`+in+`) OR m.id IN (`+in+`))
	) x WHERE a != b`, args, false)
}
