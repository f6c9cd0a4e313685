package extract

import (
	"math"
	"strings"
	"testing"

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
