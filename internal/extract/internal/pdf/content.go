package pdf

import (
	"bytes"
	"errors"
	"io"
	"math"
)

// A Glyph is one character shown on a page, in default user space
// (points, y increasing upwards).
type Glyph struct {
	X, Y    float64 // origin on the baseline
	W       float64 // advance width
	Size    float64 // font size as rendered
	Font    string  // base font name
	Bold    bool
	Italic  bool
	S       string  // text; "" for a code with no known text
	Rotated bool    // not upright left-to-right text
	Angle   float64 // direction of the baseline, degrees counter-clockwise
}

// Limits on the work done for one page.
const (
	maxGlyphsPerPage = 1 << 20
	maxOpsPerPage    = 20 << 20
	maxFormDepth     = 12

	maxOpsPerDocument    = 200 << 20
	maxGlyphsPerDocument = 8 << 20
)

// ErrPageTooComplex is returned when a page exceeds the glyph or operator budget.
var ErrPageTooComplex = errors.New("pdf: page content too complex")

// matrix is an affine transform [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n (apply m, then n).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

type textState struct {
	ctm        matrix
	tc, tw, th float64
	tl, rise   float64
	font       *font
	size       float64
}

type interp struct {
	r      *Reader
	glyphs []Glyph
	ops    int
	forms  []objptr
	err    error
}

// Glyphs returns the glyphs shown on page p, in content-stream order.
func (r *Reader) Glyphs(p Page) ([]Glyph, error) {
	return r.AppendGlyphs(nil, p)
}

// AppendGlyphs appends the glyphs of page p to dst, so one buffer can
// serve every page.
func (r *Reader) AppendGlyphs(dst []Glyph, p Page) ([]Glyph, error) {
	in := &interp{r: r, glyphs: dst}
	contents := p.V.Key("Contents")
	var data []byte
	switch contents.Kind() {
	case Stream:
		d, err := contents.Data()
		if err != nil {
			return nil, err
		}
		data = d
	case Array:
		var buf bytes.Buffer
		for i := 0; i < contents.Len() && i < 10000; i++ {
			d, err := contents.Index(i).Data()
			if err != nil {
				continue
			}
			buf.Write(d)
			buf.WriteByte('\n')
		}
		data = buf.Bytes()
	default:
		return nil, nil
	}
	in.run(data, p.Resources, textState{ctm: identity, th: 1})
	return in.glyphs, in.err
}

func (in *interp) run(data []byte, res Value, gs textState) {
	b := newBuffer(data, 0)
	b.allowObjptr = false
	b.allowStream = false
	var args []Value
	var stack []textState
	var tm, tlm matrix = identity, identity
	fontCache := map[string]*font{}

	for in.err == nil {
		tok := b.readToken()
		if tok == io.EOF {
			return
		}
		kw, isOp := tok.(keyword)
		if !isOp || kw == "[" || kw == "<<" || kw == "null" {
			b.unreadToken(tok)
			obj, err := b.readObject()
			if err != nil {
				args = args[:0]
				continue
			}
			if len(args) < 64 {
				args = append(args, Value{in.r, objptr{}, obj})
			}
			continue
		}
		in.ops++
		in.r.ops++
		if in.ops > maxOpsPerPage {
			in.err = ErrPageTooComplex
			return
		}
		if in.r.ops > maxOpsPerDocument {
			in.err = ErrTooMuchData
			return
		}
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		switch kw {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, gs)
			}
		case "Q":
			if n := len(stack); n > 0 {
				gs = stack[n-1]
				stack = stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				gs.ctm = matrix{num(0), num(1), num(2), num(3), num(4), num(5)}.mul(gs.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Td", "TD":
			if len(args) == 2 {
				if kw == "TD" {
					gs.tl = -num(1)
				}
				tlm = matrix{1, 0, 0, 1, num(0), num(1)}.mul(tlm)
				tm = tlm
			}
		case "Tm":
			if len(args) == 6 {
				tm = matrix{num(0), num(1), num(2), num(3), num(4), num(5)}
				tlm = tm
			}
		case "T*":
			tlm = matrix{1, 0, 0, 1, 0, -gs.tl}.mul(tlm)
			tm = tlm
		case "TL":
			gs.tl = num(0)
		case "Tc":
			gs.tc = num(0)
		case "Tw":
			gs.tw = num(0)
		case "Tz":
			gs.th = num(0) / 100
		case "Ts":
			gs.rise = num(0)
		case "Tf":
			if len(args) == 2 {
				n := args[0].Name()
				f, ok := fontCache[n]
				if !ok {
					f = in.r.fontFor(res, n)
					fontCache[n] = f
				}
				gs.font = f
				gs.size = num(1)
			}
		case "Tj", "'", "\"":
			if kw != "Tj" {
				tlm = matrix{1, 0, 0, 1, 0, -gs.tl}.mul(tlm)
				tm = tlm
			}
			if kw == "\"" && len(args) == 3 {
				gs.tw = num(0)
				gs.tc = num(1)
				args = args[2:]
			}
			if len(args) >= 1 {
				in.show(args[len(args)-1].RawString(), &gs, &tm)
			}
		case "TJ":
			if len(args) >= 1 {
				a := args[len(args)-1]
				for i := 0; i < a.Len(); i++ {
					x := a.Index(i)
					if x.Kind() == String {
						in.show(x.RawString(), &gs, &tm)
					} else {
						tx := -x.Float64() / 1000 * gs.size * gs.th
						tm = matrix{1, 0, 0, 1, tx, 0}.mul(tm)
					}
				}
			}
		case "Do":
			if len(args) == 1 {
				in.doXObject(res, args[0].Name(), gs)
			}
		case "BI":
			skipInlineImage(b)
		}
		args = args[:0]
	}
}

