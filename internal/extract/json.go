package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// extractJSON flattens JSON into "path: value" text. An array of records
// (objects), at the top or under a top-level key, becomes one section per
// record with its 1-based Row; other values are grouped by top-level key.
// Nesting deeper than Limits.MaxJSONDepth is refused before decoding.
// JSON Lines (several top-level values) are read as records.
func extractJSON(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	data = bytes.TrimPrefix(data, []byte{0xef, 0xbb, 0xbf})
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) || guessUTF16(data) != 0 {
		s, err := decodeText(JSON, data)
		if err != nil {
			return nil, err
		}
		data = []byte(s)
	}
	if err := checkJSONDepth(data, lim.MaxJSONDepth); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var values []any
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, invalidf(JSON, "%s", jsonReason(err))
		}
		values = append(values, v)
		if len(values)%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if len(values) == 0 {
		return nil, invalidf(JSON, "no value found")
	}
	doc := &Document{}
	fl := &flattener{max: 8*len(data) + 1<<20}
	if len(values) > 1 {
		fl.records(doc, "", values)
		return doc, fl.err
	}
	switch v := values[0].(type) {
	case []any:
		if isRecords(v) {
			fl.records(doc, "", v)
		} else {
			fl.group(doc, "", v)
		}
	case map[string]any:
		jsonMetadata(doc, v)
		for _, k := range sortedKeys(v) {
			if arr, ok := v[k].([]any); ok && isRecords(arr) && len(arr) > 1 {
				fl.records(doc, k, arr)
				continue
			}
			fl.group(doc, k, v[k])
		}
	default:
		fl.group(doc, "", v)
	}
	return doc, fl.err
}

// checkJSONDepth scans the nesting of arrays and objects without decoding,
// so pathological nesting is refused in linear time and constant stack.
func checkJSONDepth(data []byte, max int) error {
	depth := 0
	inString, escaped := false, false
	for _, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > max {
				return invalidf(JSON, "nesting deeper than %d", max)
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at offset %d", se.Error(), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}

// isRecords reports an array most of whose elements are objects.
func isRecords(v []any) bool {
	if len(v) == 0 {
		return false
	}
	n := 0
	for _, e := range v {
		if _, ok := e.(map[string]any); ok {
			n++
		}
	}
	return n*2 > len(v)
}

type flattener struct {
	max   int // bytes of output allowed
	total int
	err   error
}

// records adds one section per element, with its 1-based Row.
func (fl *flattener) records(doc *Document, heading string, arr []any) {
	for i, e := range arr {
		var parts []string
		fl.flatten("", e, func(path, val string) {
			if path == "" {
				parts = append(parts, val)
			} else {
				parts = append(parts, path+": "+val)
			}
		})
		doc.Rows++
		if len(parts) == 0 || fl.err != nil {
			continue
		}
		doc.Sections = append(doc.Sections, Section{
			Heading: heading,
			Type:    TypeTable,
			Row:     i + 1,
			Text:    strings.Join(parts, "; "),
		})
	}
}

// group adds the flattened lines of v under heading, split into sections
// of at most maxSectionRunes.
func (fl *flattener) group(doc *Document, heading string, v any) {
	sb := newSectionBuilder(doc)
	sb.startSection(heading)
	var lines []string
	size := 0
	fl.flatten(heading, v, func(path, val string) {
		l := val
		if path != "" {
			l = path + ": " + val
		}
		if size+len(l) > maxSectionRunes && len(lines) > 0 {
			sb.addParagraph(strings.Join(lines, "\n"))
			sb.flush()
			lines, size = lines[:0], 0
		}
		lines = append(lines, l)
		size += len(l) + 1
	})
	if len(lines) > 0 {
		sb.addParagraph(strings.Join(lines, "\n"))
	}
	sb.flush()
}

// flatten calls emit for every scalar in v with its dotted path
// ("a.b[2].c").
func (fl *flattener) flatten(path string, v any, emit func(path, val string)) {
	if fl.err != nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			fl.flatten(p, x[k], emit)
		}
	case []any:
		for i, e := range x {
			fl.flatten(path+"["+strconv.Itoa(i)+"]", e, emit)
		}
	default:
		val := scalarText(x)
		if val == "" {
			return
		}
		fl.total += len(path) + len(val) + 4
		if fl.total > fl.max {
			fl.err = invalidf(JSON, "flattened text too large")
			return
		}
		emit(path, val)
	}
}

func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// sortedKeys returns the keys of m in a stable order. (encoding/json does
// not keep the document's key order.)
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonMetadata reads doi, title, year and authors from top-level fields.
func jsonMetadata(doc *Document, m map[string]any) {
	for k, v := range m {
		switch strings.ToLower(k) {
		case "doi":
			if s, ok := v.(string); ok {
				doc.DOI = cleanDOI(s)
			}
		case "title":
			switch t := v.(type) {
			case string:
				doc.Title = t
			case []any: // Crossref: "title": ["..."]
				if len(t) > 0 {
					if s, ok := t[0].(string); ok {
						doc.Title = s
					}
				}
			}
		case "year", "date", "published", "publication_year", "published_date":
			doc.Year = parseYear(scalarText(v))
		case "author", "authors":
			doc.Authors = jsonAuthors(v)
		}
	}
}

func jsonAuthors(v any) []string {
	switch x := v.(type) {
	case string:
		return splitAuthors(x)
	case []any:
		var out []string
		for _, e := range x {
			switch a := e.(type) {
			case string:
				out = append(out, a)
			case map[string]any:
				if n, ok := a["name"].(string); ok {
					out = append(out, n)
				} else {
					g, _ := a["given"].(string)
					f, _ := a["family"].(string)
					if n := strings.TrimSpace(g + " " + f); n != "" {
						out = append(out, n)
					}
				}
			}
			if len(out) >= 100 {
				break
			}
		}
		return out
	}
	return nil
}
