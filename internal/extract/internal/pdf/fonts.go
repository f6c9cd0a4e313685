package pdf

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
)

// A font decodes the codes shown with a PDF font into text and widths.
// It is built once per font object and cached in the Reader.
type font struct {
	Name   string // BaseFont without the subset prefix
	Bold   bool
	Italic bool

	cid       bool        // Type0: multi-byte codes
	codespace []codeRange // code lengths of a Type0 font's CMap; nil means two bytes
	ucs2      bool        // Type0 with a Uni…-UCS2 CMap: codes are UCS-2
	toUni     map[uint32]string
	enc       [256]string // simple fonts: code → text from the encoding
	widths    []float64   // simple fonts: widths from FirstChar
	first     int
	missing   float64 // width of codes outside widths
	cidW      map[uint32]float64
	scale     float64 // glyph space → text space
	sizeScale float64 // Type3: glyph height relative to a 1000-unit font
}

type codeRange struct {
	n      int
	lo, hi uint32
}

// fontFor returns the decoder for the font resource v, cached by object
// number when the font is an indirect object.
func (r *Reader) fontFor(res Value, fontName string) *font {
	fonts := res.Key("Font")
	v := fonts.Key(fontName)
	ptr, indirect := fonts.refOf(fontName)
	if indirect {
		if f, ok := r.fonts[ptr]; ok {
			return f
		}
	}
	f := newFont(v)
	if indirect {
		r.fonts[ptr] = f
	}
	return f
}

func newFont(v Value) (f *font) {
	f = &font{scale: 0.001, sizeScale: 1, missing: -1}
	defer func() {
		if recover() != nil {
			// A broken font still shows something: keep what was built.
			if f.toUni == nil && f.enc[65] == "" {
				f.enc = standardText
			}
		}
	}()
	base := v.Key("BaseFont").Name()
	if i := strings.IndexByte(base, '+'); i >= 0 && i <= 7 {
		base = base[i+1:]
	}
	f.Name = base
	subtype := v.Key("Subtype").Name()
	desc := v.Key("FontDescriptor")
	if subtype == "Type0" {
		f.cid = true
		desc = v.Key("DescendantFonts").Index(0).Key("FontDescriptor")
	}
	lname := strings.ToLower(base)
	flags := desc.Key("Flags").Int64()
	weight := desc.Key("FontWeight").Float64()
	f.Bold = weight >= 600 || flags&(1<<18) != 0 || containsAny(lname, "bold", "black", "heavy", "semibold", "demi", "-medi", "cmbx", "cmb10", "cmb12")
	f.Italic = flags&(1<<6) != 0 || containsAny(lname, "italic", "oblique", "ital", "cmti", "cmmi", "cmsl")

	if tu := v.Key("ToUnicode"); tu.Kind() == Stream {
		f.toUni, _ = readCMap(tu)
	}

	if f.cid {
		f.initCID(v)
		return f
	}

	// Simple font: encoding.
	if subtype == "Type3" {
		if m := v.Key("FontMatrix"); m.Len() == 6 {
			f.scale = m.Index(0).Float64()
			if d := m.Index(3).Float64(); d != 0 {
				f.sizeScale = d * 1000
				if f.sizeScale < 0 {
					f.sizeScale = -f.sizeScale
				}
			}
		}
	}
	enc := v.Key("Encoding")
	baseEnc := ""
	var diffs Value
	switch enc.Kind() {
	case Name:
		baseEnc = enc.Name()
	case Dict:
		baseEnc = enc.Key("BaseEncoding").Name()
		diffs = enc.Key("Differences")
	}
	switch baseEnc {
	case "WinAnsiEncoding":
		f.enc = winAnsiText
	case "MacRomanEncoding":
		f.enc = macRomanText
	case "StandardEncoding":
		f.enc = standardText
	default:
		builtin := false
		if subtype == "Type1" || subtype == "MMType1" {
			if ff := desc.Key("FontFile"); ff.Kind() == Stream {
				builtin = type1Encoding(ff, &f.enc)
			}
		}
		if !builtin {
			switch {
			case subtype == "TrueType":
				f.enc = winAnsiText
			case isSymbolic(lname):
				f.enc = [256]string{}
				for i := 32; i < 127; i++ {
					f.enc[i] = string(rune(i))
				}
			default:
				f.enc = standardText
			}
		}
	}
	if diffs.Kind() == Array {
		code := 0
		for i := 0; i < diffs.Len() && i < 4096; i++ {
			x := diffs.Index(i)
			switch x.Kind() {
			case Integer:
				code = int(x.Int64())
			case Name:
				if code >= 0 && code < 256 {
					f.enc[code] = glyphText(x.Name())
				}
				code++
			}
		}
	}

	// Widths.
	f.first = int(v.Key("FirstChar").Int64())
	if w := v.Key("Widths"); w.Kind() == Array {
		n := w.Len()
		if n > 65536 {
			n = 65536
		}
		f.widths = make([]float64, n)
		for i := 0; i < n; i++ {
			f.widths[i] = w.Index(i).Float64()
		}
	}
	if m := desc.Key("MissingWidth"); m.Kind() == Integer || m.Kind() == Real {
		f.missing = m.Float64()
	}
	if f.missing <= 0 {
		switch {
		case strings.Contains(lname, "courier") || strings.Contains(lname, "mono"):
			f.missing = 600
		default:
			f.missing = 500
		}
		if subtype == "Type3" {
			f.missing = 0
		}
	}
	return f
}

