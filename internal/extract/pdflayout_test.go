package extract

import (
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/papermem/papermem/internal/extract/internal/pdf"
)

// glyphLine lays s out as glyphs of a fixed advance (half the size).
func glyphLine(s string, x, y, size float64, bold bool) []pdf.Glyph {
	var out []pdf.Glyph
	for _, r := range s {
		out = append(out, pdf.Glyph{X: x, Y: y, W: size / 2, Size: size, Font: "F", Bold: bold, S: string(r)})
		x += size / 2
	}
	return out
}

func layoutText(pages ...[]pdf.Glyph) *Document {
	var lp []layoutPage
	for i, g := range pages {
		lp = append(lp, layoutPage{Number: i + 1, Glyphs: g, Box: [4]float64{0, 0, 612, 792}})
	}
	return layoutDocument(lp)
}

func TestLayoutColumns(t *testing.T) {
	var g []pdf.Glyph
	g = append(g, glyphLine("A Title Across The Page", 150, 740, 20, false)...)
	left := []string{"left one alpha beta gamma", "left two alpha beta gamma", "left three alpha beta", "left four alpha beta gamma", "left five alpha beta gamma", "left six alpha beta gamma"}
	right := []string{"right one alpha beta", "right two alpha beta", "right three alpha", "right four alpha beta", "right five alpha beta", "right six alpha beta"}
	// Content order interleaves the columns line by line.
	for i := range left {
		y := 700 - 12*float64(i)
		g = append(g, glyphLine(left[i], 72, y, 10, false)...)
		g = append(g, glyphLine(right[i], 320, y, 10, false)...)
	}
	doc := layoutText(g)
	text := doc.Text()
	want := []string{"A Title Across The Page", "left one", "left six", "right one", "right six"}
	pos := -1
	for _, w := range want {
		i := strings.Index(text, w)
		if i <= pos {
			t.Fatalf("%q out of reading order in:\n%s", w, text)
		}
		pos = i
	}
	if doc.Title != "A Title Across The Page" {
		t.Errorf("title %q", doc.Title)
	}
}

func TestLayoutHeadingsAndHyphens(t *testing.T) {
	var p1, p2 []pdf.Glyph
	p1 = append(p1, glyphLine("1 Introduction", 72, 700, 10, true)...)
	p1 = append(p1, glyphLine("We measured the rep-", 72, 686, 10, false)...)
	p1 = append(p1, glyphLine("resentation of ice.", 72, 674, 10, false)...)
	p2 = append(p2, glyphLine("2 Methods", 72, 700, 10, true)...)
	p2 = append(p2, glyphLine("2.1 Data", 72, 680, 10, true)...)
	p2 = append(p2, glyphLine("Cores were cut.", 72, 666, 10, false)...)
	doc := layoutText(p1, p2)
	if err := finish(PDF, doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sections) != 2 {
		t.Fatalf("%d sections: %+v", len(doc.Sections), doc.Sections)
	}
	s0, s1 := doc.Sections[0], doc.Sections[1]
	if s0.Heading != "1 Introduction" || s0.Page != 1 || s0.Type != TypeIntroduction || s0.Text != "We measured the representation of ice." {
		t.Errorf("section 0: %+v", s0)
	}
	if s1.Heading != "2 Methods > 2.1 Data" || s1.Page != 2 || s1.Type != TypeMethods || s1.Text != "Cores were cut." {
		t.Errorf("section 1: %+v", s1)
	}
}

func TestLayoutRotatedPage(t *testing.T) {
	// Text running upwards (a landscape page): x = const, y grows, and
	// the next line lies to the right.
	var g []pdf.Glyph
	for i, line := range []string{"first line of the table", "second line of the table"} {
		y := 100.0
		for _, r := range line {
			g = append(g, pdf.Glyph{X: 300 + 14*float64(i), Y: y, W: 5, Size: 10, S: string(r), Angle: 90})
			y += 5
		}
	}
	g = append(g, pdf.Glyph{X: 50, Y: 50, W: 5, Size: 10, S: "x", Angle: 45}) // stray
	doc := layoutText(g)
	text := doc.Text()
	if !strings.Contains(text, "first line of the table") || !strings.Contains(text, "second line of the table") ||
		strings.Index(text, "first") > strings.Index(text, "second") {
		t.Fatalf("rotated text: %q", text)
	}
}

