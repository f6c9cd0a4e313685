package extract

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/papermem/papermem/internal/chunk"
	"github.com/papermem/papermem/internal/extract/internal/pdf"
)

// PDF layout: positioned glyphs → words → baseline rows → columns (reading
// order) → lines → headings and paragraphs → paragraphs joined where a
// break cut a sentence, tables told from prose → per-page sections.

type layoutPage struct {
	Number int
	Glyphs []pdf.Glyph // used when Words is nil
	Words  []word
	Box    [4]float64
}

type word struct {
	text        string
	x0, x1, y   float64
	size        float64
	bold, ital  bool
	mono        bool // set in a monospaced font
	font        string
	letterCount int
}

// A row is the words sharing a baseline, left to right.
type row struct {
	words  []word
	y      float64
	size   float64
	x0, x1 float64
}

// A line is a run of words in one column, in reading order.
type line struct {
	text   string
	x0, x1 float64
	y      float64
	size   float64
	bold   bool
	page   int
	flow   int     // lines of one column band share a flow
	letter int     // letters in text
	gap    float64 // widest space between two words, in units of size
	mono   bool    // most letters are set in a monospaced font (code)
}

// Word and line geometry, in units of the font size.
const (
	wordGap      = 0.15 // a gap wider than this ends a word
	rowTolerance = 0.45 // baseline distance still on the same row
	gutterHalf   = 0.3  // half the minimum width of a column gutter
)

// uprightGlyphs turns a page whose text mostly runs at 90, 180 or 270
// degrees (a landscape table, say) so that it reads left to right, and
// marks the glyphs that still do not as rotated.
func uprightGlyphs(gs []pdf.Glyph) {
	var count [4]int
	for _, g := range gs {
		count[quadrant(g.Angle)]++
	}
	q := 0
	for i := range count {
		if count[i] > count[q] {
			q = i
		}
	}
	theta := float64(q) * math.Pi / 2
	sin, cos := math.Sin(theta), math.Cos(theta)
	for i := range gs {
		g := &gs[i]
		if q != 0 {
			g.X, g.Y = g.X*cos+g.Y*sin, -g.X*sin+g.Y*cos
		}
		d := math.Mod(g.Angle-float64(q)*90+540, 360) - 180
		g.Rotated = math.Abs(d) > 5
	}
}

// quadrant rounds an angle in degrees to 0 (0°), 1 (90°), 2 (180°) or 3 (270°).
func quadrant(a float64) int {
	if math.IsNaN(a) {
		return 0
	}
	return int(math.Round(math.Mod(a+720, 360)/90)) % 4
}

// buildWords groups glyphs (in content order) into words.
func buildWords(gs []pdf.Glyph) []word {
	var words []word
	var cur []pdf.Glyph
	mono := map[string]bool{} // by font name
	flush := func() {
		if len(cur) > 0 {
			if w, ok := makeWord(cur); ok {
				m, seen := mono[w.font]
				if !seen {
					m = monoFont.MatchString(w.font)
					mono[w.font] = m
				}
				w.mono = m
				words = append(words, w)
			}
			cur = cur[:0]
		}
	}
	for i := range gs {
		g := gs[i]
		if g.Rotated || g.Size < 0.5 || g.Size > 2000 || math.IsNaN(g.X) || math.IsNaN(g.Y) || math.IsInf(g.X, 0) || math.IsInf(g.Y, 0) {
			flush()
			continue
		}
		if isBlank(g.S) {
			flush()
			continue
		}
		if g.W <= 0 {
			g.W = 0.5 * g.Size * float64(utf8.RuneCountInString(g.S))
		}
		if n := len(cur); n > 0 {
			l := cur[n-1]
			big := math.Max(g.Size, l.Size)
			small := math.Min(g.Size, l.Size)
			if g.S == l.S && math.Abs(g.X-l.X) < 0.1*small && math.Abs(g.Y-l.Y) < 0.1*small {
				continue // overprinted (fake bold)
			}
			gap := g.X - (l.X + l.W)
			if math.Abs(g.Y-l.Y) > 0.5*big || gap > wordGap*small || gap < -1.0*big {
				flush()
			}
		}
		cur = append(cur, g)
	}
	flush()
	return words
}

func isBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && r != 0 {
			return false
		}
	}
	return true
}