func (f *font) initCID(v Value) {
	desc := v.Key("DescendantFonts").Index(0)
	enc := v.Key("Encoding")
	switch enc.Kind() {
	case Name:
		n := enc.Name()
		f.ucs2 = strings.Contains(n, "UCS2") || strings.Contains(n, "UTF16")
	case Stream:
		_, f.codespace = readCMap(enc)
	}
	f.missing = 1000
	if dw := desc.Key("DW"); dw.Kind() == Integer || dw.Kind() == Real {
		f.missing = dw.Float64()
	}
	w := desc.Key("W")
	if w.Kind() != Array {
		return
	}
	f.cidW = make(map[uint32]float64)
	total := 0
	for i := 0; i < w.Len() && total < 1<<20; {
		c := w.Index(i)
		if c.Kind() != Integer {
			break
		}
		next := w.Index(i + 1)
		if next.Kind() == Array {
			start := uint32(c.Int64())
			for k := 0; k < next.Len(); k++ {
				f.cidW[start+uint32(k)] = next.Index(k).Float64()
				total++
			}
			i += 2
			continue
		}
		last := w.Index(i + 1).Int64()
		width := w.Index(i + 2).Float64()
		for cid := c.Int64(); cid <= last && total < 1<<20; cid++ {
			f.cidW[uint32(cid)] = width
			total++
		}
		i += 3
	}
}

// decode splits raw into codes and reports each code's text and width in
// glyph-space units; single reports a one-byte code (for word spacing).
func (f *font) decode(raw string, fn func(text string, width float64, single bool, code uint32)) {
	if !f.cid {
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			text := f.enc[c]
			if f.toUni != nil {
				if t, ok := f.toUni[uint32(c)]; ok {
					text = t
				}
			}
			w := f.missing
			if k := int(c) - f.first; k >= 0 && k < len(f.widths) {
				w = f.widths[k]
			}
			fn(text, w, true, uint32(c))
		}
		return
	}
	for len(raw) > 0 {
		n := 2
		if f.codespace != nil {
			n = f.codeLen(raw)
		}
		if n > len(raw) {
			n = len(raw)
		}
		var code uint32
		for i := 0; i < n; i++ {
			code = code<<8 | uint32(raw[i])
		}
		raw = raw[n:]
		text, ok := f.toUni[code]
		if !ok && f.ucs2 {
			text = string(rune(code))
		}
		w, ok := f.cidW[code]
		if !ok {
			w = f.missing
		}
		fn(text, w, n == 1, code)
	}
}

func (f *font) codeLen(raw string) int {
	for n := 1; n <= 4 && n <= len(raw); n++ {
		var code uint32
		for i := 0; i < n; i++ {
			code = code<<8 | uint32(raw[i])
		}
		for _, r := range f.codespace {
			if r.n == n && code >= r.lo && code <= r.hi {
				return n
			}
		}
	}
	return 2
}

