package store

// The SQL of recall: reading the rows of the nodes that the node index
// ranked (workspace recall's candidates, user recall's memories and their
// neighbours in a session) and the papers that analyses are of. The ranking
// itself stays with the caller.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// NodeFilter selects the nodes of a recall: those of Org and User ("" for
// the workspace's own nodes, which belong to no user), and of Label, Kind
// and Domain and one of SectionTypes where they are set. Owners, when not
// nil, keeps only the nodes whose owner id is one of them (ids of Kind's
// table, so Kind should be set too); an empty Owners keeps none.
type NodeFilter struct {
	Org, User, Label, Kind, Domain string
	SectionTypes                   []string
	Owners                         []int64
}

// where returns the conditions of f on nodes n, for engine e, and their
// arguments; the workspace and user conditions are always present.
func (f *NodeFilter) where(e Engine) (string, []any) {
	conds := []string{"n.org_id = ?", "n.user_id = ?"}
	args := []any{f.Org, f.User}
	if f.Owners != nil {
		if len(f.Owners) == 0 {
			conds = append(conds, "1 = 0")
		} else {
			conds = append(conds, e.inIDs("n.owner_id", f.Owners, &args))
		}
	}
	if f.Label != "" {
		conds = append(conds, "n.label = ?")
		args = append(args, f.Label)
	}
	if f.Kind != "" {
		conds = append(conds, "n.kind = ?")
		args = append(args, f.Kind)
	}
	if f.Domain != "" {
		conds = append(conds, "n.domain = ?")
		args = append(args, f.Domain)
	}
	if len(f.SectionTypes) > 0 {
		conds = append(conds, "n.section_type IN ("+placeholders(len(f.SectionTypes))+")")
		for _, s := range f.SectionTypes {
			args = append(args, s)
		}
	}
	return strings.Join(conds, " AND "), args
}

// Candidate is a node considered for a recall, with its provenance: the
// DOI, title and source of the paper, analysis (through the paper it
// analyses) or document it comes from, and for a memory its key, tags
// (JSON), occurrence and metadata (JSON). Provenance a node's kind does not
// have is "", except Tags "[]" and Metadata "{}".
type Candidate struct {
	ID, OwnerID                     int64
	Num                             int64 // the node's number in its workspace, the id the API shows
	Kind, Label                     string
	Section, SectionType, Text      string
	Tokens, Page, Row               int
	Sheet                           string
	CharStart, CharEnd              int
	CreatedAt                       string
	DOI, Title, Source              string
	Retracted                       bool // the paper, or the paper analysed, is retracted
	Key, Tags, OccurredAt, Metadata string
}