// spacingAccents maps spacing diacritics, which TeX places over a letter
// as a separate glyph, to combining marks.
var spacingAccents = map[rune]rune{
	'¨': '\u0308', '´': '\u0301', '`': '\u0300', 'ˆ': '\u0302', '^': '\u0302',
	'˜': '\u0303', '~': '\u0303', '¯': '\u0304', 'ˉ': '\u0304', '˘': '\u0306',
	'˙': '\u0307', '˚': '\u030a', '¸': '\u0327', 'ˇ': '\u030c', '˝': '\u030b', '˛': '\u0328',
}

func makeWord(gs []pdf.Glyph) (word, bool) {
	w := word{x0: math.Inf(1), x1: math.Inf(-1)}
	var sb strings.Builder
	combined := false
	pending := rune(0) // accent waiting for the next base letter
	boldN, italN := 0, 0
	maxSize := 0.0
	for i, g := range gs {
		if g.X < w.x0 {
			w.x0 = g.X
		}
		if e := g.X + g.W; e > w.x1 {
			w.x1 = e
		}
		if g.Bold {
			boldN++
		}
		if g.Italic {
			italN++
		}
		r, n := utf8.DecodeRuneInString(g.S)
		if mark, ok := spacingAccents[r]; ok && n == len(g.S) && len(gs) > 1 {
			center := g.X + g.W/2
			if i > 0 {
				p := gs[i-1]
				if center >= p.X && center <= p.X+p.W {
					sb.WriteRune(mark)
					combined = true
					continue
				}
			}
			if i+1 < len(gs) {
				nx := gs[i+1]
				if center >= nx.X-0.1*nx.Size && center <= nx.X+nx.W+0.1*nx.Size {
					pending = mark
					continue
				}
			}
		}
		sb.WriteString(g.S)
		if pending != 0 {
			sb.WriteRune(pending)
			pending = 0
			combined = true
		}
		if hasLetterOrDigit(g.S) && g.Size > maxSize {
			maxSize = g.Size
			w.y = g.Y
		}
	}
	if maxSize == 0 {
		maxSize = gs[0].Size
		w.y = gs[0].Y
	}
	w.size = maxSize
	w.text = strings.ReplaceAll(sb.String(), string(hyphenMark), "")
	if combined {
		w.text = norm.NFC.String(w.text)
	}
	w.bold = boldN*2 > len(gs)
	w.ital = italN*2 > len(gs)
	w.font = gs[0].Font
	for _, r := range w.text {
		if unicode.IsLetter(r) {
			w.letterCount++
		}
	}
	return w, strings.TrimSpace(w.text) != ""
}

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// buildRows clusters words by baseline, top to bottom.
func buildRows(words []word) []row {
	sort.SliceStable(words, func(i, j int) bool {
		if words[i].y != words[j].y {
			return words[i].y > words[j].y
		}
		return words[i].x0 < words[j].x0
	})
	var rows []row
	for _, w := range words {
		if n := len(rows); n > 0 {
			r := &rows[n-1]
			if math.Abs(w.y-r.y) <= rowTolerance*math.Max(w.size, r.size) {
				r.words = append(r.words, w)
				if w.size > r.size {
					r.size, r.y = w.size, w.y
				}
				continue
			}
		}
		rows = append(rows, row{words: []word{w}, y: w.y, size: w.size})
	}
	for i := range rows {
		r := &rows[i]
		sort.SliceStable(r.words, func(a, b int) bool { return r.words[a].x0 < r.words[b].x0 })
		r.x0, r.x1 = r.words[0].x0, r.words[0].x1
		for _, w := range r.words {
			r.x0 = math.Min(r.x0, w.x0)
			r.x1 = math.Max(r.x1, w.x1)
		}
	}
	return rows
}

