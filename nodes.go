package papermem

import (
	"context"
	"database/sql"
	"fmt"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/chunk"
	"github.com/papermem/papermem/internal/claims"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/store"
)

// Node labels.
const (
	LabelClaim    = "Claim"    // a sentence that asserts a finding
	LabelPassage  = "Passage"  // a chunk of a section
	LabelPaper    = "Paper"    // a paper's title and abstract
	LabelAnalysis = "Analysis" // a chunk of an analysis
	LabelDocument = "Document" // a chunk of an ingested document
	LabelMemory   = "Memory"   // a per-user memory
	LabelAny      = "Any"      // in a recall request: every label
)

// Owner kinds, as reported in provenance.
const (
	KindPaper    = "paper"
	KindDocument = "document"
	KindAnalysis = "analysis"
	KindMemory   = "memory"
)

// node is one recallable unit as stored.
type node struct {
	id       int64
	org      string
	kind     string
	ownerID  int64
	userID   string
	parent   int // index in the same batch of the passage a claim came from; -1 for none
	parentID sql.NullInt64
	seq      int

	Label       string
	Section     string
	SectionType string
	Domain      string
	Text        string
	Tokens      int
	Page        int
	Row         int
	Sheet       string
	CharStart   int
	CharEnd     int

	vec []float32
}

// sectionNodes chunks sections (a Markdown or Word section, a PDF page
// region, a CSV row) into passages labelled label and extracts the claims
// of each passage as Claim nodes pointing at it. Offsets are rune offsets
// in the source text.
func sectionNodes(sections []extract.Section, label, domain string) []node {
	var out []node
	front := frontMatter(sections)
	for si, s := range sections {
		typ := s.Type
		if typ == "" {
			typ = extract.TypeBody
		}
		runeAt := runeOffsets(s.Text)
		for _, p := range chunk.Passages(s.Text, DefaultPassageTokens) {
			base := node{
				parent: -1, Section: s.Heading, SectionType: typ, Domain: domain,
				Page: s.Page, Row: s.Row, Sheet: s.Sheet,
			}
			pn := base
			pn.Label, pn.Text, pn.Tokens = label, p.Text, p.Tokens
			pn.CharStart, pn.CharEnd = s.CharStart+runeAt(p.Start), s.CharStart+runeAt(p.End)
			pi := len(out)
			out = append(out, pn)
			// Front matter, reference lists, tables and sheets assert
			// nothing sentence by sentence.
			if si < front || typ == extract.TypeReferences || typ == extract.TypeTable || typ == extract.TypeSheet {
				continue
			}
			for _, st := range p.Sentences {
				if !claims.IsClaim(st.Text) {
					continue
				}
				cn := base
				cn.Label, cn.Text, cn.Tokens, cn.parent = LabelClaim, st.Text, st.Tokens, pi
				cn.CharStart, cn.CharEnd = s.CharStart+runeAt(st.Start), s.CharStart+runeAt(st.End)
				out = append(out, cn)
			}
		}
	}
	return out
}

// frontMatter returns how many of the sections come before the first
// abstract: a paper's title block (authors, affiliations, addresses),
// which asserts nothing. It is 0 when no section is an abstract.
func frontMatter(sections []extract.Section) int {
	for i, s := range sections {
		if s.Type == extract.TypeAbstract {
			return i
		}
	}
	return 0
}

// runeOffsets returns a function converting byte offsets of s to rune
// offsets; it counts on from the previous offset when offsets grow.
func runeOffsets(s string) func(int) int {
	lastByte, lastRune := 0, 0
	return func(b int) int {
		if b < lastByte {
			lastByte, lastRune = 0, 0
		}
		lastRune += utf8.RuneCountInString(s[lastByte:b])
		lastByte = b
		return lastRune
	}
}

// embedNodes fills the vector of every node.
func (m *Memory) embedNodes(ctx context.Context, ns []node) error {
	texts := make([]string, len(ns))
	for i, n := range ns {
		texts[i] = n.Text
	}
	vs, err := m.embed(ctx, texts)
	if err != nil {
		return err
	}
	for i := range ns {
		ns[i].vec = vs[i]
	}
	return nil
}

// insertNodes stores embedded nodes of one owner in the nodes table and
// the vectors, numbering them (seq) in order and setting their ids. A
// claim's parent is an index in ns: the nodes before a child whose parent
// has no id yet are inserted first, so that ids follow ns's order.
func (w *Workspace) insertNodes(ctx context.Context, tx *sql.Tx, kind string, ownerID int64, userID string, ns []node) error {
	now := w.m.nowString()
	done := 0 // ns[:done] have ids
	flush := func(end int) error {
		if end == done {
			return nil
		}
		rows := make([]store.Node, 0, end-done)
		vecs := make([][]float32, 0, end-done)
		for i := done; i < end; i++ {
			n := &ns[i]
			rows = append(rows, store.Node{Org: w.org, Kind: kind, OwnerID: ownerID, UserID: userID,
				Label: n.Label, ParentID: n.parentID, Seq: n.seq, Section: n.Section, SectionType: n.SectionType, Domain: n.Domain,
				Text: n.Text, Tokens: n.Tokens, Page: n.Page, Row: n.Row, Sheet: n.Sheet, CharStart: n.CharStart, CharEnd: n.CharEnd,
				CreatedAt: now})
			vecs = append(vecs, n.vec)
		}
		ids, err := store.InsertNodes(ctx, tx, rows)
		if err != nil {
			return err
		}
		for i, id := range ids {
			ns[done+i].id = id
		}
		if err := store.InsertVectors(ctx, tx, w.org, ids, vecs); err != nil {
			return fmt.Errorf("store node vectors: %w", err)
		}
		done = end
		return nil
	}
	for i := range ns {
		n := &ns[i]
		n.org, n.kind, n.ownerID, n.userID, n.seq = w.org, kind, ownerID, userID, i
		if n.parent >= 0 {
			if n.parent >= done {
				if err := flush(i); err != nil {
					return err
				}
			}
			n.parentID = sql.NullInt64{Int64: ns[n.parent].id, Valid: true}
		}
	}
	if err := flush(len(ns)); err != nil {
		return err
	}
	return store.BumpNodesVersion(ctx, tx, w.org)
}

// deleteNodes removes every node of one owner from the nodes table and the
// vectors.
func (w *Workspace) deleteNodes(ctx context.Context, tx *sql.Tx, kind string, ownerID int64) error {
	if err := store.DeleteNodes(ctx, tx, w.org, kind, ownerID); err != nil {
		return fmt.Errorf("delete nodes: %w", err)
	}
	return nil // the node_vectors_deleted trigger moves the workspace's versions
}
