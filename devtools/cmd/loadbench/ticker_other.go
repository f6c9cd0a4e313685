//go:build !linux

package main

import "time"

// ticker counts the ticks of a fixed period with Go's timers, which wake
// an idle process only to the millisecond; Linux uses a timerfd instead.
type ticker struct {
	start  time.Time
	period time.Duration
	seen   int // ticks returned by wait so far
}

// newTicker starts a ticker whose tick k (from 1) is at start + k·period.
func newTicker(period time.Duration) (t *ticker, start time.Time, err error) {
	start = time.Now()
	return &ticker{start: start, period: period}, start, nil
}

// wait blocks until the next tick and returns the number of ticks since
// the last wait.
func (t *ticker) wait() (int, error) {
	time.Sleep(time.Until(t.start.Add(time.Duration(t.seen+1) * t.period)))
	due := int(time.Since(t.start) / t.period)
	n := due - t.seen
	t.seen = due
	return n, nil
}

// stop releases the ticker.
func (t *ticker) stop() error { return nil }