// findGutter looks for a vertical gap that splits rows into columns. It
// returns its x position, or false when the rows form a single column.
func findGutter(rows []row) (x float64, ok bool, med float64) {
	if len(rows) < 6 {
		return 0, false, 0
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	var sizes []float64
	for _, r := range rows {
		xmin = math.Min(xmin, r.x0)
		xmax = math.Max(xmax, r.x1)
		sizes = append(sizes, r.size)
	}
	width := xmax - xmin
	if width < 50 || width > 1e6 || math.IsNaN(width) {
		return 0, false, 0
	}
	sort.Float64s(sizes)
	med = sizes[len(sizes)/2]
	res := math.Max(0.5, width/4000)
	nb := int(width/res) + 2
	diff := make([]int, nb+1)
	bin := func(x float64) int {
		b := int((x - xmin) / res)
		if b < 0 {
			return 0
		}
		if b > nb {
			return nb
		}
		return b
	}
	for _, r := range rows {
		// Merge this row's expanded word extents, then count the row once
		// per covered bin. Larger type needs a wider gap to count as a
		// gutter: the spaces of a title are wide too.
		half := gutterHalf * math.Max(med, r.size)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, w := range r.words {
			a, b := w.x0-half, w.x1+half
			if a > hi {
				if hi > lo {
					diff[bin(lo)]++
					diff[bin(hi)]--
				}
				lo, hi = a, b
				continue
			}
			lo = math.Min(lo, a)
			hi = math.Max(hi, b)
		}
		if hi > lo {
			diff[bin(lo)]++
			diff[bin(hi)]--
		}
	}
	crossed := make([]int, nb)
	run := 0
	for i := 0; i < nb; i++ {
		run += diff[i]
		crossed[i] = run
	}
	// Rows entirely left or right of each candidate.
	x1s := make([]float64, len(rows))
	x0s := make([]float64, len(rows))
	for i, r := range rows {
		x1s[i], x0s[i] = r.x1, r.x0
	}
	sort.Float64s(x1s)
	sort.Float64s(x0s)
	lo, hi := bin(xmin+0.2*width), bin(xmax-0.2*width)
	best, bestCrossed, bestRun := -1, math.MaxInt, 0
	for i := lo; i <= hi && i < nb; i++ {
		c := crossed[i]
		if c > bestCrossed {
			continue
		}
		// Length of the run of bins with this count around i.
		j := i
		for j+1 < nb && crossed[j+1] == c {
			j++
		}
		runLen := j - i + 1
		mid := (i + j) / 2
		if mid > hi {
			mid = hi
		}
		if c < bestCrossed || runLen > bestRun {
			best, bestCrossed, bestRun = mid, c, runLen
		}
		i = j
	}
	if best < 0 {
		return 0, false, 0
	}
	x = xmin + (float64(best)+0.5)*res
	leftOnly := sort.SearchFloat64s(x1s, x)
	rightOnly := len(x0s) - sort.SearchFloat64s(x0s, x)
	split := len(rows) - bestCrossed - leftOnly - rightOnly
	if split < 0 {
		split = 0
	}
	leftSide, rightSide := leftOnly+split, rightOnly+split
	minSide := leftSide
	if rightSide < minSide {
		minSide = rightSide
	}
	if minSide < 4 || float64(bestCrossed) > 0.4*float64(minSide) {
		return 0, false, 0
	}
	return x, true, med
}

// orderRows returns the rows' words as lines in reading order: columns
// left to right within bands separated by rows that span the gutter.
func orderRows(rows []row, page int, flow *int, depth int, out []line) []line {
	c, ok, med := 0.0, false, 0.0
	if depth < 3 {
		c, ok, med = findGutter(rows)
	}
	if !ok {
		*flow++
		for _, r := range rows {
			out = append(out, rowLine(r.words, page, *flow))
		}
		return out
	}
	var left, right []row
	crossed := false // the last line out was a row across the gutter
	flush := func() {
		if len(left) > 0 || len(right) > 0 {
			crossed = false
		}
		if len(left) > 0 {
			out = orderRows(left, page, flow, depth+1, out)
		}
		if len(right) > 0 {
			out = orderRows(right, page, flow, depth+1, out)
		}
		left, right = nil, nil
	}
	for _, r := range rows {
		var l, rr []word
		crosses := false
		half := gutterHalf * math.Max(med, r.size)
		for _, w := range r.words {
			switch {
			case w.x1+half <= c:
				l = append(l, w)
			case w.x0-half >= c:
				rr = append(rr, w)
			default:
				crosses = true
			}
		}
		if crosses {
			flush()
			if !crossed {
				*flow++ // consecutive rows across the gutter read as one band
			}
			crossed = true
			out = append(out, rowLine(r.words, page, *flow))
			continue
		}
		if len(l) > 0 {
			left = append(left, subRow(l))
		}
		if len(rr) > 0 {
			right = append(right, subRow(rr))
		}
	}
	flush()
	return out
}

func subRow(ws []word) row {
	r := row{words: ws, x0: ws[0].x0, x1: ws[0].x1}
	for _, w := range ws {
		r.x0 = math.Min(r.x0, w.x0)
		r.x1 = math.Max(r.x1, w.x1)
		if w.size > r.size {
			r.size, r.y = w.size, w.y
		}
	}
	return r
}

func rowLine(ws []word, page, flow int) line {
	l := line{page: page, flow: flow, x0: ws[0].x0, x1: ws[0].x1}
	var sb strings.Builder
	boldLetters, monoLetters, letters := 0, 0, 0
	sizeLetters := map[float64]int{}
	for i, w := range ws {
		if i > 0 {
			sb.WriteByte(' ')
			if g := (w.x0 - ws[i-1].x1) / math.Max(w.size, 1); g > l.gap {
				l.gap = g
			}
		}
		sb.WriteString(w.text)
		l.x0 = math.Min(l.x0, w.x0)
		l.x1 = math.Max(l.x1, w.x1)
		letters += w.letterCount
		if w.bold {
			boldLetters += w.letterCount
		}
		if w.mono {
			monoLetters += w.letterCount
		}
		sizeLetters[math.Round(w.size*2)/2] += w.letterCount + 1
	}
	// The line's size and baseline are those of most of its letters.
	best := -1
	for s, n := range sizeLetters {
		if n > best || n == best && s > l.size {
			best, l.size = n, s
		}
	}
	for _, w := range ws {
		if math.Round(w.size*2)/2 == l.size {
			l.y = w.y
			break
		}
	}
	l.text = sb.String()
	l.letter = letters
	l.bold = letters > 0 && boldLetters*10 >= letters*9
	l.mono = monoLetters*2 > letters
	return l
}

// monoFont matches the names of monospaced fonts: Courier, the Computer
// Modern and other TeX typewriter faces (CMTT10, SFTT1000), Nimbus Mono,
// Latin Modern Mono, DejaVu Sans Mono, Consolas, Menlo.
var monoFont = regexp.MustCompile(`(?i)mono|courier|^(?:[a-z]{6}\+)?[a-z]*tt\d|typewriter|consol|menlo|nimbusmon`)

// layoutDocument builds the sections of a PDF from its pages' glyphs.
func layoutDocument(pages []layoutPage) *Document {
	var lines []line
	flow := 0
	for _, p := range pages {
		words := p.Words
		if words == nil {
			uprightGlyphs(p.Glyphs)
			words = buildWords(p.Glyphs)
		}
		if len(words) == 0 {
			continue
		}
		rows := buildRows(words)
		lines = orderRows(rows, p.Number, &flow, 0, lines)
	}
	doc := &Document{}
	if len(lines) == 0 {
		return doc
	}
	body := bodySize(lines)
	title := titleLines(lines, pages, body)
	if len(title) > 0 {
		var parts []string
		for _, i := range title {
			parts = append(parts, lines[i].text)
		}
		doc.Title = strings.Join(parts, " ")
	}
	isTitle := map[int]bool{}
	for _, i := range title {
		isTitle[i] = true
	}
	headingSizes := map[float64]int{}
	heads := make([]bool, len(lines))
	frontMatter := true // page 1 before its first numbered or named heading
	for i, l := range lines {
		if l.page != 1 {
			frontMatter = false
		}
		if isTitle[i] || !isHeadingLine(l, body) {
			continue
		}
		t := strings.TrimSpace(l.text)
		if frontMatter && !numberedHeading.MatchString(t) && headingType(t) == "" {
			continue // author names, affiliations, dates
		}
		frontMatter = false
		heads[i] = true
		if l.size > body*1.12+0.3 {
			headingSizes[l.size]++
		}
	}
	sizeRank := rankSizes(headingSizes)

	// Right edge of each flow, for spotting short (paragraph-final) lines.
	right := map[int]float64{}
	for _, l := range lines {
		right[l.flow] = math.Max(right[l.flow], l.x1)
	}

	furniture := runningLines(lines)
	var path headingPath
	var paras []paragraph
	var cur *paragraph
	var text strings.Builder
	headed := false // a heading came since the last paragraph
	flush := func() {
		if cur != nil {
			cur.text = text.String()
			paras = append(paras, *cur)
			cur = nil
			text.Reset()
		}
	}
	open := func(l line, title bool) {
		cur = &paragraph{page: l.page, path: path.String(), size: l.size, title: title, headed: headed,
			first: l, last: l}
		text.WriteString(l.text)
		headed = false
	}
	var prev *line
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if prev != nil && l.page != prev.page {
			prev = nil
		}
		if heads[i] {
			h := l.text
			// A heading wrapped over several lines.
			for i+1 < len(lines) && heads[i+1] && lines[i+1].page == l.page && lines[i+1].flow == l.flow &&
				lines[i+1].size == l.size && l.y-lines[i+1].y < 1.6*l.size && lines[i+1].y < l.y {
				if n, _ := headingNumber(lines[i+1].text); n != "" {
					break
				}
				i++
				h += " " + lines[i].text
			}
			flush()
			level := 1
			if _, depth := headingNumber(h); depth > 0 {
				level = depth
			} else if r, ok := sizeRank[l.size]; ok {
				level = r
			}
			path.set(level, clip(h, 200))
			headed = true
			prev = nil
			continue
		}
		if isTitle[i] {
			// The title opens the front matter as a paragraph of its own.
			if i == 0 || !isTitle[i-1] {
				flush()
				open(l, true)
			} else {
				text.WriteByte(' ')
				text.WriteString(l.text)
			}
			if i+1 >= len(lines) || !isTitle[i+1] {
				flush()
			}
			prev = nil
			continue
		}
		if cur == nil || prev == nil || newParagraph(*prev, l, right[prev.flow]) {
			flush()
			open(l, false)
		} else {
			joinLine(&text, l.text)
			cur.last = l
		}
		cur.lines++
		if l.gap >= tableGap {
			cur.wideGaps++
		}
		if l.mono {
			cur.monoLines++
		}
		if !furniture[i] {
			cur.content++
		}
		p := l
		prev = &p
	}
	flush()
	narrow := narrowFlows(lines, body)
	for i := range paras {
		p := &paras[i]
		p.table = !p.title && (p.wideGaps > 0 && p.wideGaps*2 >= p.lines || narrow[p.first.flow] && narrow[p.last.flow])
	}
	paras = joinParagraphs(paras, body)
	secs := groupSections(paras)
	resolveHyphens(secs)
	doc.Sections = secs
	return doc
}

