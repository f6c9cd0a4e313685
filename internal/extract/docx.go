package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// DOCX is read straight from the zip package with encoding/xml rather than
// through github.com/nguyenthenguyen/docx: that library only hands back the
// raw document.xml (for template replacement) and reads whole parts without
// size limits, while headings need styles.xml, numbered headings need
// numbering.xml, and metadata lives in docProps/core.xml.

// Limits on decompressed DOCX parts.
const (
	docxMaxDocument = 256 << 20
	docxMaxPart     = 32 << 20
)

// extractDOCX reads paragraphs, headings (Heading N and Title styles,
// outline levels, numbered headings with their computed numbers) and
// tables (as "table" sections, a row per line, cells joined by " | ").
func extractDOCX(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	if bytes.HasPrefix(data, oleMagic) {
		if oleEncrypted(data) {
			return nil, invalidf(DOCX, "file is encrypted (password-protected document)")
		}
		return nil, invalidf(DOCX, "legacy binary .doc document, not .docx")
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, invalidf(DOCX, "not a valid zip file (%v)", err)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[strings.TrimPrefix(f.Name, "/")] = f
	}
	main := "word/document.xml"
	if files[main] == nil {
		main = mainPart(files)
		if main == "" || files[main] == nil {
			return nil, invalidf(DOCX, "no word/document.xml: not a Word document")
		}
	}
	dir := path.Dir(main)
	p := &docxParser{ctx: ctx, styles: map[string]*docxStyle{}, abstract: map[string]*[9]docxLevel{},
		nums: map[string]string{}, counters: map[string]*[9]int{}}
	if b, err := readPart(files, dir+"/styles.xml", docxMaxPart); err == nil {
		p.readStyles(b)
	}
	if b, err := readPart(files, dir+"/numbering.xml", docxMaxPart); err == nil {
		p.readNumbering(b)
	}
	body, err := readPart(files, main, docxMaxDocument)
	if err != nil {
		return nil, invalidf(DOCX, "cannot read %s: %v", main, err)
	}
	doc := &Document{}
	if b, err := readPart(files, "docProps/core.xml", docxMaxPart); err == nil {
		coreProps(b, doc)
	}
	p.doc = doc
	p.sb = newSectionBuilder(doc)
	if err := p.readBody(body); err != nil {
		return nil, err
	}
	p.sb.flush()
	if doc.DOI == "" {
		doc.DOI = findDOI(head(doc.Text(), 4000))
	}
	return doc, nil
}

// mainPart finds the main document part from the package relationships.
func mainPart(files map[string]*zip.File) string {
	b, err := readPart(files, "_rels/.rels", docxMaxPart)
	if err != nil {
		return ""
	}
	var rels struct {
		Rel []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if xml.Unmarshal(b, &rels) != nil {
		return ""
	}
	for _, r := range rels.Rel {
		if strings.HasSuffix(r.Type, "/officeDocument") {
			return strings.TrimPrefix(r.Target, "/")
		}
	}
	return ""
}

var errPartTooLarge = errors.New("part too large")

func readPart(files map[string]*zip.File, name string, max int64) ([]byte, error) {
	f := files[name]
	if f == nil {
		return nil, fmt.Errorf("%s: missing", name)
	}
	if f.UncompressedSize64 > uint64(max) {
		return nil, errPartTooLarge
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errPartTooLarge
	}
	return b, nil
}

type docxStyle struct {
	name    string
	basedOn string
	outline int // 0-based outline level, -1 for none
	numID   string
	ilvl    int
}

type docxLevel struct {
	fmt   string
	text  string
	start int
}

type docxParser struct {
	ctx      context.Context
	doc      *Document
	sb       *sectionBuilder
	path     headingPath
	styles   map[string]*docxStyle
	abstract map[string]*[9]docxLevel
	nums     map[string]string // numId → abstractNumId
	counters map[string]*[9]int
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func (p *docxParser) readStyles(b []byte) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	var cur *docxStyle
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "style":
			cur = &docxStyle{outline: -1}
			p.styles[attr(se, "styleId")] = cur
		case "name":
			if cur != nil {
				cur.name = strings.ToLower(attr(se, "val"))
			}
		case "basedOn":
			if cur != nil {
				cur.basedOn = attr(se, "val")
			}
		case "outlineLvl":
			if cur != nil {
				cur.outline, _ = strconv.Atoi(attr(se, "val"))
			}
		case "numId":
			if cur != nil {
				cur.numID = attr(se, "val")
			}
		case "ilvl":
			if cur != nil {
				cur.ilvl, _ = strconv.Atoi(attr(se, "val"))
			}
		}
	}
}

