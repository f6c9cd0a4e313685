package papermem

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/store"
)

// Export limits.
const (
	DefaultExportLimit = 100   // records Exports returns when Limit is 0
	MaxExportLimit     = 1000  // most records Exports returns
	MaxExportSteps     = 10000 // most steps in one session record
	exportStreamPage   = 500   // records StreamExports reads at a time
)

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
	OrgID          string         `json:"org_id"`          // the workspace; set on output, ignored on input
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

// ExportSession stores the record of a session and links the session to
// its recalled papers and claims as LinkSession does (unknown DOIs become
// paper stubs). There is one record per session: exporting a session again
// replaces its record, while links only accumulate. Unlike LinkSession, a
// recalled claim id that names no node of the workspace is kept in the
// record but not linked, since the record reports what happened and a
// claim's node may have been re-indexed since. Errors: EINVALID.
func (w *Workspace) ExportSession(ctx context.Context, rec SessionRecord) (*Exported, error) {
	if rec.SessionID == "" {
		rec.SessionID = newSessionID()
	}
	if !ValidSessionID(rec.SessionID) {
		return nil, Errorf(EINVALID, "session_id must be 1 to 128 letters, digits or . _ : @ + -, starting with a letter or digit.")
	}
	if err := checkUserID(rec.UserID); err != nil {
		return nil, err
	}
	if len(rec.Steps) > MaxExportSteps {
		return nil, Errorf(EINVALID, "steps holds %d steps; at most %d are accepted.", len(rec.Steps), MaxExportSteps)
	}
	dois, err := normalizeDOIs(rec.RecalledPapers, "recalled_papers", MaxSessionLinks)
	if err != nil {
		return nil, err
	}
	claims, err := distinctClaims(rec.RecalledClaims, "recalled_claims")
	if err != nil {
		return nil, err
	}
	if rec.Steps == nil {
		rec.Steps = []Step{}
	}
	for i, s := range rec.Steps {
		if !utf8.ValidString(s.Agent) || !utf8.ValidString(s.Tool) || !utf8.ValidString(s.ResultRef) {
			return nil, Errorf(EINVALID, "steps[%d]: agent, tool and result_ref must be UTF-8.", i)
		}
	}
	steps, err := json.Marshal(rec.Steps)
	if err != nil {
		return nil, Errorf(EINVALID, "steps: args must be JSON values.")
	}
	if rec.Metadata == nil {
		rec.Metadata = map[string]any{}
	}
	meta, err := json.Marshal(rec.Metadata)
	if err != nil {
		return nil, Errorf(EINVALID, "metadata must be a JSON object.")
	}
	papersJSON, _ := json.Marshal(dois)
	claimsJSON, _ := json.Marshal(claims)
	created, err := normalizeTime(rec.CreatedAt)
	if err != nil {
		return nil, Errorf(EINVALID, "created_at: %s", ErrorMessage(err))
	}
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		sid, err := w.upsertSession(ctx, tx, rec.SessionID, rec.UserID)
		if err != nil {
			return err
		}
		now := w.m.nowString()
		err = store.UpsertExport(ctx, tx, w.id, sid, &store.Export{UserID: rec.UserID, Steps: string(steps),
			RecalledPapers: string(papersJSON), RecalledClaims: string(claimsJSON), Metadata: string(meta),
			CreatedAt: cmpOr(created, now), UpdatedAt: now}, created)
		if err != nil {
			return fmt.Errorf("store export of %q: %w", rec.SessionID, err)
		}
		known, err := w.knownClaims(ctx, tx, claims)
		if err != nil {
			return err
		}
		if err := w.linkPapers(ctx, tx, sid, dois); err != nil {
			return err
		}
		return w.linkClaims(ctx, tx, sid, claimRows(claims, known))
	})
	if err != nil {
		return nil, err
	}
	return &Exported{Written: true, SessionID: rec.SessionID}, nil
}

// cmpOr returns a unless it is empty, else b.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
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

// Exports returns session records matching q, newest first (by created_at,
// then latest written), one page at a time. Pages are cut by a cursor, so
// records written meanwhile neither repeat nor shift later pages.
// Errors: EINVALID (bad limit, cursor, or Since after Until).
func (w *Workspace) Exports(ctx context.Context, q ExportQuery) (*ExportPage, error) {
	switch {
	case q.Limit == 0:
		q.Limit = DefaultExportLimit
	case q.Limit < 0 || q.Limit > MaxExportLimit:
		return nil, Errorf(EINVALID, "limit must be between 1 and %d.", MaxExportLimit)
	}
	page := &ExportPage{Records: []SessionRecord{}}
	last := ""
	err := w.exports(ctx, q, q.Limit+1, func(r *SessionRecord, cursor string) error {
		if len(page.Records) == q.Limit {
			page.NextCursor = last // a record follows the page
			return errStop
		}
		page.Records = append(page.Records, *r)
		last = cursor
		return nil
	})
	if err != nil {
		return nil, err
	}
	page.Count = len(page.Records)
	return page, nil
}