// Candidates returns those of the nodes ids that pass f, in no particular
// order (e is the engine of q). NOT INDEXED (SQLite only) makes SQLite
// look each id up by rowid: without it, the planner scans the workspace's
// nodes_label entries (50 ms at 100k nodes for 200 ids).
func Candidates(ctx context.Context, q Querier, e Engine, f *NodeFilter, ids []int64) ([]Candidate, error) {
	where, args := f.where(e)
	rows, err := q.QueryContext(ctx, `SELECT n.id, COALESCE(n.num, n.id), n.kind, n.owner_id, n.label,
		n.section, n.section_type, n.text, n.tokens, n.page, n.row, n.sheet, n.char_start, n.char_end, n.created_at,
		COALESCE(p.doi, a.doi, ''), COALESCE(p.title, ap.title, d.title, ''), COALESCE(d.name, p.source_url, ''),
		COALESCE(p.retracted, ap.retracted, 0),
		COALESCE(mm.key, ''), COALESCE(mm.tags, '[]'), COALESCE(mm.occurred_at, ''), COALESCE(mm.metadata, '{}')
		FROM nodes n `+e.NotIndexed()+`
		LEFT JOIN papers p ON n.kind = 'paper' AND p.org_id = n.org_id AND p.id = n.owner_id
		LEFT JOIN analyses a ON n.kind = 'analysis' AND a.org_id = n.org_id AND a.id = n.owner_id
		LEFT JOIN papers ap ON n.kind = 'analysis' AND ap.org_id = a.org_id AND ap.doi = a.doi
		LEFT JOIN documents d ON n.kind = 'document' AND d.org_id = n.org_id AND d.id = n.owner_id
		LEFT JOIN memories mm ON n.kind = 'memory' AND mm.org_id = n.org_id AND mm.id = n.owner_id
		WHERE `+where+` AND `+e.inIDs("n.id", ids, &args), args...)
	if err != nil {
		return nil, fmt.Errorf("load candidates: %w", err)
	}
	defer rows.Close()
	out := make([]Candidate, 0, len(ids))
	for rows.Next() {
		var c Candidate
		if err := rows.Scan(&c.ID, &c.Num, &c.Kind, &c.OwnerID, &c.Label,
			&c.Section, &c.SectionType, &c.Text, &c.Tokens, &c.Page, &c.Row, &c.Sheet, &c.CharStart, &c.CharEnd, &c.CreatedAt,
			&c.DOI, &c.Title, &c.Source, &c.Retracted, &c.Key, &c.Tags, &c.OccurredAt, &c.Metadata); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// AnalysedPaper is an analysis and the paper it is of.
type AnalysedPaper struct {
	Analysis, Paper int64
}

// AnalysedPapers returns the papers that org's analyses ids are of: one
// row per analysis whose paper org holds.
func AnalysedPapers(ctx context.Context, q Querier, org string, ids []int64) ([]AnalysedPaper, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.id, p.id FROM analyses a JOIN papers p ON p.org_id = a.org_id AND p.doi = a.doi
		WHERE a.org_id = ? AND a.id IN (`+placeholders(len(ids))+`)`, withIDs(ids, org)...)
	if err != nil {
		return nil, fmt.Errorf("analysed papers: %w", err)
	}
	return collect(rows, nil, func(rows *sql.Rows, ap *AnalysedPaper) error {
		return rows.Scan(&ap.Analysis, &ap.Paper)
	})
}

// Neighbourhood is the memories next to a memory in its session: the node
// ids of those before it and of those after it, nearest first.
type Neighbourhood struct {
	Memory        int64 // the memory's row id
	Before, After []int64
}

// MemoryNeighbours returns, for each of org's memories hits (row ids) of
// user, the nodes of the window memories just before it and just after it
// in its session, in the order of occurred_at, seq and id (e is the engine
// of q). A memory without a session has none.
func MemoryNeighbours(ctx context.Context, q Querier, e Engine, org, user string, hits []int64, window int) ([]Neighbourhood, error) {
	list, _ := json.Marshal(hits)
	side := func(cmp, order string) string {
		return `(SELECT ` + e.GroupConcat("id") + ` FROM (SELECT n.id FROM memories m
			JOIN nodes n ON n.org_id = m.org_id AND n.kind = 'memory' AND n.owner_id = m.id
			WHERE m.org_id = h.org_id AND m.user_id = h.user_id AND m.session = h.session
				AND (m.occurred_at, m.seq, m.id) ` + cmp + ` (h.occurred_at, h.seq, h.id)
			ORDER BY m.occurred_at ` + order + `, m.seq ` + order + `, m.id ` + order + ` LIMIT ?1) AS near)`
	}
	rows, err := q.QueryContext(ctx, `SELECT h.id, coalesce(`+side("<", "DESC")+`, ''), coalesce(`+side(">", "ASC")+`, '')
		FROM `+e.IDs("?4", "j")+` CROSS JOIN memories h WHERE h.id = j.value AND h.org_id = ?2 AND h.user_id = ?3`,
		window, org, user, string(list))
	if err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	return collect(rows, nil, func(rows *sql.Rows, nb *Neighbourhood) error {
		var before, after string
		err := rows.Scan(&nb.Memory, &before, &after)
		if err != nil {
			return err
		}
		if nb.Before, err = splitIDs(before); err != nil {
			return fmt.Errorf("neighbours: %w", err)
		}
		if nb.After, err = splitIDs(after); err != nil {
			return fmt.Errorf("neighbours: %w", err)
		}
		return nil
	})
}

// splitIDs parses a GroupConcat of ids.
func splitIDs(list string) ([]int64, error) {
	var ids []int64
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// MemoryNode is a memory's node with its memory row: Tags and Metadata
// are JSON.
type MemoryNode struct {
	NodeID                          int64
	Num                             int64 // the node's number in its workspace, the id the API shows
	Text                            string
	Tokens, CharEnd                 int
	CreatedAt                       string
	MemoryID                        int64
	Key, Tags, OccurredAt, Metadata string
	Session                         string
	Seq                             float64
}

// MemoryNodes returns those of the nodes ids that are memories of org's
// user, in no particular order (e is the engine of q).
func MemoryNodes(ctx context.Context, q Querier, e Engine, org, user string, ids []int64) ([]MemoryNode, error) {
	list, _ := json.Marshal(ids)
	// The ids drive the join (CROSS JOIN keeps that order): without
	// statistics SQLite would rather scan every memory of the workspace.
	rows, err := q.QueryContext(ctx, `SELECT n.id, COALESCE(n.num, n.id), n.text, n.tokens, n.char_end, n.created_at,
		mm.id, mm.key, mm.tags, mm.occurred_at, mm.metadata, mm.session, mm.seq
		FROM `+e.IDs("?", "j")+` CROSS JOIN nodes n JOIN memories mm ON mm.id = n.owner_id
		WHERE n.id = j.value AND n.org_id = ? AND n.user_id = ? AND n.kind = 'memory' AND mm.org_id = n.org_id AND mm.user_id = ?`,
		string(list), org, user, user)
	if err != nil {
		return nil, fmt.Errorf("load memories: %w", err)
	}
	defer rows.Close()
	out := make([]MemoryNode, 0, len(ids))
	for rows.Next() {
		var m MemoryNode
		if err := rows.Scan(&m.NodeID, &m.Num, &m.Text, &m.Tokens, &m.CharEnd, &m.CreatedAt,
			&m.MemoryID, &m.Key, &m.Tags, &m.OccurredAt, &m.Metadata, &m.Session, &m.Seq); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
