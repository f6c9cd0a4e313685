package store

import (
	"context"
	"database/sql"
	"strings"
)

// Export is the stored record of a session; Steps, RecalledPapers,
// RecalledClaims and Metadata are JSON.
type Export struct {
	ID                                              int64
	SessionID, UserID                               string
	Steps, RecalledPapers, RecalledClaims, Metadata string
	CreatedAt, UpdatedAt                            string
}

// UpsertExport stores e as the record of org's session row sid, replacing
// the record it has. On replacement, created "" keeps the stored
// created_at; otherwise e.CreatedAt is written.
func UpsertExport(ctx context.Context, q Querier, org string, sid int64, e *Export, created string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO session_exports (org_id, session_id, user_id, steps, recalled_papers,
				recalled_claims, metadata, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET user_id = excluded.user_id, steps = excluded.steps,
				recalled_papers = excluded.recalled_papers, recalled_claims = excluded.recalled_claims,
				metadata = excluded.metadata, updated_at = excluded.updated_at,
				created_at = CASE WHEN ? = '' THEN session_exports.created_at ELSE excluded.created_at END
			WHERE session_exports.org_id = excluded.org_id`,
		org, sid, e.UserID, e.Steps, e.RecalledPapers, e.RecalledClaims, e.Metadata,
		e.CreatedAt, e.UpdatedAt, created)
	return err
}

// ExportFilter selects session records. Empty fields select all.
type ExportFilter struct {
	SessionID    string
	Since, Until string // stored times, inclusive
	// AfterCreated and AfterSession, when AfterCreated is set, resume
	// after the record of that created_at and session id in the order.
	AfterCreated string
	AfterSession string
}

// Exports returns at most limit of org's session records matching f,
// newest first (by created_at, then latest written). UpdatedAt is not
// read.
func Exports(ctx context.Context, q Querier, org string, f ExportFilter, limit int) ([]Export, error) {
	where := []string{"e.org_id = ?", "s.org_id = ?"}
	args := []any{org, org}
	if f.SessionID != "" {
		where, args = append(where, "s.session_id = ?"), append(args, f.SessionID)
	}
	if f.Since != "" {
		where, args = append(where, "e.created_at >= ?"), append(args, f.Since)
	}
	if f.Until != "" {
		where, args = append(where, "e.created_at <= ?"), append(args, f.Until)
	}
	if f.AfterCreated != "" {
		where = append(where, `(e.created_at < ? OR (e.created_at = ? AND e.id < (SELECT x.id FROM session_exports x
			JOIN sessions y ON y.id = x.session_id WHERE x.org_id = ? AND y.org_id = ? AND y.session_id = ?)))`)
		args = append(args, f.AfterCreated, f.AfterCreated, org, org, f.AfterSession)
	}
	args = append(args, limit)
	rows, err := q.QueryContext(ctx, `SELECT e.id, s.session_id, e.user_id, e.created_at, e.steps,
			e.recalled_papers, e.recalled_claims, e.metadata
		FROM session_exports e JOIN sessions s ON s.id = e.session_id
		WHERE `+strings.Join(where, " AND ")+`
		ORDER BY e.created_at DESC, e.id DESC LIMIT ?`, args...)
	return collect(rows, err, func(rows *sql.Rows, e *Export) error {
		return rows.Scan(&e.ID, &e.SessionID, &e.UserID, &e.CreatedAt, &e.Steps, &e.RecalledPapers, &e.RecalledClaims, &e.Metadata)
	})
}

// SessionOwner is a user's count of owned sessions, with the earliest
// session start and the latest link or export.
type SessionOwner struct {
	UserID              string
	Sessions            int
	FirstSeen, LastSeen string
}

// SessionOwners returns every user who owns a session of org.
func SessionOwners(ctx context.Context, q Querier, org string) ([]SessionOwner, error) {
	rows, err := q.QueryContext(ctx, `SELECT user_id, count(*), min(created_at), max(updated_at)
		FROM sessions WHERE org_id = ? AND user_id != '' GROUP BY user_id`, org)
	return collect(rows, err, func(rows *sql.Rows, o *SessionOwner) error {
		return rows.Scan(&o.UserID, &o.Sessions, &o.FirstSeen, &o.LastSeen)
	})
}

// SessionDomains returns, by user then domain, the domains of the papers
// of org's users' sessions and the metadata.domain of their records (e is
// the engine of q).
func SessionDomains(ctx context.Context, q Querier, e Engine, org string) ([]UserDomain, error) {
	domain := e.JSONText("e.metadata", "domain")
	rows, err := q.QueryContext(ctx, `SELECT s.user_id, p.domain FROM sessions s
			JOIN session_papers sp ON sp.session_id = s.id AND sp.org_id = s.org_id
			JOIN papers p ON p.id = sp.paper_id AND p.org_id = s.org_id
		WHERE s.org_id = ? AND s.user_id != '' AND p.domain != ''
		UNION
		SELECT s.user_id, `+domain+` FROM sessions s
			JOIN session_exports e ON e.session_id = s.id AND e.org_id = s.org_id
		WHERE s.org_id = ? AND s.user_id != '' AND `+domain+` != ''
		ORDER BY 1, 2`, org, org)
	return collect(rows, err, scanUserDomain)
}