// readCMap parses a ToUnicode or encoding CMap: its code → text map and its
// codespace ranges.
func readCMap(v Value) (m map[uint32]string, space []codeRange) {
	defer func() {
		if recover() != nil && m == nil {
			m = nil
		}
	}()
	m = make(map[uint32]string)
	mark := -1
	total := 0
	Interpret(v, func(stk *Stack, op string) {
		switch op {
		case "begincodespacerange", "beginbfchar", "beginbfrange", "begincidrange", "begincidchar":
			stk.Pop()
			mark = stk.Len()
			return
		case "endcodespacerange", "endbfchar", "endbfrange", "endcidrange", "endcidchar":
		default:
			return
		}
		if mark < 0 || mark > stk.Len() {
			mark = -1
			return
		}
		args := append([]Value(nil), stk.stack[mark:]...)
		for stk.Len() > mark {
			stk.Pop()
		}
		mark = -1
		switch op {
		case "endcodespacerange":
			for i := 0; i+1 < len(args); i += 2 {
				lo, hi := args[i].RawString(), args[i+1].RawString()
				if len(lo) == 0 || len(lo) != len(hi) || len(lo) > 4 {
					continue
				}
				space = append(space, codeRange{len(lo), codeOf(lo), codeOf(hi)})
			}
		case "endbfchar":
			for i := 0; i+1 < len(args); i += 2 {
				src := args[i].RawString()
				if len(src) == 0 || len(src) > 4 {
					continue
				}
				dst := args[i+1]
				switch dst.Kind() {
				case String:
					m[codeOf(src)] = utf16Text(dst.RawString())
				case Name:
					m[codeOf(src)] = glyphText(dst.Name())
				}
				total++
			}
		case "endbfrange":
			for i := 0; i+2 < len(args); i += 3 {
				lo, hi := args[i].RawString(), args[i+1].RawString()
				if len(lo) == 0 || len(lo) > 4 || len(hi) != len(lo) {
					continue
				}
				clo, chi := codeOf(lo), codeOf(hi)
				if chi < clo || chi-clo > 65535 || total > 1<<20 {
					continue
				}
				dst := args[i+2]
				switch dst.Kind() {
				case String:
					u := utf16Units(dst.RawString())
					if len(u) == 0 {
						continue
					}
					for k := uint32(0); k <= chi-clo; k++ {
						w := append([]uint16(nil), u...)
						w[len(w)-1] += uint16(k)
						m[clo+k] = string(utf16.Decode(w))
						total++
					}
				case Array:
					for k := 0; k <= int(chi-clo) && k < dst.Len(); k++ {
						m[clo+uint32(k)] = utf16Text(dst.Index(k).RawString())
						total++
					}
				}
			}
		}
	})
	return m, space
}

