package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Plot geometry, in SVG user units: one panel a data set, side by side.
const (
	panelW, panelH = 320, 240
	marginL        = 48 // room for the recall axis's labels
	marginB        = 40 // room for the tokens axis's labels
	marginT        = 28 // room for the panel's title
	marginR        = 12
	legendH        = 24
)

// wayStyles are the stroke colour and dash pattern of each way's line.
var wayStyles = [3]struct{ colour, dash string }{
	floor: {"#888888", "4 3"},
	fill:  {"#1f77b4", ""},
	stop:  {"#d95f02", ""},
}

// plot writes the held-out half of each curve as an SVG image: per data
// set, evidence recall (QASPER's para) against the mean tokens returned,
// one line a way, one point a budget.
func plot(out io.Writer, names []string, curves []*curve, budgets []int) error {
	w := len(curves) * panelW
	h := panelH + legendH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	for i, c := range curves {
		panel(&b, float64(i*panelW), names[i], c, budgets)
	}
	x := float64(marginL)
	for way, name := range wayNames {
		st := wayStyles[way]
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>`+"\n",
			x, panelH+legendH/2, x+24, panelH+legendH/2, st.colour, st.dash)
		label := name
		if way == fill {
			label = "fill (fixed budget)"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", x+30, panelH+legendH/2+4, label)
		x += 160
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(out, b.String())
	return err
}

// panel draws one data set's held-out lines at horizontal offset x0.
func panel(b *strings.Builder, x0 float64, name string, c *curve, budgets []int) {
	type point struct{ tokens, recall float64 }
	lines := [3][]point{}
	maxTokens, minRecall := 0.0, 1.0
	for way := range wayNames {
		for _, budget := range budgets {
			t := c.at(held, budget, way)
			if t.n == 0 {
				continue
			}
			p := point{float64(t.tokens) / float64(t.n), float64(t.hit) / float64(t.n)}
			lines[way] = append(lines[way], p)
			maxTokens, minRecall = max(maxTokens, p.tokens), min(minRecall, p.recall)
		}
	}
	xMax := math.Max(1000, math.Ceil(maxTokens/1000)*1000)
	yMin := math.Floor(minRecall*10) / 10
	if yMin >= 1 {
		yMin = 0.9
	}
	left, right := x0+marginL, x0+panelW-marginR
	top, bottom := float64(marginT), float64(panelH-marginB)
	sx := func(v float64) float64 { return left + v/xMax*(right-left) }
	sy := func(v float64) float64 { return bottom - (v-yMin)/(1-yMin)*(bottom-top) }

	fmt.Fprintf(b, `<text x="%.1f" y="16" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(name))
	for v := 0.0; v <= xMax; v += 1000 {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eeeeee"/>`+"\n", sx(v), top, sx(v), bottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%.0f</text>`+"\n", sx(v), bottom+14, v)
	}
	for v := yMin; v <= 1.0001; v += 0.1 {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eeeeee"/>`+"\n", left, sy(v), right, sy(v))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", left-4, sy(v)+4, v)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">tokens returned (held out)</text>`+"\n", (left+right)/2, bottom+30)
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999999"/>`+"\n", left, top, right-left, bottom-top)
	for way, pts := range lines {
		if len(pts) == 0 {
			continue
		}
		st := wayStyles[way]
		var path []string
		for _, p := range pts {
			path = append(path, fmt.Sprintf("%.1f,%.1f", sx(p.tokens), sy(p.recall)))
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>`+"\n",
			strings.Join(path, " "), st.colour, st.dash)
		for _, p := range pts {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", sx(p.tokens), sy(p.recall), st.colour)
		}
	}
}
