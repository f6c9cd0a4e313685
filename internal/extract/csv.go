package extract

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// csvDelimiters are the delimiters sniffed, in order of preference on a tie.
var csvDelimiters = []rune{'\t', ',', ';', '|'}

// extractCSV reads CSV or TSV: the delimiter is sniffed, BOMs and UTF-16
// are decoded, ragged rows are tolerated, and each data row becomes a
// section "col: value; col: value" with its 1-based Row.
func extractCSV(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	s, err := decodeText(CSV, data)
	if err != nil {
		return nil, err
	}
	delim := sniffDelimiter(s)
	records, err := readCSV(ctx, s, delim)
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, invalidf(CSV, "no text found")
	}
	doc := &Document{}
	// A title row: one filled cell over a row that fills the width.
	if len(records) >= 3 && filled(records[0]) == 1 && strings.TrimSpace(records[0][0]) != "" &&
		filled(records[1]) >= 2 && filled(records[1]) == len(records[1]) {
		doc.Title = strings.TrimSpace(records[0][0])
		records = records[1:]
	}
	if len(records) == 1 {
		doc.Sections = append(doc.Sections, Section{Type: TypeTable, Row: 1, Text: strings.Join(trimAll(records[0]), " | ")})
		doc.Rows = 1
		return doc, nil
	}
	header := headerNames(records[0], columnNumber)
	for i, rec := range records[1:] {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		text := labelled(header, rec, columnNumber)
		doc.Rows++
		if text == "" {
			continue
		}
		doc.Sections = append(doc.Sections, Section{Type: TypeTable, Row: i + 1, Text: text})
	}
	return doc, nil
}

// readCSV parses all records, tolerating ragged rows and stray quotes.
func readCSV(ctx context.Context, s string, delim rune) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var out [][]string
	errs := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errs < 100 {
				errs++
				continue
			}
			return nil, invalidf(CSV, "%v", err)
		}
		if len(out)%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if filled(rec) == 0 {
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

// sniffDelimiter picks the delimiter whose per-line count (outside quotes)
// is the most consistent, and non-zero, over the first lines.
func sniffDelimiter(s string) rune {
	lines := strings.SplitN(head(s, 64<<10), "\n", 51)
	if len(lines) > 50 {
		lines = lines[:50]
	}
	if len(lines) > 1 && len(s) > 64<<10 {
		lines = lines[:len(lines)-1] // the last may be cut short
	}
	best, bestScore := ',', -1.0
	for _, d := range csvDelimiters {
		counts := map[int]int{}
		n := 0
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			counts[countOutsideQuotes(l, d)]++
			n++
		}
		if n == 0 {
			continue
		}
		mode, modeN := 0, 0
		for c, k := range counts {
			if c > 0 && (k > modeN || k == modeN && c > mode) {
				mode, modeN = c, k
			}
		}
		if mode == 0 {
			continue
		}
		score := float64(modeN) / float64(n)
		// More columns break ties between equally consistent delimiters.
		score += float64(mode) * 1e-4
		if score > bestScore+1e-9 {
			best, bestScore = d, score
		}
	}
	return best
}

func countOutsideQuotes(l string, d rune) int {
	n := 0
	quoted := false
	for _, r := range l {
		switch {
		case r == '"':
			quoted = !quoted
		case r == d && !quoted:
			n++
		}
	}
	return n
}

func filled(rec []string) int {
	n := 0
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			n++
		}
	}
	return n
}

func trimAll(rec []string) []string {
	var out []string
	for _, c := range rec {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// columnNumber names an unnamed column by its 1-based number.
func columnNumber(i int) string { return fmt.Sprintf("column %d", i+1) }

// headerNames cleans header cells, naming empty or duplicate ones with name.
func headerNames(rec []string, name func(int) string) []string {
	out := make([]string, len(rec))
	seen := map[string]bool{}
	for i, c := range rec {
		c = strings.TrimSuffix(strings.Join(strings.Fields(c), " "), ":")
		if utf8.RuneCountInString(c) > 100 {
			c = clip(c, 100)
		}
		if c == "" || seen[c] {
			c = name(i)
		}
		seen[c] = true
		out[i] = c
	}
	return out
}

// labelled renders a record as "name: value; name: value", skipping empty
// cells; cells past the header are named with name.
func labelled(header, rec []string, name func(int) string) string {
	var sb strings.Builder
	for i, v := range rec {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		h := name(i)
		if i < len(header) {
			h = header[i]
		}
		if sb.Len() > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(h)
		sb.WriteString(": ")
		sb.WriteString(strings.ReplaceAll(v, "\n", " "))
	}
	return sb.String()
}