// runningLines reports which lines are a running header or footer: among
// the two highest or two lowest lines of a page, with a text that, digits
// aside, is that of such a line on two other pages or more.
func runningLines(lines []line) []bool {
	key := func(s string) string {
		return strings.ToLower(strings.Join(strings.Fields(strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return -1
			}
			return r
		}, s)), " "))
	}
	// The second highest and second lowest baseline of each page.
	type band struct{ top, top2, bottom, bottom2 float64 }
	bands := map[int]*band{}
	for _, l := range lines {
		b := bands[l.page]
		if b == nil {
			inf := math.Inf(1)
			b = &band{top: -inf, top2: -inf, bottom: inf, bottom2: inf}
			bands[l.page] = b
		}
		switch {
		case l.y > b.top:
			b.top, b.top2 = l.y, b.top
		case l.y > b.top2:
			b.top2 = l.y
		}
		switch {
		case l.y < b.bottom:
			b.bottom, b.bottom2 = l.y, b.bottom
		case l.y < b.bottom2:
			b.bottom2 = l.y
		}
	}
	keys := make([]string, len(lines)) // an edge line's key; "" for the others
	pages := map[string]map[int]bool{}
	for i, l := range lines {
		b := bands[l.page]
		if !(l.y >= b.top2 || l.y <= b.bottom2) { // not among the page's two highest or lowest
			continue
		}
		k := key(l.text)
		if k == "" {
			continue
		}
		keys[i] = k
		if pages[k] == nil {
			pages[k] = map[int]bool{}
		}
		pages[k][l.page] = true
	}
	out := make([]bool, len(lines))
	for i, k := range keys {
		out[i] = k != "" && len(pages[k]) >= 3
	}
	return out
}