// skipInlineImage skips from after BI to after EI.
func skipInlineImage(b *buffer) {
	// Skip the parameters up to ID.
	for {
		tok := b.readToken()
		if tok == io.EOF {
			return
		}
		if tok == keyword("ID") {
			break
		}
	}
	if b.pos < len(b.data) && isSpace(b.data[b.pos]) {
		b.pos++
	}
	rest := b.data[min(b.pos, len(b.data)):]
	for i := 0; i+2 <= len(rest); i++ {
		j := bytes.Index(rest[i:], []byte("EI"))
		if j < 0 {
			break
		}
		k := i + j
		before := k == 0 || isSpace(rest[k-1])
		after := k+2 == len(rest) || isSpace(rest[k+2]) || isDelim(rest[k+2])
		if before && after {
			b.pos += k + 2
			return
		}
		i = k
	}
	b.pos = len(b.data)
}

func (in *interp) doXObject(res Value, n string, gs textState) {
	xobjs := res.Key("XObject")
	x := xobjs.Key(n)
	if x.Kind() != Stream || x.Key("Subtype").Name() != "Form" {
		return
	}
	ptr, _ := xobjs.refOf(n)
	if len(in.forms) >= maxFormDepth {
		return
	}
	for _, p := range in.forms {
		if p == ptr {
			return
		}
	}
	data, err := x.Data()
	if err != nil {
		return
	}
	if m := x.Key("Matrix"); m.Len() == 6 {
		var fm matrix
		for i := range fm {
			fm[i] = m.Index(i).Float64()
		}
		gs.ctm = fm.mul(gs.ctm)
	}
	formRes := x.Key("Resources")
	if formRes.Kind() != Dict {
		formRes = res
	}
	in.forms = append(in.forms, ptr)
	in.run(data, formRes, gs)
	in.forms = in.forms[:len(in.forms)-1]
}

// show appends the glyphs of one string and advances the text matrix.
func (in *interp) show(s string, gs *textState, tm *matrix) {
	f := gs.font
	if f == nil {
		f = defaultFont
	}
	f.decode(s, func(text string, w0 float64, single bool, code uint32) {
		adv := w0 * f.scale * gs.size
		tx := (adv + gs.tc)
		if single && code == 32 {
			tx += gs.tw
		}
		tx *= gs.th
		if text != "" && len(in.glyphs) < maxGlyphsPerPage && in.r.glyphs < maxGlyphsPerDocument {
			in.r.glyphs++
			// Text rendering matrix [size*th 0 0 size 0 rise] × Tm × CTM.
			m := tm.mul(gs.ctm)
			hs := gs.size * gs.th
			trm0, trm1 := hs*m[0], hs*m[1]
			trm2, trm3 := gs.size*m[2], gs.size*m[3]
			g := Glyph{
				X:      gs.rise*m[2] + m[4],
				Y:      gs.rise*m[3] + m[5],
				Font:   f.Name,
				Bold:   f.Bold,
				Italic: f.Italic,
				S:      text,
			}
			if m[1] == 0 && m[2] == 0 && trm0 > 0 {
				g.W = adv * gs.th * m[0]
				g.Size = math.Abs(trm3) * f.sizeScale
			} else {
				g.W = adv * gs.th * math.Hypot(m[0], m[1])
				g.Size = math.Hypot(trm2, trm3) * f.sizeScale
				g.Rotated = trm0 <= 0 || math.Abs(trm1) > 0.1*math.Abs(trm0)
				g.Angle = math.Atan2(trm1, trm0) * 180 / math.Pi
			}
			in.glyphs = append(in.glyphs, g)
		} else if text != "" {
			in.err = ErrPageTooComplex
		}
		tm[4] += tx * tm[0]
		tm[5] += tx * tm[1]
	})
}

var defaultFont = &font{enc: standardText, scale: 0.001, sizeScale: 1, missing: 500}