// StreamExports calls fn with each session record matching q, newest
// first, reading them a page at a time so that memory stays bounded
// whatever their number; q.Limit caps the records (0 means all). An error
// from fn stops the stream and is returned. Errors: EINVALID and fn's.
func (w *Workspace) StreamExports(ctx context.Context, q ExportQuery, fn func(*SessionRecord) error) error {
	if q.Limit < 0 {
		return Errorf(EINVALID, "limit must not be negative.")
	}
	left := q.Limit
	for {
		n, last := 0, ""
		err := w.exports(ctx, q, exportStreamPage, func(r *SessionRecord, cursor string) error {
			if q.Limit > 0 && left == 0 {
				return errStop
			}
			n, last = n+1, cursor
			left--
			return fn(r)
		})
		if err != nil {
			return err
		}
		if n < exportStreamPage || (q.Limit > 0 && left <= 0) {
			return nil
		}
		q.Cursor = last
	}
}

// errStop ends an exports scan early without error.
var errStop = errors.New("stop")

// exports scans at most limit records matching q from its cursor on,
// calling fn with each and the cursor that resumes after that record.
func (w *Workspace) exports(ctx context.Context, q ExportQuery, limit int, fn func(r *SessionRecord, cursor string) error) error {
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Since.After(q.Until) {
		return Errorf(EINVALID, "since must not be after until.")
	}
	f := store.ExportFilter{SessionID: q.SessionID}
	if !q.Since.IsZero() {
		f.Since = timestamp(q.Since)
	}
	if !q.Until.IsZero() {
		f.Until = timestamp(q.Until)
	}
	if q.Cursor != "" {
		var err error
		if f.AfterCreated, f.AfterSession, err = parseCursor(q.Cursor); err != nil {
			return err
		}
	}
	rows, err := store.Exports(ctx, w.m.db, w.id, f, limit)
	if err != nil {
		return fmt.Errorf("query exports: %w", err)
	}
	for _, e := range rows {
		r := SessionRecord{OrgID: w.id, SessionID: e.SessionID, UserID: e.UserID, CreatedAt: e.CreatedAt}
		if err := decodeJSON(e.Steps, &r.Steps); err != nil {
			return fmt.Errorf("export %d: steps: %w", e.ID, err)
		}
		if err := decodeJSON(e.RecalledPapers, &r.RecalledPapers); err != nil {
			return fmt.Errorf("export %d: recalled_papers: %w", e.ID, err)
		}
		if err := decodeJSON(e.RecalledClaims, &r.RecalledClaims); err != nil {
			return fmt.Errorf("export %d: recalled_claims: %w", e.ID, err)
		}
		if err := decodeJSON(e.Metadata, &r.Metadata); err != nil {
			return fmt.Errorf("export %d: metadata: %w", e.ID, err)
		}
		if err := fn(&r, makeCursor(r.CreatedAt, r.SessionID)); err != nil {
			if err == errStop {
				return nil
			}
			return err
		}
	}
	return nil
}

// decodeJSON decodes stored JSON keeping numbers exact.
func decodeJSON(s string, v any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	return d.Decode(v)
}

// makeCursor encodes the position of an export record: its created_at and
// session id, the workspace's own (a row id, numbered across workspaces,
// would tell how many records the others export).
func makeCursor(created, session string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(created + "|" + session))
}

// parseCursor decodes a cursor made by makeCursor.
func parseCursor(c string) (string, string, error) {
	bad := Errorf(EINVALID, "cursor %q is not a cursor this service issued.", c)
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", "", bad
	}
	at, session, ok := bytes.Cut(b, []byte("|"))
	if !ok || !ValidSessionID(string(session)) {
		return "", "", bad
	}
	if _, err := time.Parse(time.RFC3339Nano, string(at)); err != nil {
		return "", "", bad
	}
	return string(at), string(session), nil
}

// SessionActivity summarises what a user did in a workspace's sessions.
type SessionActivity struct {
	Sessions  int      `json:"sessions"`   // sessions the user owns
	Domains   []string `json:"domains"`    // domains of their sessions' papers and of their records' metadata.domain, sorted
	FirstSeen string   `json:"first_seen"` // earliest session start
	LastSeen  string   `json:"last_seen"`  // latest link or export
}

// SessionActivities returns the session activity of every user who owns a
// session in the workspace, keyed by user id. A session's owner is the
// first user id given when linking or exporting it. Users without sessions
// are absent. The users listing of package hosted adds it to their
// activity.
func (w *Workspace) SessionActivities(ctx context.Context) (map[string]*SessionActivity, error) {
	owners, err := store.SessionOwners(ctx, w.m.db, w.id)
	if err != nil {
		return nil, fmt.Errorf("session activity: %w", err)
	}
	out := make(map[string]*SessionActivity, len(owners))
	for _, o := range owners {
		out[o.UserID] = &SessionActivity{Sessions: o.Sessions, Domains: []string{}, FirstSeen: o.FirstSeen, LastSeen: o.LastSeen}
	}
	domains, err := store.SessionDomains(ctx, w.m.db, w.m.database.Engine, w.id)
	if err != nil {
		return nil, fmt.Errorf("session domains: %w", err)
	}
	for _, d := range domains {
		if a := out[d.UserID]; a != nil {
			a.Domains = append(a.Domains, d.Domain)
		}
	}
	return out, nil
}