// A paragraph is a run of lines that newParagraph keeps together, with
// the page and heading path it starts under.
type paragraph struct {
	text        string
	page        int
	path        string
	size        float64 // of its first line
	first, last line
	lines       int
	wideGaps    int  // lines with a space of tableGap or more
	monoLines   int  // lines set in a monospaced font (code)
	content     int  // lines that are not a running header or footer
	title       bool // the document's title
	headed      bool // a heading precedes it
	table       bool // a table's cells, not prose
}

// tableGap is the space between two words, in units of the font size,
// that only a table's columns leave: justified prose stays under one.
const tableGap = 1.25

// narrowFlows returns the flows that are a table's columns: of three
// lines or more, and narrower, all together, than 0.45 of the widest line
// of body text.
func narrowFlows(lines []line, body float64) map[int]bool {
	type extent struct {
		x0, x1 float64
		n      int
	}
	flows := map[int]*extent{}
	widest := 0.0
	for _, l := range lines {
		e := flows[l.flow]
		if e == nil {
			e = &extent{x0: l.x0, x1: l.x1}
			flows[l.flow] = e
		}
		e.x0, e.x1 = math.Min(e.x0, l.x0), math.Max(e.x1, l.x1)
		e.n++
		if math.Abs(l.size-body) <= bodyTolerance {
			widest = math.Max(widest, l.x1-l.x0)
		}
	}
	out := map[int]bool{}
	for f, e := range flows {
		if e.n >= 3 && e.x1-e.x0 < 0.45*widest {
			out[f] = true
		}
	}
	return out
}