func codeOf(s string) uint32 {
	var c uint32
	for i := 0; i < len(s); i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

func utf16Units(s string) []uint16 {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	if len(s)%2 == 1 {
		u = append(u, uint16(s[len(s)-1]))
	}
	return u
}

func utf16Text(s string) string {
	return string(utf16.Decode(utf16Units(s)))
}

// glyphText maps a glyph name to text (Adobe glyph list conventions).
func glyphText(n string) string {
	if r, ok := nameToRune[n]; ok {
		return string(r)
	}
	if i := strings.IndexByte(n, '.'); i > 0 {
		return glyphText(n[:i])
	}
	if strings.Contains(n, "_") {
		var sb strings.Builder
		for _, part := range strings.Split(n, "_") {
			sb.WriteString(glyphText(part))
		}
		return sb.String()
	}
	if strings.HasPrefix(n, "uni") && len(n) >= 7 && (len(n)-3)%4 == 0 {
		var u []uint16
		for i := 3; i+4 <= len(n); i += 4 {
			x, err := strconv.ParseUint(n[i:i+4], 16, 16)
			if err != nil {
				return ""
			}
			u = append(u, uint16(x))
		}
		return string(utf16.Decode(u))
	}
	if strings.HasPrefix(n, "u") && len(n) >= 5 && len(n) <= 7 {
		if x, err := strconv.ParseUint(n[1:], 16, 32); err == nil && x < 0x110000 {
			return string(rune(x))
		}
	}
	switch n {
	case "ff":
		return "ff"
	case "ffi":
		return "ffi"
	case "ffl":
		return "ffl"
	case "fi":
		return "fi"
	case "fl":
		return "fl"
	}
	return ""
}

// type1Encoding reads the built-in encoding from the clear-text part of an
// embedded Type 1 font program ("dup 12 /fi put" lines).
func type1Encoding(ff Value, enc *[256]string) bool {
	data, err := ff.Data()
	if err != nil {
		return false
	}
	n := int(ff.Key("Length1").Int64())
	if n <= 0 || n > len(data) {
		n = len(data)
	}
	clear := data[:n]
	if i := bytes.Index(clear, []byte("eexec")); i >= 0 {
		clear = clear[:i]
	}
	i := bytes.Index(clear, []byte("/Encoding"))
	if i < 0 {
		return false
	}
	clear = clear[i:]
	if bytes.HasPrefix(bytes.TrimSpace(clear[len("/Encoding"):]), []byte("StandardEncoding")) {
		*enc = standardText
		return true
	}
	found := false
	*enc = [256]string{}
	for {
		j := bytes.Index(clear, []byte("dup "))
		if j < 0 {
			break
		}
		clear = clear[j+4:]
		fields := bytes.Fields(clear)
		if len(fields) < 3 || !bytes.Equal(fields[2], []byte("put")) || len(fields[1]) < 2 || fields[1][0] != '/' {
			continue
		}
		code, err := strconv.Atoi(string(fields[0]))
		if err != nil || code < 0 || code > 255 {
			continue
		}
		enc[code] = glyphText(string(fields[1][1:]))
		found = true
		if bytes.HasPrefix(bytes.TrimSpace(clear), []byte("readonly def")) {
			break
		}
	}
	return found
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func isSymbolic(lname string) bool {
	return containsAny(lname, "symbol", "dingbat", "wingding", "cmsy", "cmex", "msam", "msbm")
}

var winAnsiText, macRomanText, standardText [256]string

func init() {
	for i := 0; i < 256; i++ {
		if r := winAnsiEncoding[i]; r != noRune && i >= 32 {
			winAnsiText[i] = string(r)
		}
		if r := macRomanEncoding[i]; r != noRune && i >= 32 {
			macRomanText[i] = string(r)
		}
		if i >= 32 && i < 127 {
			standardText[i] = string(rune(i))
		}
	}
	standardText['\''] = "’"
	standardText['`'] = "‘"
	for code, n := range standardUpper {
		standardText[code] = glyphText(n)
	}
}

// standardUpper is the upper half of Adobe StandardEncoding.
var standardUpper = map[int]string{
	0xa1: "exclamdown", 0xa2: "cent", 0xa3: "sterling", 0xa4: "fraction", 0xa5: "yen",
	0xa6: "florin", 0xa7: "section", 0xa8: "currency", 0xa9: "quotesingle",
	0xaa: "quotedblleft", 0xab: "guillemotleft", 0xac: "guilsinglleft",
	0xad: "guilsinglright", 0xae: "fi", 0xaf: "fl", 0xb1: "endash", 0xb2: "dagger",
	0xb3: "daggerdbl", 0xb4: "periodcentered", 0xb6: "paragraph", 0xb7: "bullet",
	0xb8: "quotesinglbase", 0xb9: "quotedblbase", 0xba: "quotedblright",
	0xbb: "guillemotright", 0xbc: "ellipsis", 0xbd: "perthousand", 0xbf: "questiondown",
	0xc1: "grave", 0xc2: "acute", 0xc3: "circumflex", 0xc4: "tilde", 0xc5: "macron",
	0xc6: "breve", 0xc7: "dotaccent", 0xc8: "dieresis", 0xca: "ring", 0xcb: "cedilla",
	0xcd: "hungarumlaut", 0xce: "ogonek", 0xcf: "caron", 0xd0: "emdash", 0xe1: "AE",
	0xe3: "ordfeminine", 0xe8: "Lslash", 0xe9: "Oslash", 0xea: "OE",
	0xeb: "ordmasculine", 0xf1: "ae", 0xf5: "dotlessi", 0xf8: "lslash",
	0xf9: "oslash", 0xfa: "oe", 0xfb: "germandbls",
}