func TestAccentsAndLigatures(t *testing.T) {
	// TeX sets "Färber" as F, a spacing diaeresis over the a, then a.
	g := glyphLine("F", 72, 700, 10, false)
	g = append(g, pdf.Glyph{X: 77.5, Y: 702, W: 5, Size: 10, S: "¨"})
	g = append(g, pdf.Glyph{X: 77, Y: 700, W: 5, Size: 10, S: "a"})
	g = append(g, glyphLine("rber ﬁnds", 82, 700, 10, false)...)
	doc := layoutText(g)
	if err := finish(PDF, doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Text(); got != "Färber finds" {
		t.Errorf("got %q", got)
	}
}

func TestQuadrant(t *testing.T) {
	for a, want := range map[float64]int{0: 0, 89: 1, 90: 1, -90: 3, 180: 2, -180: 2, 271: 3, 359: 0, math.NaN(): 0} {
		if got := quadrant(a); got != want {
			t.Errorf("quadrant(%v) = %d, want %d", a, got, want)
		}
	}
}

// twoColumns lays out two columns of 10-point lines, 12 points apart,
// from y = 700 down, and returns their glyphs.
func twoColumns(left, right []string) []pdf.Glyph {
	var g []pdf.Glyph
	for i, s := range left {
		g = append(g, glyphLine(s, 72, 700-12*float64(i), 10, false)...)
	}
	for i, s := range right {
		g = append(g, glyphLine(s, 320, 700-12*float64(i), 10, false)...)
	}
	return g
}

// sectionWith returns the section whose text contains s.
func sectionWith(t *testing.T, doc *Document, s string) Section {
	t.Helper()
	for _, sec := range doc.Sections {
		if strings.Contains(sec.Text, s) {
			return sec
		}
	}
	t.Fatalf("no section holds %q: %+v", s, doc.Sections)
	return Section{}
}

func TestLayoutSentenceAcrossColumns(t *testing.T) {
	// Columns need six rows or more to be told apart.
	left := []string{"The glaciers lost mass in every", "year of the record. We read", "the records of each station.", "Where the metadata of the", "publisher is missing, we use", "majority voting to"}
	right := []string{"select canonical values for the", "fields. Then we check each", "cluster by hand, one at a time,", "and then by the rules of the", "merge, and by a long list of", "rules kept in a separate ta-"}
	// A footnote in small type at the foot of the left column.
	g := twoColumns(left, right)
	g = append(g, glyphLine("1See the appendix for details.", 72, 600, 7, false)...)
	// The next page goes on with the hyphenated word.
	p2 := twoColumns([]string{"ble of rules for the merge.", "Each rule names a field and", "the sources that may set it,", "in the order of their trust,", "from the publisher down to", "the parsed text of the PDF."},
		[]string{"Rules are applied in order,", "and the first one that fits", "decides the field's value.", "A field no rule decides is", "left empty rather than set", "from a source of low trust."})
	doc := layoutText(g, p2)
	if err := finish(PDF, doc); err != nil {
		t.Fatal(err)
	}
	s1 := sectionWith(t, doc, "majority voting")
	want1 := "The glaciers lost mass in every year of the record. We read the records of each station. Where the metadata of the publisher is missing, we use majority voting to select canonical values for the fields.\n\n" +
		"1See the appendix for details.\n\n" +
		"Then we check each cluster by hand, one at a time, and then by the rules of the merge, and by a long list of rules kept in a separate table of rules for the merge."
	if s1.Text != want1 || s1.Page != 1 {
		t.Errorf("page 1: got page %d\n%s\nwant\n%s", s1.Page, s1.Text, want1)
	}
	// What follows the joined sentence keeps its page.
	if s2 := sectionWith(t, doc, "Each rule names"); s2.Page != 2 || !strings.HasPrefix(s2.Text, "Each rule names a field") {
		t.Errorf("page 2: %+v", s2)
	}
}

func TestLayoutTable(t *testing.T) {
	var g []pdf.Glyph
	g = append(g, glyphLine("We counted the papers of each source in the corpus.", 72, 700, 10, false)...)
	for i, row := range [][2]string{{"Total papers", "81.1M"}, {"Papers with PDF", "28.9M"}, {"Papers with DOI", "52.2M"}} {
		y := 670 - 12*float64(i)
		g = append(g, glyphLine(row[0], 72, y, 10, false)...)
		g = append(g, glyphLine(row[1], 250, y, 10, false)...)
	}
	g = append(g, glyphLine("Table 1: Papers by source.", 72, 620, 9, false)...)
	g = append(g, glyphLine("Most papers come with a DOI.", 72, 590, 10, false)...)
	doc := layoutText(g)
	if err := finish(PDF, doc); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, s := range doc.Sections {
		types = append(types, s.Type+": "+s.Text)
	}
	want := []string{
		"body: We counted the papers of each source in the corpus.",
		"table: Total papers 81.1M Papers with PDF 28.9M Papers with DOI 52.2M",
		"body: Table 1: Papers by source.\n\nMost papers come with a DOI.",
	}
	if strings.Join(types, "|") != strings.Join(want, "|") {
		t.Errorf("sections:\n%s\nwant\n%s", strings.Join(types, "\n"), strings.Join(want, "\n"))
	}
}

func TestLayoutCaptionAcrossGutter(t *testing.T) {
	left := []string{"left one alpha beta gamma", "left two alpha beta gamma", "left three alpha beta", "left four alpha beta gamma", "left five alpha beta gamma", "left six alpha beta gamma"}
	right := []string{"right one alpha beta", "right two alpha beta", "right three alpha", "right four alpha beta", "right five alpha beta", "right six alpha beta"}
	g := twoColumns(left, right)
	// A caption across both columns, its last line short.
	g = append(g, glyphLine("Figure 1: The mass of the glaciers fell in every year of the record, and in the", 72, 600, 9, false)...)
	g = append(g, glyphLine("last decade faster than before.", 72, 590, 9, false)...)
	doc := layoutText(g)
	if err := finish(PDF, doc); err != nil {
		t.Fatal(err)
	}
	if text := doc.Text(); !strings.Contains(text, "in the last decade faster than before.") {
		t.Errorf("caption cut:\n%s", text)
	}
}

func TestParagraphEnd(t *testing.T) {
	for s, want := range map[string]int{
		"It ended.": endSentence, "It ended.”": endSentence, "in 2019.3": endSentence, "Why?)": endSentence,
		"these ta-": endHyphen, "pre- and": endOpen, "vol. 3-": endOpen, "as follows:": endColon,
		"we use majority voting to": endOpen, "like arXiv,2": endOpen, "4970": endOpen, "": endOpen,
	} {
		if got := paragraphEnd(s); got != want {
			t.Errorf("paragraphEnd(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestLowerStart(t *testing.T) {
	for s, want := range map[string]bool{
		"select canonical values": true, "bles for corpus": true, "where J is": true,
		"mRNA levels rose": false, "p53 binds": false, "iPhone users": false, "The end": false, "": false, "1) Process": false,
	} {
		if got := lowerStart(s); got != want {
			t.Errorf("lowerStart(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzLayout lays out glyphs made from the input, five bytes each (x, y,
// size, character, page), on up to three pages: the layout must not
// panic, must end, and must not make up letters (each of its sections'
// letters comes from a glyph, none twice).
func FuzzLayout(f *testing.F) {
	f.Add([]byte("\x10\xb0\x05a\x00\x14\xb0\x05b\x00\x18\xb0\x05-\x00\x10\xa8\x05c\x01"))
	var seed []byte
	for i, s := range []string{"we use these ta-", "bles for the", "results."} {
		for j, r := range []byte(s) {
			seed = append(seed, byte(10+j*2), byte(200-12*i), 5, r, byte(i/2))
		}
	}
	f.Add(seed)
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-()\u2010 "
	f.Fuzz(func(t *testing.T, data []byte) {
		pages := make([][]pdf.Glyph, 3)
		letters := map[rune]int{}
		for i := 0; i+5 <= len(data) && i < 5*4000; i += 5 {
			c := []rune(chars)[int(data[i+3])%len([]rune(chars))]
			if unicode.IsLetter(c) {
				letters[c]++
			}
			g := pdf.Glyph{X: float64(data[i]) * 3, Y: float64(data[i+1]) * 4, Size: 4 + float64(data[i+2]%24), S: string(c), Font: "F"}
			g.W = g.Size / 2
			p := int(data[i+4]) % 3
			pages[p] = append(pages[p], g)
		}
		doc := layoutText(pages...)
		for _, s := range doc.Sections {
			for _, r := range s.Text {
				if unicode.IsLetter(r) {
					if letters[r]--; letters[r] < 0 {
						t.Fatalf("letter %q appears more often than in the glyphs: %q", r, s.Text)
					}
				}
			}
		}
	})
}

func TestLayoutRunningHeaderAndCode(t *testing.T) {
	var pages [][]pdf.Glyph
	for p := 0; p < 3; p++ {
		g := glyphLine("Shared Database Specification", 300, 740, 10, false)
		body := []string{"Every page holds some text of", "its own, and this one ends", "in the middle of a sentence in a"}
		if p > 0 {
			body[0] = "directory of its own. Then it"
		}
		for i, s := range body {
			g = append(g, glyphLine(s, 72, 700-12*float64(i), 10, false)...)
		}
		pages = append(pages, g)
	}
	// Code in a typewriter face after a colon.
	code := glyphLine("The syntax is as below:", 72, 600, 10, false)
	for i, s := range []string{"definitions ::= name", "begin end"} {
		for _, g := range glyphLine(s, 90, 588-12*float64(i), 10, false) {
			g.Font = "CMTT10"
			code = append(code, g)
		}
	}
	code = append(code, glyphLine("The token must stand apart.", 72, 550, 10, false)...)
	pages[2] = append(pages[2], code...)
	doc := layoutText(pages...)
	if err := finish(PDF, doc); err != nil {
		t.Fatal(err)
	}
	text := doc.Text()
	for _, want := range []string{"in the middle of a sentence in a directory of its own.", "The syntax is as below:\n\ndefinitions ::= name begin end\n\nThe token must stand apart."} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestMidClause(t *testing.T) {
	for s, want := range map[string]bool{
		"Digital archives like arXiv,2": true, "linking in": true, "one; two;": true,
		"version 4.19.0, 18 August 2022": false, "Shared MIME-info Database": false, "It ended.": false, "": false,
	} {
		if got := midClause(s); got != want {
			t.Errorf("midClause(%q) = %v, want %v", s, got, want)
		}
	}
}