// bodyTolerance is how far, in points, the size of body text may stray
// from the body size.
const bodyTolerance = 0.6

// wordy reports whether p is text of words rather than symbols and
// numbers (a formula, a page number), and neither the title, a table, code
// nor a running header or footer: at least least words of two letters or
// more, and at least share of its words.
func (p *paragraph) wordy(least int, share float64) bool {
	if p.title || p.table || p.monoLines*2 > p.lines || p.content == 0 {
		return false
	}
	words, long := 0, 0
	for _, w := range strings.Fields(p.text) {
		words++
		letters := 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 2 {
			long++
		}
	}
	return long >= least && float64(long) >= share*float64(words)
}

// A paragraph cut mid-sentence is prose: one word or more, half its words
// or more. Its continuation may hold a formula: two words or more, a
// quarter of its words or more, or else one word, half its words.
func (p *paragraph) cut() bool          { return p.wordy(1, 0.5) }
func (p *paragraph) continuation() bool { return p.wordy(2, 0.25) || p.wordy(1, 0.5) }

// sized reports whether p is set in size.
func (p *paragraph) sized(size float64) bool { return math.Abs(p.size-size) <= bodyTolerance }

// joinParagraphs joins each paragraph that a column's or page's end, a
// footnote, a float or a formula cut mid-sentence to the paragraph that
// continues it, up to that sentence's end. For body text that is the next
// wordy paragraph in the body size, with no heading before it; for
// smaller or larger text (a caption, a footnote) only the very next
// paragraph, in the same size. They join when the first ends on a
// hyphenated word, when the second starts with a lower-case word, or when
// the first ends with no sentence-final punctuation and either the second
// is a list's item or it starts another column or page and the first ends
// in the course of a clause (midClause). The sentence so joined keeps the
// first paragraph's page and heading; the rest of the second stays where
// it was.
func joinParagraphs(paras []paragraph, body float64) []paragraph {
	gone := make([]bool, len(paras))
	for i := range paras {
		if gone[i] || !paras[i].cut() {
			continue
		}
		a := &paras[i]
		isBody := a.sized(body)
		var text strings.Builder // a's text as it grows
		text.WriteString(a.text)
		for j := i + 1; ; j++ {
			for j < len(paras) && (gone[j] || isBody && !paras[j].headed && !(paras[j].continuation() && paras[j].sized(body))) {
				j++
			}
			if j >= len(paras) || paras[j].headed || !paras[j].continuation() || !paras[j].sized(a.size) {
				break
			}
			b := &paras[j]
			ending := paragraphEnd(text.String())
			apart := b.first.flow != a.last.flow || b.first.page != a.last.page
			if !(ending == endHyphen || lowerStart(b.text) || ending == endOpen && (apart && midClause(text.String()) || listItem.MatchString(b.text))) {
				break
			}
			// Only the sentence's end moves up: the rest of the second
			// paragraph keeps its page.
			head, rest := b.text, ""
			if ss := chunk.Sentences(b.text); len(ss) > 1 {
				head, rest = strings.TrimSpace(b.text[:ss[1].Start]), b.text[ss[1].Start:]
			}
			joinLine(&text, head)
			if rest != "" {
				b.text = rest
				break
			}
			a.last, a.lines = b.last, a.lines+b.lines
			gone[j] = true
		}
		a.text = text.String()
	}
	out := paras[:0]
	for i, p := range paras {
		if !gone[i] {
			out = append(out, p)
		}
	}
	return out
}

// How a paragraph ends.
const (
	endSentence = iota // on '.', '!' or '?', perhaps before closing quotes, brackets or a footnote mark
	endHyphen          // on a letter and a hyphen
	endColon           // on ':'
	endOpen            // on anything else
)

func paragraphEnd(s string) int {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "-") || strings.HasSuffix(s, "\u2010") {
		before, _ := utf8.DecodeLastRuneInString(s[:len(s)-len(lastRune(s))])
		if unicode.IsLetter(before) {
			return endHyphen
		}
	}
	t := strings.TrimRightFunc(s, func(r rune) bool { return strings.ContainsRune("\"'”’)]*†‡", r) })
	switch last := lastRune(t); {
	case last == "." || last == "!" || last == "?":
		return endSentence
	case last == ":":
		return endColon
	}
	// A footnote's number after the sentence's end ("...in 2019.3").
	d := strings.TrimRightFunc(t, unicode.IsDigit)
	if d != t && strings.ContainsAny(lastRune(d), ".!?") {
		return endSentence
	}
	return endOpen
}

