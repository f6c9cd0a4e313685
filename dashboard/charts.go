package dashboard

import "github.com/papermem/papermem"

// barChart is a horizontal bar chart: the templates write each row's label
// and value as text, readable at any width and by screen readers, and its
// bar as a small SVG hidden from them. The bar's length is computed here,
// so pages need neither script nor inline style.
type barChart struct {
	Name string // the chart's accessible name
	Rows []barRow
}

// barRow is one bar, filled to Fill percent of its track.
type barRow struct {
	Label, Value string
	Fill         float64 // 0 to 100
	Over         bool    // beyond its limit
	NoBar        bool    // a figure on no scale: its value only
}

// bar is a chart's input: N out of Of (Of 0 means out of the largest N of
// the bars with Of 0; Of below 0 means no bar, as for a figure in other
// units than the rest), with Value shown beside the bar.
type bar struct {
	Label, Value string
	N, Of        int64
}

// newBarChart lays out bars, one a row.
func newBarChart(name string, bars []bar) *barChart {
	c := &barChart{Name: name}
	var largest int64
	for _, b := range bars {
		if b.Of == 0 {
			largest = max(largest, b.N)
		}
	}
	for _, b := range bars {
		if b.Of < 0 {
			c.Rows = append(c.Rows, barRow{Label: b.Label, Value: b.Value, NoBar: true})
			continue
		}
		of := b.Of
		if of == 0 {
			of = largest
		}
		frac := 0.0
		if of > 0 {
			frac = float64(b.N) / float64(of)
		}
		c.Rows = append(c.Rows, barRow{Label: b.Label, Value: b.Value, Fill: min(frac, 1) * 100, Over: frac > 1})
	}
	return c
}

// counterLabels name the usage counters for people.
var counterLabels = map[string]string{
	papermem.CounterAPIRequests:       "API requests",
	papermem.CounterRecallRequests:    "Recalls",
	papermem.CounterRecallTokens:      "Recall tokens",
	papermem.CounterPapersStored:      "Papers stored",
	papermem.CounterDocumentsIngested: "Documents ingested",
	papermem.CounterBytesIngested:     "Data ingested",
	papermem.CounterFetchRequests:     "Paper fetches",
	papermem.CounterFetchWarmHits:     "Fetches from memory",
	papermem.CounterUserMemories:      "User memories",
}

// counterLabel names a usage counter; an unknown one keeps its identifier.
func counterLabel(name string) string {
	if l, ok := counterLabels[name]; ok {
		return l
	}
	return name
}

// counterValue writes n of a usage counter: bytes in KiB, MiB or GiB,
// anything else with thousands separators.
func counterValue(name string, n int64) string {
	if name == papermem.CounterBytesIngested {
		return byteSize(n)
	}
	return count(n)
}
