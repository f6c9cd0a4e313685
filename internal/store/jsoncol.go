package store

import "encoding/json"

// JSON columns. This package writes valid JSON into each of them: a
// paper's authors and notices and a memory's tags as arrays, a memory's
// metadata as an object. A column that holds anything else (written by
// hand, or damaged) reads as its empty value, never as an error, so that a
// recall or a listing shows the row without it rather than fail; the
// functions below and the scans of this package apply that rule, and
// nothing else decodes these columns.

// decodeColumn decodes the JSON column col into v, reporting whether it
// could.
func decodeColumn(col string, v any) bool { return json.Unmarshal([]byte(col), v) == nil }

// Tags decodes a memory's tags column (MemoryNode.Tags, Candidate.Tags):
// its strings, empty for "[]", nil when it is not a JSON array of strings.
func Tags(col string) []string {
	var tags []string
	if !decodeColumn(col, &tags) {
		return nil
	}
	return tags
}

// Metadata decodes a memory's metadata column (MemoryNode.Metadata,
// Candidate.Metadata), numbers as float64: nil when it is empty ("{}") or
// not a JSON object.
func Metadata(col string) map[string]any {
	var meta map[string]any
	if !decodeColumn(col, &meta) || len(meta) == 0 {
		return nil
	}
	return meta
}
