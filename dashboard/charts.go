package dashboard

// barChart is a horizontal bar chart drawn as SVG by the templates: the
// geometry is computed here, so pages need neither script nor inline
// style.
type barChart struct {
	Width, Height int
	LabelWidth    int // the label column; tracks start here
	TrackWidth    int
	Rows          []barRow
}

// barRow is one bar: Fill of TrackWidth drawn at Y.
type barRow struct {
	Label, Value string
	Y            int
	Fill         float64
	Over         bool // beyond its limit
}

// bar is a chart's input: N out of Of (Of 0 means out of the largest N),
// with Value shown beside the bar.
type bar struct {
	Label, Value string
	N, Of        int64
}

// Chart geometry, in pixels.
const (
	chartLabelWidth = 140
	chartTrackWidth = 200
	chartValueWidth = 150
	chartRowHeight  = 26
)

// newBarChart lays out bars, one a row.
func newBarChart(bars []bar) *barChart {
	c := &barChart{Width: chartLabelWidth + chartTrackWidth + chartValueWidth, LabelWidth: chartLabelWidth,
		TrackWidth: chartTrackWidth, Height: max(len(bars), 1) * chartRowHeight}
	var largest int64
	for _, b := range bars {
		largest = max(largest, b.N)
	}
	for i, b := range bars {
		of := b.Of
		if of <= 0 {
			of = largest
		}
		frac := 0.0
		if of > 0 {
			frac = float64(b.N) / float64(of)
		}
		c.Rows = append(c.Rows, barRow{Label: b.Label, Value: b.Value, Y: i * chartRowHeight,
			Fill: min(frac, 1) * chartTrackWidth, Over: frac > 1})
	}
	return c
}
