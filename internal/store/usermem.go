package store

import "context"

// UserMemory is a row of memories to write. Tags and Metadata are JSON.
type UserMemory struct {
	UserID, Key, Text, Tags, Domain, OccurredAt, Metadata string
	Session                                               string
	Seq                                                   float64
}

// UpsertMemory inserts org's memory m, or updates the memory of its user
// with its key, and returns its row id.
func UpsertMemory(ctx context.Context, q Querier, org string, m *UserMemory, now string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `INSERT INTO memories (org_id, user_id, key, text, tags, domain, occurred_at, metadata,
				session, seq, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, user_id, key) DO UPDATE SET text = excluded.text, tags = excluded.tags,
				domain = excluded.domain, occurred_at = excluded.occurred_at, metadata = excluded.metadata,
				session = excluded.session, seq = excluded.seq, updated_at = excluded.updated_at
			RETURNING id`, org, m.UserID, m.Key, m.Text, m.Tags, m.Domain, m.OccurredAt, m.Metadata,
		m.Session, m.Seq, now, now).Scan(&id)
	return id, err
}

// MemoryID returns the row id of org's memory of user with key.
func MemoryID(ctx context.Context, q Querier, org, user, key string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM memories WHERE org_id = ? AND user_id = ? AND key = ?`,
		org, user, key).Scan(&id)
	return id, err
}

// DeleteMemory deletes org's memory row id.
func DeleteMemory(ctx context.Context, q Querier, org string, id int64) error {
	_, err := q.ExecContext(ctx, `DELETE FROM memories WHERE org_id = ? AND id = ?`, org, id)
	return err
}
