package bibfile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// parseManifest reads a CSV manifest of a folder of PDFs: a header naming
// its columns, among them file (required), doi, title, and optionally
// tags (separated by semicolons); one row a file.
func parseManifest(b []byte) ([]Entry, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, &Error{Format: Manifest, Line: 1, Reason: "no header (file,doi,title)"}
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	if _, ok := col["file"]; !ok {
		return nil, &Error{Format: Manifest, Line: 1, Reason: "the header has no file column"}
	}
	var out []Entry
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			e := &Error{Format: Manifest, Reason: err.Error()}
			if pe, ok := errors.AsType[*csv.ParseError](err); ok {
				e.Line, e.Reason = pe.Line, pe.Err.Error()
			}
			return nil, e
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		e := Entry{Key: get("file"), DOI: get("doi"), Title: get("title"), Tags: splitList(get("tags"), ";")}
		if e.Key != "" {
			e.Files = []string{e.Key}
		}
		out = append(out, e)
	}
}