// midClause reports whether s ends as a sentence cut in its course does:
// on a comma or semicolon (a footnote's number may follow) or on a word in
// lower case, rather than on a name or a number, as a title, a date or a
// header does.
func midClause(s string) bool {
	s = strings.TrimRightFunc(strings.TrimSpace(s), unicode.IsDigit)
	switch lastRune(s) {
	case ",", ";":
		return true
	case ".", "!", "?", ":":
		return false
	}
	w := s[strings.LastIndexAny(s, " ")+1:]
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsLower(r)
}

// lowerStart reports whether s starts with a word whose first letter is
// lower case and that holds no capital and no digit: the rest of a
// sentence rather than a new one ("mRNA", "p53" and "iPhone" may open one).
func lowerStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return false
	}
	w, _, _ := strings.Cut(s, " ")
	return !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsUpper(r) || unicode.IsDigit(r) })
}

// listItem matches the start of a list's item: "1) ", "(a) ", "2. ", "• ".
var listItem = regexp.MustCompile(`^(?:\(?[0-9]{1,2}[.)]|\([a-z]\)|[a-z]\)|[•◦▪‣∙·–-])\s`)

// groupSections makes a section of each run of paragraphs on one page
// under one heading, tables apart from the text around them.
func groupSections(paras []paragraph) []Section {
	var secs []Section
	var text strings.Builder
	for i, p := range paras {
		if i > 0 && p.table == paras[i-1].table && p.page == paras[i-1].page && p.path == paras[i-1].path {
			text.WriteString("\n\n")
			text.WriteString(p.text)
			continue
		}
		if i > 0 {
			secs[len(secs)-1].Text = text.String()
			text.Reset()
		}
		s := Section{Heading: p.path, Page: p.page}
		if p.table {
			s.Type = TypeTable
		}
		secs = append(secs, s)
		text.WriteString(p.text)
	}
	if len(secs) > 0 {
		secs[len(secs)-1].Text = text.String()
	}
	return secs
}

// newParagraph reports whether l starts a paragraph after prev.
func newParagraph(prev, l line, flowRight float64) bool {
	if l.flow != prev.flow || l.page != prev.page {
		return true
	}
	size := math.Max(prev.size, l.size)
	dy := prev.y - l.y
	if dy < -0.5*size || dy > 1.9*size {
		return true
	}
	short := prev.x1 < flowRight-2.5*size
	// A change of size starts a paragraph, unless the lines sit at the
	// spacing of one, start at one margin and the first fills its column
	// (a line of small capitals).
	if math.Abs(l.size-prev.size) > 1.5 && (short || dy > 1.35*size || math.Abs(l.x0-prev.x0) > 0.5*size) {
		return true
	}
	if short && math.Abs(l.x0-prev.x0) > 0.8*size {
		return true
	}
	if short && strings.ContainsAny(lastRune(prev.text), ".:!?") {
		return true
	}
	return false
}

func lastRune(s string) string {
	r, _ := utf8.DecodeLastRuneInString(s)
	return string(r)
}

// hyphenMark stands, until resolveHyphens runs, where a hyphen ended a
// line inside a word: whether it belongs to the word ("model-based") or
// only to the line break ("rep-resentation") is decided from the rest of
// the document.
const hyphenMark = '\ue000'

// joinLine appends a continuation line to a paragraph, repairing a word
// hyphenated across the line break.
func joinLine(para *strings.Builder, next string) {
	cur := para.String()
	r, _ := utf8.DecodeRuneInString(next)
	if strings.HasSuffix(cur, "-") || strings.HasSuffix(cur, "\u2010") {
		trimmed := strings.TrimSuffix(strings.TrimSuffix(cur, "-"), "\u2010")
		lastWord := trimmed[strings.LastIndexByte(trimmed, ' ')+1:]
		before, _ := utf8.DecodeLastRuneInString(trimmed)
		switch {
		case unicode.IsLetter(before) && unicode.IsLower(r):
			para.Reset()
			if strings.ContainsAny(lastWord, "-\u2010") {
				para.WriteString(cur) // "state-of-the-" + "art"
			} else {
				para.WriteString(trimmed)
				para.WriteRune(hyphenMark)
			}
			para.WriteString(next)
			return
		case unicode.IsLetter(before) || unicode.IsDigit(before):
			para.WriteString(next) // "Lucene-" + "BM25"
			return
		}
	}
	para.WriteByte(' ')
	para.WriteString(next)
}

