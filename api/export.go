package api

import (
	"strings"
	"time"
)

// TimeParam parses v, the optional ISO-8601 date or time of the export
// routes' since or until parameter (name): "" is the zero time, an
// unparseable value EINVALID. A bare date as an upper bound means the last
// millisecond of that day.
func TimeParam(name, v string, upper bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := ParseTime(v)
	if err != nil {
		return time.Time{}, Errorf(EINVALID, "%s: %s", name, ErrorMessage(err))
	}
	if upper && len(strings.TrimSpace(v)) == len("2006-01-02") {
		t = t.Add(24*time.Hour - time.Millisecond)
	}
	return t, nil
}

// Step is one step of a session: an agent called a tool.
type Step struct {
	Agent     string `json:"agent"`
	Tool      string `json:"tool"`
	Args      any    `json:"args"`       // any JSON value; numbers come back as json.Number
	ResultRef string `json:"result_ref"` // where the result is kept, free text
}

// SessionRecord is the export record of a session.
type SessionRecord struct {
	SessionID      string         `json:"session_id"`      // "" makes ExportSession generate one
	UserID         string         `json:"user_id"`         // who ran the session; "" for none
	WorkspaceID    string         `json:"org_id"`          // the workspace; set on output, ignored on input
	CreatedAt      string         `json:"created_at"`      // ISO-8601 date or time; "" means now (re-exported: the first export's time); stored as RFC 3339 UTC
	Steps          []Step         `json:"steps"`           // in order
	RecalledPapers []string       `json:"recalled_papers"` // DOIs; stored normalised and de-duplicated
	RecalledClaims []int64        `json:"recalled_claims"` // node ids, de-duplicated
	Metadata       map[string]any `json:"metadata"`        // free JSON object; numbers come back as json.Number
}

// Exported is the result of ExportSession.
type Exported struct {
	Written   bool   `json:"written"`
	SessionID string `json:"session_id"`
}

// ExportQuery selects session records. Every field is optional.
type ExportQuery struct {
	SessionID string    // "" means every session
	Since     time.Time // zero means no lower bound; inclusive
	Until     time.Time // zero means no upper bound; inclusive
	Limit     int       // 0 means DefaultExportLimit, at most MaxExportLimit; StreamExports: 0 means all
	Cursor    string    // NextCursor of the previous page; "" starts at the newest
}

// ExportPage is one page of session records, newest first.
type ExportPage struct {
	Records    []SessionRecord `json:"records"`
	Count      int             `json:"count"`                 // len(Records)
	NextCursor string          `json:"next_cursor,omitempty"` // pass as Cursor for the next page; "" on the last
}
