package store

import (
	"context"
	"fmt"
	"time"
)

// CounterBytesSaved sums the bytes warm fetches did not download. The
// memory reports it and the hosted service's analytics read it; it is not
// one of the reported usage counters (api.Counters).
const CounterBytesSaved = "fetch_bytes_saved"

// MonthOf is the usage period of t, a calendar month in UTC, as
// year*100 + month.
func MonthOf(t time.Time) int {
	t = t.UTC()
	return t.Year()*100 + int(t.Month())
}

// MonthName names a usage period as usage_counters stores it: "2026-03".
func MonthName(month int) string { return fmt.Sprintf("%04d-%02d", month/100, month%100) }

// MonthSpan returns the first instant of the usage period of t and the
// first instant of the next.
func MonthSpan(t time.Time) (start, end time.Time) {
	t = t.UTC()
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

// ReadCounters reads the stored counters names of workspace org ("" sums
// every workspace) in the usage period of t, each present, zero when
// never counted.
func ReadCounters(ctx context.Context, q Querier, org string, t time.Time, names []string) (map[string]int64, error) {
	c := make(map[string]int64, len(names))
	for _, name := range names {
		c[name] = 0
	}
	stored, err := UsageCounters(ctx, q, org, MonthName(MonthOf(t)))
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	for name, n := range stored {
		if _, ok := c[name]; ok {
			c[name] = n
		}
	}
	return c, nil
}
