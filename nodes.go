package papermem

import (
	"context"
	"unicode/utf8"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/chunk"
	"github.com/papermem/papermem/internal/claims"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/store"
)

// Node labels (package api defines them).
const (
	LabelClaim    = api.LabelClaim    // a sentence that asserts a finding
	LabelPassage  = api.LabelPassage  // a chunk of a section
	LabelPaper    = api.LabelPaper    // a paper's title and abstract
	LabelAnalysis = api.LabelAnalysis // a chunk of an analysis
	LabelDocument = api.LabelDocument // a chunk of an ingested document
	LabelMemory   = api.LabelMemory   // a per-user memory
	LabelAny      = api.LabelAny      // in a recall request: every label
)

// Owner kinds, as reported in provenance (package api defines them).
const (
	KindPaper    = api.KindPaper
	KindDocument = api.KindDocument
	KindAnalysis = api.KindAnalysis
	KindMemory   = api.KindMemory
)

// node is one recallable unit, as it is stored (stored).
type node struct {
	parent int // index in the same batch of the passage a claim came from; -1 for none

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

// stored returns embedded nodes as the store writes them, in order: the
// operations that store an owner's nodes (store.Tx.StorePaper, …) number
// them, set their IDs and their parents' ids.
func stored(ns []node) []store.Node {
	out := make([]store.Node, len(ns))
	for i := range ns {
		n := &ns[i]
		out[i] = store.Node{Label: n.Label, Parent: n.parent, Section: n.Section, SectionType: n.SectionType, Domain: n.Domain,
			Text: n.Text, Tokens: n.Tokens, Page: n.Page, Row: n.Row, Sheet: n.Sheet, CharStart: n.CharStart, CharEnd: n.CharEnd,
			Vec: n.vec}
	}
	return out
}
