package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var exportSessionOp = op{tag: "export", summary: "Write a session's export record", req: api.ExportRequest{},
	resp: papermem.Exported{},
	notes: "One record per session: exporting a session again replaces its record (links only accumulate). " +
		"The record is {session_id, user_id, org_id, created_at, steps, recalled_papers (normalised), recalled_claims, metadata}. " +
		"Unlike POST /v1/sessions/link, an unknown claim id is not an error: the record keeps it and only existing claims are linked."}

func (s *server) handleExportSession(w http.ResponseWriter, r *http.Request) error {
	var req api.ExportRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	rec, err := req.Record(principalFrom(r.Context()).user)
	if err != nil {
		return err
	}
	res, err := s.workspace(r).ExportSession(r.Context(), rec)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// Query parameters of the export routes.
var (
	sinceParam = param{name: "since", typ: "string", doc: "ISO-8601 date or time; records created at or after it. A date means its start (UTC)"}
	untilParam = param{name: "until", typ: "string", doc: "ISO-8601 date or time; records created at or before it. A date means its end (UTC), so since=until=2025-03-01 is that whole day"}
	sessParam  = param{name: "session_id", typ: "string", doc: "only this session's record"}
)

var exportsOp = op{tag: "export", summary: "Query session export records",
	query: []param{sessParam, sinceParam, untilParam,
		{name: "limit", typ: "integer", doc: "records a page, 1..1000; default 100"},
		{name: "cursor", typ: "string", doc: "next_cursor of the previous page"}},
	resp: papermem.ExportPage{},
	notes: "Every parameter is optional. Records come newest first (created_at, then latest written); count is the number on this page. " +
		"When more records follow, next_cursor is set: pass it as cursor for the next page (records written meanwhile neither repeat nor shift pages). " +
		"400 for an unparseable since or until, since after until, a limit outside 1..1000 or a foreign cursor."}

func (s *server) handleExports(w http.ResponseWriter, r *http.Request) error {
	q, err := exportQuery(r)
	if err != nil {
		return err
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		if q.Limit, err = strconv.Atoi(v); err != nil || q.Limit < 1 {
			return papermem.Errorf(papermem.EINVALID, "limit must be an integer between 1 and %d.", papermem.MaxExportLimit)
		}
	}
	q.Cursor = r.URL.Query().Get("cursor")
	page, err := s.workspace(r).Exports(r.Context(), q)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, page)
}

var exportDownloadOp = op{tag: "export", summary: "Download session export records as JSON Lines",
	query: []param{sessParam, sinceParam, untilParam}, respType: "text/plain", resp: "",
	notes: "The records of GET /v1/export (same filters, same order, same JSON), every one of them, one JSON object a line, streamed as they are read: " +
		"memory stays bounded whatever their number. Content-Type text/plain; charset=utf-8; no records is an empty body. " +
		"400 for an unparseable since or until; a failure after the first line aborts the connection, so a download that ends cleanly is complete."}

func (s *server) handleExportDownload(w http.ResponseWriter, r *http.Request) error {
	q, err := exportQuery(r)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	started := false
	start := func() {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		started = true
	}
	enc := json.NewEncoder(w) // Encode ends each record with a newline
	enc.SetEscapeHTML(false)
	err = s.workspace(r).StreamExports(r.Context(), q, func(rec *papermem.SessionRecord) error {
		if !started {
			start()
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
		return rc.Flush()
	})
	switch {
	case err != nil && !started:
		return err
	case err != nil:
		if r.Context().Err() == nil { // not merely a client gone away
			s.log.ErrorContext(r.Context(), "export download failed", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyErr, err)
		}
		panic(http.ErrAbortHandler)
	case !started:
		start()
	}
	return nil
}

// exportQuery reads session_id, since and until.
func exportQuery(r *http.Request) (papermem.ExportQuery, error) {
	v := r.URL.Query()
	q := papermem.ExportQuery{SessionID: v.Get("session_id")}
	var err error
	if q.Since, err = api.TimeParam("since", v.Get("since"), false); err != nil {
		return q, err
	}
	if q.Until, err = api.TimeParam("until", v.Get("until"), true); err != nil {
		return q, err
	}
	return q, nil
}