func (p *docxParser) readNumbering(b []byte) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	var levels *[9]docxLevel
	lvl := -1
	num := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "abstractNum":
				levels = &[9]docxLevel{}
				p.abstract[attr(t, "abstractNumId")] = levels
			case "lvl":
				lvl, _ = strconv.Atoi(attr(t, "ilvl"))
				if lvl >= 0 && lvl < 9 && levels != nil {
					levels[lvl].start = 1
				}
			case "start":
				if levels != nil && lvl >= 0 && lvl < 9 {
					levels[lvl].start, _ = strconv.Atoi(attr(t, "val"))
				}
			case "numFmt":
				if levels != nil && lvl >= 0 && lvl < 9 {
					levels[lvl].fmt = attr(t, "val")
				}
			case "lvlText":
				if levels != nil && lvl >= 0 && lvl < 9 {
					levels[lvl].text = attr(t, "val")
				}
			case "num":
				num = attr(t, "numId")
			case "abstractNumId":
				if num != "" {
					p.nums[num] = attr(t, "val")
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "abstractNum":
				levels = nil
			case "lvl":
				lvl = -1
			case "num":
				num = ""
			}
		}
	}
}

// styleInfo follows the basedOn chain for a heading level (1-based, 0 for
// none), whether the style is Title, and the style's numbering.
func (p *docxParser) styleInfo(id string) (level int, title bool, numID string, ilvl int) {
	for i := 0; i < 16 && id != ""; i++ {
		s := p.styles[id]
		if s == nil {
			break
		}
		if numID == "" && s.numID != "" {
			numID, ilvl = s.numID, s.ilvl
		}
		if level == 0 {
			if s.name == "title" {
				title = true
			}
			if m := headingStyle.FindStringSubmatch(s.name); m != nil {
				level, _ = strconv.Atoi(m[1])
			} else if s.outline >= 0 && s.outline < 9 {
				level = s.outline + 1
			}
		}
		id = s.basedOn
	}
	if level == 0 {
		if m := headingStyle.FindStringSubmatch(strings.ToLower(id)); m != nil {
			level, _ = strconv.Atoi(m[1])
		}
	}
	return level, title, numID, ilvl
}

var headingStyle = regexp.MustCompile(`^heading ?([1-9])$`)

// label advances the numbering of list numID at level ilvl and renders it.
func (p *docxParser) label(numID string, ilvl int) string {
	abs := p.nums[numID]
	levels := p.abstract[abs]
	if levels == nil || ilvl < 0 || ilvl > 8 || numID == "0" {
		return ""
	}
	c := p.counters[abs]
	if c == nil {
		c = &[9]int{}
		p.counters[abs] = c
	}
	if c[ilvl] == 0 {
		c[ilvl] = levels[ilvl].start
	} else {
		c[ilvl]++
	}
	for k := ilvl + 1; k < 9; k++ {
		c[k] = 0
	}
	lv := levels[ilvl]
	if lv.fmt == "bullet" || lv.fmt == "none" {
		if lv.fmt == "none" {
			return ""
		}
		return "•"
	}
	out := lv.text
	for k := 0; k <= ilvl; k++ {
		n := c[k]
		if n == 0 {
			n = levels[k].start
		}
		out = strings.ReplaceAll(out, "%"+strconv.Itoa(k+1), formatNumber(n, levels[k].fmt))
	}
	return strings.TrimSpace(out)
}

