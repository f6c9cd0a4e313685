package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
)

// UsageCount is an amount to add to one counter of one workspace in one
// period.
type UsageCount struct {
	Org, Period, Counter string
	Value                int64
}

// AddUsage adds the counts to the usage counters, in key order: servers
// sharing a PostgreSQL database flush the same counters, and rows locked in
// one order cannot deadlock.
func AddUsage(ctx context.Context, q Querier, counts []UsageCount) error {
	stmt, err := q.PrepareContext(ctx, `INSERT INTO usage_counters (org_id, period, counter, value)
			VALUES (?, ?, ?, ?)
			ON CONFLICT (org_id, period, counter) DO UPDATE SET value = usage_counters.value + excluded.value`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, c := range slices.SortedFunc(slices.Values(counts), func(a, b UsageCount) int {
		return cmp.Or(strings.Compare(a.Org, b.Org), strings.Compare(a.Period, b.Period), strings.Compare(a.Counter, b.Counter))
	}) {
		if _, err := stmt.ExecContext(ctx, c.Org, c.Period, c.Counter, c.Value); err != nil {
			return err
		}
	}
	return nil
}

// UsageCounters returns the counters of org in period by name; org ""
// sums every workspace.
func UsageCounters(ctx context.Context, q Querier, org, period string) (map[string]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT counter, sum(value) FROM usage_counters
		WHERE (org_id = ?1 OR ?1 = '') AND period = ?2 GROUP BY counter`, org, period)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, rows.Err()
}

// UsageTotal sums counter over every period of org.
func UsageTotal(ctx context.Context, q Querier, org, counter string) (int64, error) {
	var n int64
	err := queryRow(ctx, q, `SELECT coalesce(sum(value), 0) FROM usage_counters
		WHERE org_id = ? AND counter = ?`, org, counter).Scan(&n)
	return n, err
}

// MemoryStats is the size of a workspace's memory: its rows and the bytes
// of their source text.
type MemoryStats struct {
	Nodes, Papers, Documents, Analyses, Memories, Bytes int64
}

// MemoryStatsOf measures org's memory.
func MemoryStatsOf(ctx context.Context, q Querier, org string) (MemoryStats, error) {
	var s MemoryStats
	err := queryRow(ctx, q, `SELECT
		(SELECT count(*) FROM nodes WHERE org_id = ?1),
		(SELECT count(*) FROM papers WHERE org_id = ?1),
		(SELECT count(*) FROM documents WHERE org_id = ?1),
		(SELECT count(*) FROM analyses WHERE org_id = ?1),
		(SELECT count(*) FROM memories WHERE org_id = ?1),
		(SELECT coalesce(sum(octet_length(text)), 0) FROM papers WHERE org_id = ?1) +
		(SELECT coalesce(sum(bytes), 0) FROM documents WHERE org_id = ?1) +
		(SELECT coalesce(sum(octet_length(markdown)), 0) FROM analyses WHERE org_id = ?1) +
		(SELECT coalesce(sum(octet_length(text)), 0) FROM memories WHERE org_id = ?1)`, org).
		Scan(&s.Nodes, &s.Papers, &s.Documents, &s.Analyses, &s.Memories, &s.Bytes)
	return s, err
}

// DomainCount is how many papers and documents carry a domain.
type DomainCount struct {
	Domain string
	Count  int64
}

// TopDomains returns the limit domains most papers and documents of org
// carry, largest first.
func TopDomains(ctx context.Context, q Querier, org string, limit int) ([]DomainCount, error) {
	rows, err := q.QueryContext(ctx, `SELECT domain, count(*) AS n FROM (
			SELECT domain FROM papers WHERE org_id = ?1 AND domain <> ''
			UNION ALL SELECT domain FROM documents WHERE org_id = ?1 AND domain <> '') AS d
		GROUP BY domain ORDER BY n DESC, domain LIMIT ?2`, org, limit)
	return collect(rows, err, func(rows *sql.Rows, d *DomainCount) error {
		return rows.Scan(&d.Domain, &d.Count)
	})
}
