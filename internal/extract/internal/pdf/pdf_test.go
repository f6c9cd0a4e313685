package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"
	"time"
)

// within fails the test when f does not return in time (the upstream lexer
// looped forever on these inputs).
func within(t *testing.T, name string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { recover() }()
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: did not return", name)
	}
}

func TestLexerEndsAtEOF(t *testing.T) {
	for _, in := range []string{"(unterminated", "<4142", "[1 2 3", "<< /A 1 /B", "<< /A [ (x", "%comment", "/Name", "", "   "} {
		within(t, in, func() {
			b := newBuffer([]byte(in), 0)
			for i := 0; i < 100; i++ {
				if _, err := b.readObject(); err != nil {
					return
				}
			}
		})
	}
}

func TestDeepNesting(t *testing.T) {
	b := newBuffer([]byte(strings.Repeat("[", 100000)), 0)
	if _, err := b.readObject(); err != errTooDeep {
		t.Fatalf("err = %v, want errTooDeep", err)
	}
}

func TestFilters(t *testing.T) {
	if got := string(asciiHexDecode([]byte("48 65 6c6C6f7>"))); got != "Hellop" {
		t.Errorf("ASCIIHex: %q", got)
	}
	if got, err := ascii85Decode([]byte("<~87cURD]i,\"Ebo80~>")); err != nil || string(got) != "Hello World!" {
		t.Errorf("ASCII85: %q %v", got, err)
	}
	if got, err := runLengthDecode([]byte{2, 'a', 'b', 'c', 254, 'x', 128}); err != nil || string(got) != "abcxxx" {
		t.Errorf("RunLength: %q %v", got, err)
	}
	// PNG Up predictor, two rows of three bytes.
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte{2, 1, 2, 3, 2, 1, 1, 1})
	w.Close()
	param := Value{nil, objptr{}, dict{"Predictor": int64(12), "Columns": int64(3)}}
	out, err := applyFilter(z.Bytes(), "FlateDecode", param)
	if err != nil || !bytes.Equal(out, []byte{1, 2, 3, 2, 3, 4}) {
		t.Errorf("Flate+PNG: %v %v", out, err)
	}
	if _, err := applyFilter([]byte("x"), "JBIG2Decode", Value{}); err == nil {
		t.Error("unsupported filter: no error")
	}
}

func TestLZW(t *testing.T) {
	// The example from the PDF reference, section 7.4.4.2.
	in := []byte{0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01}
	got, err := lzwDecode(in, true)
	if err != nil || string(got) != "-----A---B" {
		t.Errorf("LZW: %q %v", got, err)
	}
}

// onePage builds a PDF whose single page shows content with font F1.
func onePage(content, font string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		font,
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	return b.Bytes()
}

func TestGlyphs(t *testing.T) {
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Times-Bold /FirstChar 32 /LastChar 126 /Widths [" +
		strings.Repeat("500 ", 95) + "] /Encoding << /Differences [65 /fi /uni00E9] >> >>"
	data := onePage("BT /F1 10 Tf 1 0 0 1 72 700 Tm [(AB) -500 (c)] TJ ET BI /W 1 /H 1 ID \x00\xffEI EI BT /F1 10 Tf 72 600 Td (d) Tj ET", font)
	r, err := NewReader(data)
	if err != nil {
		t.Fatal(err)
	}
	pages := r.Pages()
	if len(pages) != 1 {
		t.Fatalf("%d pages", len(pages))
	}
	g, err := r.Glyphs(pages[0])
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, x := range g {
		s = append(s, x.S)
	}
	if got := strings.Join(s, ""); got != "ﬁécd" {
		t.Fatalf("text %q, want ﬁécd", got)
	}
	if g[0].X != 72 || g[0].Y != 700 || g[0].W != 5 || g[0].Size != 10 || g[0].Font != "Times-Bold" || !g[0].Bold {
		t.Errorf("first glyph %+v", g[0])
	}
	// c follows B after a 500-unit (5 pt) adjustment.
	if g[2].X != 72+5+5+5 {
		t.Errorf("c at x=%v, want 87", g[2].X)
	}
}

func TestEncrypted(t *testing.T) {
	data := onePage("", "<< >>")
	data = bytes.Replace(data, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /Encrypt << >>"), 1)
	if _, err := NewReader(data); err != ErrEncrypted {
		t.Fatalf("err = %v, want ErrEncrypted", err)
	}
}

func TestCMapRangeAtTop(t *testing.T) {
	// A bfrange ending at the largest 4-byte code used to wrap around and
	// loop forever.
	cmap := "begincmap 1 begincodespacerange <00000000> <FFFFFFFF> endcodespacerange " +
		"1 beginbfrange <FFFFFFF0> <FFFFFFFF> <0041> endbfrange endcmap"
	data := onePage("BT /F1 10 Tf (x) Tj ET", "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 6 0 R >>")
	data = addObject(data, 6, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap))
	within(t, "cmap", func() {
		r, err := NewReader(data)
		if err != nil {
			t.Error(err)
			return
		}
		f := r.fontFor(r.Pages()[0].Resources, "F1")
		if got := f.toUni[0xFFFFFFFF]; got != "P" {
			t.Errorf("code FFFFFFFF -> %q, want P", got)
		}
	})
}

func TestHugeXrefIndex(t *testing.T) {
	// An xref subsection claiming objects up to maxObjects costs nothing.
	data := onePage("", "<< >>")
	data = bytes.Replace(data, []byte("xref\n0 6\n"), []byte("xref\n8000000 0\n0 6\n"), 1)
	within(t, "xref", func() {
		if _, err := NewReader(data); err != nil {
			t.Error(err)
		}
	})
}

// addObject appends object id to a PDF built by onePage with an
// incremental update (a new xref section whose /Prev is the old one).
func addObject(data []byte, id int, body string) []byte {
	prev := bytes.LastIndex(data, []byte("startxref\n"))
	var old int
	fmt.Sscanf(string(data[prev+len("startxref\n"):]), "%d", &old)
	var b bytes.Buffer
	b.Write(data)
	off := b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", id, body)
	x := b.Len()
	fmt.Fprintf(&b, "xref\n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", id, off, id+1, old, x)
	return b.Bytes()
}