func formatNumber(n int, f string) string {
	switch f {
	case "lowerLetter":
		return strings.ToLower(letters(n))
	case "upperLetter":
		return letters(n)
	case "lowerRoman":
		return strings.ToLower(roman(n))
	case "upperRoman":
		return roman(n)
	}
	return strconv.Itoa(n)
}

func letters(n int) string {
	if n <= 0 {
		return "A"
	}
	return strings.Repeat(string(rune('A'+(n-1)%26)), (n-1)/26+1)
}

func roman(n int) string {
	if n <= 0 || n >= 4000 {
		return strconv.Itoa(n)
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var sb strings.Builder
	for i, v := range vals {
		for n >= v {
			sb.WriteString(syms[i])
			n -= v
		}
	}
	return sb.String()
}

type docxPara struct {
	style    string
	outline  int
	numID    string
	ilvl     int
	hasNum   bool
	text     strings.Builder
	allBold  bool
	hasText  bool
	inCell   bool
	parentTb int // table depth when the paragraph started
}

type docxTable struct {
	rows   [][]string
	row    []string
	cell   strings.Builder
	inCell bool
}

// readBody walks document.xml once, emitting paragraphs, headings and
// tables in order.
func (p *docxParser) readBody(b []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = false
	var paras []*docxPara
	var tables []*docxTable
	inText := false
	inPPr, inRPr := 0, 0
	skip := 0
	runBold := false
	n := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return invalidf(DOCX, "malformed document.xml: %v", err)
		}
		n++
		if n%8192 == 0 && p.ctx.Err() != nil {
			return p.ctx.Err()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 {
				skip++
				continue
			}
			var para *docxPara
			if len(paras) > 0 {
				para = paras[len(paras)-1]
			}
			switch t.Name.Local {
			case "Fallback", "del", "moveFrom":
				skip = 1 // duplicate or deleted content
			case "p":
				np := &docxPara{outline: -1, allBold: true, parentTb: len(tables)}
				if len(tables) > 0 && tables[len(tables)-1].inCell {
					np.inCell = true
				}
				paras = append(paras, np)
			case "pPr":
				inPPr++
			case "rPr":
				inRPr++
			case "r":
				runBold = false
			case "b":
				if inRPr > 0 && inPPr == 0 {
					v := attr(t, "val")
					runBold = v == "" || v == "1" || v == "true" || v == "on"
				}
			case "pStyle":
				if para != nil {
					para.style = attr(t, "val")
				}
			case "outlineLvl":
				if para != nil && inPPr > 0 {
					para.outline, _ = strconv.Atoi(attr(t, "val"))
				}
			case "numId":
				if para != nil && inPPr > 0 {
					para.numID = attr(t, "val")
					para.hasNum = true
				}
			case "ilvl":
				if para != nil && inPPr > 0 {
					para.ilvl, _ = strconv.Atoi(attr(t, "val"))
				}
			case "t":
				inText = true
			case "tab":
				if para != nil && inPPr == 0 {
					para.text.WriteByte('\t')
				}
			case "br", "cr":
				if para != nil && inPPr == 0 && inRPr == 0 {
					para.text.WriteByte('\n')
				}
			case "noBreakHyphen":
				if para != nil {
					para.text.WriteByte('-')
				}
			case "tbl":
				tables = append(tables, &docxTable{})
			case "tr":
				if len(tables) > 0 {
					tables[len(tables)-1].row = nil
				}
			case "tc":
				if len(tables) > 0 {
					tb := tables[len(tables)-1]
					tb.cell.Reset()
					tb.inCell = true
				}
			}
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "pPr":
				inPPr--
			case "rPr":
				inRPr--
			case "p":
				if len(paras) == 0 {
					continue
				}
				para := paras[len(paras)-1]
				paras = paras[:len(paras)-1]
				p.endParagraph(para, tables)
			case "tc":
				if len(tables) > 0 {
					tb := tables[len(tables)-1]
					tb.row = append(tb.row, strings.TrimSpace(tb.cell.String()))
					tb.inCell = false
				}
			case "tr":
				if len(tables) > 0 {
					tb := tables[len(tables)-1]
					if filled(tb.row) > 0 {
						tb.rows = append(tb.rows, tb.row)
					}
					tb.row = nil
				}
			case "tbl":
				if len(tables) == 0 {
					continue
				}
				tb := tables[len(tables)-1]
				tables = tables[:len(tables)-1]
				text := tableText(tb.rows)
				if len(tables) > 0 && tables[len(tables)-1].inCell {
					outer := tables[len(tables)-1]
					if outer.cell.Len() > 0 {
						outer.cell.WriteByte(' ')
					}
					outer.cell.WriteString(strings.ReplaceAll(text, "\n", " / "))
					continue
				}
				if text != "" {
					p.sb.add(Section{Heading: p.path.String(), Type: TypeTable, Text: text})
				}
			}
		case xml.CharData:
			if inText && skip == 0 && len(paras) > 0 {
				para := paras[len(paras)-1]
				para.text.Write(t)
				if len(bytes.TrimSpace(t)) > 0 {
					para.hasText = true
					if !runBold {
						para.allBold = false
					}
				}
			}
		}
	}
	return nil
}

