package store

import "context"

// UserMemory is a row of memories to write. Tags and Metadata are JSON.
type UserMemory struct {
	UserID, Key, Text, Tags, Domain, OccurredAt, Metadata string
	Session                                               string
	Seq                                                   float64
}

// StoreMemory stores org's memory m at now, inserted, or updated in place
// when its user holds its key, and replaces its nodes with ns (their IDs
// set).
func (t *Tx) StoreMemory(ctx context.Context, org string, m *UserMemory, ns []Node, now string) error {
	id, err := upsertMemory(ctx, t, org, m, now)
	if err != nil {
		return err
	}
	o := Owner{Org: org, Kind: kindMemory, ID: id, UserID: m.UserID}
	if err := deleteNodes(ctx, t, o); err != nil {
		return err
	}
	return putNodes(ctx, t, o, ns, now)
}

// DeleteMemory deletes org's memory of user with key, with its nodes.
// Errors: ErrNotFound when there is none.
func (t *Tx) DeleteMemory(ctx context.Context, org, user, key string) error {
	id, err := memoryID(ctx, t, org, user, key)
	if err != nil {
		return err
	}
	if err := deleteNodes(ctx, t, Owner{Org: org, Kind: kindMemory, ID: id, UserID: user}); err != nil {
		return err
	}
	return deleteMemory(ctx, t, org, id)
}

// upsertMemory inserts org's memory m, or updates the memory of its user
// with its key, and returns its row id.
func upsertMemory(ctx context.Context, q Querier, org string, m *UserMemory, now string) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `INSERT INTO memories (org_id, user_id, key, text, tags, domain, occurred_at, metadata,
				session, seq, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, user_id, key) DO UPDATE SET text = excluded.text, tags = excluded.tags,
				domain = excluded.domain, occurred_at = excluded.occurred_at, metadata = excluded.metadata,
				session = excluded.session, seq = excluded.seq, updated_at = excluded.updated_at
			RETURNING id`, org, m.UserID, m.Key, m.Text, m.Tags, m.Domain, m.OccurredAt, m.Metadata,
		m.Session, m.Seq, now, now).Scan(&id)
	return id, err
}

// memoryID returns the row id of org's memory of user with key.
func memoryID(ctx context.Context, q Querier, org, user, key string) (int64, error) {
	var id int64
	err := queryRow(ctx, q, `SELECT id FROM memories WHERE org_id = ? AND user_id = ? AND key = ?`,
		org, user, key).Scan(&id)
	return id, err
}

// deleteMemory deletes org's memory row id.
func deleteMemory(ctx context.Context, q Querier, org string, id int64) error {
	_, err := q.ExecContext(ctx, `DELETE FROM memories WHERE org_id = ? AND id = ?`, org, id)
	return err
}