// resolveHyphens replaces each hyphenMark by a hyphen when the hyphenated
// word occurs elsewhere in the document, and by nothing otherwise.
func resolveHyphens(secs []Section) {
	marked := false
	for _, s := range secs {
		if strings.ContainsRune(s.Text, hyphenMark) {
			marked = true
			break
		}
	}
	if !marked {
		return
	}
	vocab := map[string]bool{}
	for _, s := range secs {
		for _, w := range strings.FieldsFunc(s.Text, func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-')
		}) {
			if strings.Contains(w, "-") {
				vocab[strings.ToLower(w)] = true
			}
		}
	}
	for i := range secs {
		t := secs[i].Text
		if !strings.ContainsRune(t, hyphenMark) {
			continue
		}
		var sb strings.Builder
		for {
			k := strings.IndexRune(t, hyphenMark)
			if k < 0 {
				sb.WriteString(t)
				break
			}
			left := t[:k]
			right := t[k+len(string(hyphenMark)):]
			l := left[strings.LastIndexFunc(left, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })+1:]
			e := strings.IndexFunc(right, func(r rune) bool { return !unicode.IsLetter(r) })
			if e < 0 {
				e = len(right)
			}
			sb.WriteString(left)
			if vocab[strings.ToLower(l+"-"+right[:e])] {
				sb.WriteByte('-')
			}
			t = right
		}
		secs[i].Text = sb.String()
	}
}

// bodySize is the font size of most of the text.
func bodySize(lines []line) float64 {
	count := map[float64]int{}
	for _, l := range lines {
		count[l.size] += l.letter
	}
	best, size := -1, 10.0
	for s, n := range count {
		if n > best || n == best && s < size {
			best, size = n, s
		}
	}
	return size
}

// titleLines finds the title on page 1: the largest text in the top part
// of the page, when it is clearly larger than the body.
func titleLines(lines []line, pages []layoutPage, body float64) []int {
	top := 0.0
	for _, p := range pages {
		if p.Number == 1 {
			top = p.Box[1] + 0.45*(p.Box[3]-p.Box[1])
		}
	}
	maxSize := 0.0
	for _, l := range lines {
		if l.page == 1 && l.y >= top && l.letter >= 3 && l.size > maxSize {
			maxSize = l.size
		}
	}
	if maxSize < body*1.2 {
		return nil
	}
	var idx []int
	for i, l := range lines {
		if l.page != 1 {
			break
		}
		if l.size == maxSize && l.y >= top {
			if len(idx) > 0 && (i != idx[len(idx)-1]+1 || lines[idx[len(idx)-1]].y-l.y > 2*l.size) {
				break
			}
			idx = append(idx, i)
			if len(idx) == 4 {
				break
			}
		}
	}
	return idx
}

var numberedHeading = regexp.MustCompile(`^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[A-H](?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+\p{Lu}`)

// isHeadingLine decides whether a line is a section heading from its size,
// weight, numbering and wording.
func isHeadingLine(l line, body float64) bool {
	t := strings.TrimSpace(l.text)
	n := utf8.RuneCountInString(t)
	words := len(strings.Fields(t))
	if l.letter < 2 || n > 150 || words > 16 || strings.HasSuffix(t, ",") {
		return false
	}
	if l.size > body*1.12+0.3 && words <= 16 {
		return l.letter*2 >= n/2 // not mostly digits or symbols
	}
	if math.Abs(l.size-body) > 0.25*body && l.size < body {
		return false
	}
	numbered := numberedHeading.MatchString(t)
	upper := words <= 3 && isUpperText(t)
	if !l.bold && !numbered && !upper {
		return false // most body lines: skip the cue look-up
	}
	cue := words <= 6 && headingType(t) != ""
	if l.bold && (numbered && words <= 12 || cue) {
		return !strings.HasSuffix(t, ".") || numbered && words <= 3
	}
	if numbered && cue && !strings.HasSuffix(t, ".") {
		return true
	}
	return cue && upper
}

func isUpperText(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if !unicode.IsUpper(r) {
				return false
			}
		}
	}
	return letters >= 3
}

// rankSizes maps heading sizes, largest first, to levels 1, 2, 3...
func rankSizes(sizes map[float64]int) map[float64]int {
	var ss []float64
	for s := range sizes {
		ss = append(ss, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(ss)))
	out := map[float64]int{}
	for i, s := range ss {
		out[s] = i + 1
	}
	return out
}