func tableText(rows [][]string) string {
	var lines []string
	for _, r := range rows {
		cells := make([]string, 0, len(r))
		for _, c := range r {
			cells = append(cells, strings.Join(strings.Fields(c), " "))
		}
		// Merged cells repeat nothing; drop trailing empties.
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		if len(cells) > 0 {
			lines = append(lines, strings.Join(cells, " | "))
		}
	}
	return strings.Join(lines, "\n")
}

// endParagraph routes a finished paragraph: into its table cell, or as a
// heading or body paragraph.
func (p *docxParser) endParagraph(para *docxPara, tables []*docxTable) {
	text := strings.TrimSpace(para.text.String())
	if para.inCell && len(tables) > 0 && len(tables) == para.parentTb {
		tb := tables[len(tables)-1]
		if text != "" {
			if tb.cell.Len() > 0 {
				tb.cell.WriteByte(' ')
			}
			tb.cell.WriteString(text)
		}
		return
	}
	level, title, snum, silvl := p.styleInfo(para.style)
	if para.outline >= 0 && para.outline < 9 {
		level = para.outline + 1
	}
	numID, ilvl := para.numID, para.ilvl
	if !para.hasNum && snum != "" {
		numID, ilvl = snum, silvl
		if level > 0 && ilvl == 0 {
			ilvl = level - 1
		}
	}
	if text == "" {
		return
	}
	label := ""
	if numID != "" {
		label = p.label(numID, ilvl)
	}
	if title {
		if p.doc.Title == "" {
			p.doc.Title = text
		}
		p.sb.addParagraph(text)
		return
	}
	if level == 0 && para.allBold && para.hasText && looksLikeHeading(text) {
		if _, depth := headingNumber(text); depth > 0 {
			level = depth
		} else if label != "" && label != "•" {
			level = ilvl + 1
		}
	}
	if level > 0 && len(text) <= 300 {
		h := text
		if label != "" && label != "•" {
			h = label + " " + text
		}
		p.path.set(level, h)
		p.sb.startSection(p.path.String())
		return
	}
	if label != "" {
		text = label + " " + text
	}
	p.sb.addParagraph(text)
}

// looksLikeHeading: short, not a sentence.
func looksLikeHeading(t string) bool {
	return len(strings.Fields(t)) <= 12 && !strings.ContainsAny(lastRune(t), ".,;:")
}

// coreProps reads title, authors, year and identifiers from
// docProps/core.xml.
func coreProps(b []byte, doc *Document) {
	var c struct {
		Title       string `xml:"title"`
		Creator     string `xml:"creator"`
		Created     string `xml:"created"`
		Identifier  string `xml:"identifier"`
		Subject     string `xml:"subject"`
		Keywords    string `xml:"keywords"`
		Description string `xml:"description"`
	}
	if xml.Unmarshal(b, &c) != nil {
		return
	}
	doc.Title = strings.TrimSpace(c.Title)
	doc.Authors = splitAuthors(c.Creator)
	doc.Year = parseYear(c.Created)
	doc.DOI = cleanDOI(c.Identifier + " " + c.Subject + " " + c.Keywords + " " + c.Description)
}
