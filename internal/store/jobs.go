package store

import (
	"context"
	"strings"
	"time"
)

// Job is a row of jobs, the background jobs' durable queue (migration
// 0014): work of Kind about Org's Subject (a paper's DOI), with the
// kind's own Args. Version identifies the enqueueing the job was taken
// at; Attempts counts the takes that failed or were cut short, this one
// included.
type Job struct {
	ID       int64
	Kind     string
	Org      string
	Subject  string
	Args     string
	Version  int64
	Attempts int
}

// Enqueue adds the job kind about org's subject, due at once (now), or,
// when it is queued already, makes it due at once with args (its attempts
// start again) and bumps its version: a server that holds it then runs it
// again instead of deleting it (FinishJob).
func Enqueue(ctx context.Context, q Querier, kind, org, subject, args string, now time.Time) error {
	ts := Timestamp(now)
	_, err := q.ExecContext(ctx, `INSERT INTO jobs (kind, org_id, subject, args, run_after, created_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (kind, org_id, subject) DO UPDATE SET args = excluded.args,
			run_after = excluded.run_after, version = jobs.version + 1, attempts = 0, last_error = ''`,
		kind, org, subject, args, ts, ts)
	return err
}

// ClaimJobs leases up to n jobs of the kinds that are due at now (their
// run_after passed, and no live lease: never taken, released, or leased by
// a server whose lease ran out) to owner until now+lease, counts the
// attempt, and returns them, the longest due first. On PostgreSQL, where
// several servers claim at once, the rows are locked FOR UPDATE SKIP
// LOCKED: a row another server is claiming is passed over, so each job
// goes to one server. q must be a transaction.
func ClaimJobs(ctx context.Context, q Querier, engine Engine, kinds []string, owner string, n int, now time.Time, lease time.Duration) ([]Job, error) {
	if len(kinds) == 0 || n <= 0 {
		return nil, nil
	}
	ts := Timestamp(now)
	args := []any{ts, ts}
	for _, k := range kinds {
		args = append(args, k)
	}
	args = append(args, n)
	lock := ""
	if engine == Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	rows, err := q.QueryContext(ctx, `SELECT id, kind, org_id, subject, args, version, attempts FROM jobs
		WHERE run_after <= ? AND (leased_until = '' OR leased_until < ?) AND kind IN (`+placeholders(len(kinds))+`)
		ORDER BY run_after, id LIMIT ?`+lock, args...)
	if err != nil {
		return nil, err
	}
	var jobs []Job
	for rows.Next() {
		var j Job
		if err := rows.Scan(&j.ID, &j.Kind, &j.Org, &j.Subject, &j.Args, &j.Version, &j.Attempts); err != nil {
			rows.Close()
			return nil, err
		}
		j.Attempts++
		jobs = append(jobs, j)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	until := Timestamp(now.Add(lease))
	for _, j := range jobs {
		if _, err := q.ExecContext(ctx, `UPDATE jobs SET leased_until = ?, lease_owner = ?, attempts = ? WHERE id = ?`,
			until, owner, j.Attempts, j.ID); err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

// FinishJob deletes job j, done by owner, unless it was enqueued again
// since it was claimed (its version moved on) or another server holds it
// now (owner's lease ran out and it was claimed again): then it is
// released to run again at once, or left to its holder. It reports
// whether the job was deleted.
func FinishJob(ctx context.Context, q Querier, j Job, owner string) (bool, error) {
	res, err := q.ExecContext(ctx, `DELETE FROM jobs WHERE id = ? AND version = ? AND lease_owner = ?`, j.ID, j.Version, owner)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return n > 0, err
	}
	_, err = q.ExecContext(ctx, `UPDATE jobs SET leased_until = '', lease_owner = '' WHERE id = ? AND lease_owner = ?`, j.ID, owner)
	return false, err
}

// ReleaseJob gives job j back, held by owner, due again at runAfter, with
// attempts as its count of failed takes and why it failed (errText, cut
// to 500 bytes). A job another server holds now is left to it.
func ReleaseJob(ctx context.Context, q Querier, j Job, owner string, attempts int, runAfter time.Time, errText string) error {
	if len(errText) > 500 {
		errText = errText[:500]
	}
	_, err := q.ExecContext(ctx, `UPDATE jobs SET leased_until = '', lease_owner = '', attempts = ?, run_after = ?, last_error = ?
		WHERE id = ? AND lease_owner = ?`, attempts, Timestamp(runAfter), errText, j.ID, owner)
	return err
}

// DropJob deletes job j, held by owner, whatever its version: the job
// gave up.
func DropJob(ctx context.Context, q Querier, j Job, owner string) error {
	_, err := q.ExecContext(ctx, `DELETE FROM jobs WHERE id = ? AND lease_owner = ?`, j.ID, owner)
	return err
}

// NextJobDue returns when the earliest job of the kinds becomes due: its
// run_after, or its lease's end when it is leased; ok is false when none
// is queued.
func NextJobDue(ctx context.Context, q Querier, kinds []string) (at time.Time, ok bool, err error) {
	if len(kinds) == 0 {
		return time.Time{}, false, nil
	}
	args := make([]any, len(kinds))
	for i, k := range kinds {
		args[i] = k
	}
	var next *string
	err = queryRow(ctx, q, `SELECT min(CASE WHEN leased_until > run_after THEN leased_until ELSE run_after END)
		FROM jobs WHERE kind IN (`+placeholders(len(kinds))+`)`, args...).Scan(&next)
	if err != nil || next == nil {
		return time.Time{}, false, err
	}
	t, err := parseTimestamp(*next)
	if err != nil {
		return time.Time{}, false, nil
	}
	return t, true, nil
}

// JobCounts returns how many jobs of each kind are queued, and how many of
// them failed at least once.
func JobCounts(ctx context.Context, q Querier) (queued, failing map[string]int, err error) {
	rows, err := q.QueryContext(ctx, `SELECT kind, count(*), sum(CASE WHEN last_error <> '' THEN 1 ELSE 0 END) FROM jobs GROUP BY kind`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	queued, failing = map[string]int{}, map[string]int{}
	for rows.Next() {
		var kind string
		var n, f int
		if err := rows.Scan(&kind, &n, &f); err != nil {
			return nil, nil, err
		}
		queued[kind], failing[kind] = n, f
	}
	return queued, failing, rows.Err()
}

// SetPaperMetadata records where org's paper doi's metadata stands
// (Paper.Metadata) without changing anything else.
func SetPaperMetadata(ctx context.Context, q Querier, org, doi, state string) error {
	_, err := q.ExecContext(ctx, `UPDATE papers SET metadata = ? WHERE org_id = ? AND doi = ?`, state, org, doi)
	return err
}

// FillPaper completes org's paper p.DOI with what its origins say (p's
// fields) and sets its metadata state to p.Metadata: the title, year,
// authors, journal and kind of work only where the row has none (what was
// stored wins, even if stored while the origins were asked), open access
// when either says so, and the retraction status and notices as given
// when setRetraction is true (the origins that hold them answered). The
// text, nodes and updated_at are left alone. It reports whether the
// paper's nodes want its title: the row had none before, or, when retry
// is set (an earlier run of the job did not finish), it is still pending
// with a title its Paper node (title and abstract) does not start with,
// which that run filled without re-indexing it. The caller then
// re-indexes the paper, and the metadata state is left as it was until
// then, so that a paper is never complete with nodes that lack its title.
// ErrNotFound when org holds no such paper.
func FillPaper(ctx context.Context, q Querier, org string, p *Paper, setRetraction, retry bool) (reindex bool, err error) {
	var title, metadata, head string
	if err := queryRow(ctx, q, `SELECT p.title, p.metadata, COALESCE((SELECT n.text FROM nodes n
			WHERE n.org_id = p.org_id AND n.kind = ? AND n.owner_id = p.id AND n.label = ? LIMIT 1), '')
		FROM papers p WHERE p.org_id = ? AND p.doi = ?`, kindPaper, labelPaper, org, p.DOI).Scan(&title, &metadata, &head); err != nil {
		return false, err
	}
	reindex = title == "" && p.Title != "" || retry && title != "" && metadata == MetadataPending && !strings.HasPrefix(head, title)
	state := p.Metadata
	if reindex {
		state = metadata
	}
	retraction := ""
	oa := 0
	if p.OA {
		oa = 1
	}
	args := []any{p.Title, p.Year, jsonArray(p.Authors), p.Journal, p.Type, oa, state}
	if setRetraction {
		retraction = ", retracted = ?, notices = ?"
		args = append(args, p.Retracted, jsonArray(p.Notices))
	}
	args = append(args, org, p.DOI)
	_, err = q.ExecContext(ctx, `UPDATE papers SET
			title = CASE WHEN title = '' THEN ? ELSE title END,
			year = CASE WHEN year = 0 THEN ? ELSE year END,
			authors = CASE WHEN authors = '[]' THEN ? ELSE authors END,
			journal = CASE WHEN journal = '' THEN ? ELSE journal END,
			work_type = CASE WHEN work_type = '' THEN ? ELSE work_type END,
			oa = CASE WHEN oa <> 0 OR ? <> 0 THEN 1 ELSE 0 END,
			metadata = ?`+retraction+`
		WHERE org_id = ? AND doi = ?`, args...)
	return reindex, err
}

// DueJobs counts the jobs of the kinds that are due at now (their
// run_after passed), leased or not.
func DueJobs(ctx context.Context, q Querier, kinds []string, now time.Time) (int, error) {
	if len(kinds) == 0 {
		return 0, nil
	}
	args := []any{Timestamp(now)}
	for _, k := range kinds {
		args = append(args, k)
	}
	var n int
	err := queryRow(ctx, q, `SELECT count(*) FROM jobs WHERE run_after <= ? AND kind IN (`+placeholders(len(kinds))+`)`, args...).Scan(&n)
	return n, err
}
