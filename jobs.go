package papermem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/papermem/papermem/internal/origin"
	"github.com/papermem/papermem/internal/store"
)

// Background jobs: work a store hands on instead of waiting for it, kept
// in the database's jobs table (internal/store/jobs.go) so that it
// survives a restart, and taken by a worker in every Memory that has a
// kind to run. Each job has a kind; jobKinds says what runs each kind, and
// adding a kind is an entry there.

// Job kinds.
const (
	// jobMetadata fills a paper from its origins (runMetadata,
	// origins.go): subject is its DOI; args "fresh" bypasses the cache.
	jobMetadata = "metadata"
	// jobCitations reads a paper's citation links from its origins
	// (runCitations, citations.go): subject is its DOI; args "fresh"
	// bypasses the cache.
	jobCitations = "citations"
)

// jobKind is how the worker runs one kind of job.
type jobKind struct {
	// ready reports whether the kind's jobs can run now; when not (the
	// services they need are down), retry is when to look again. Nil
	// means always.
	ready func() (ok bool, retry time.Time)
	// run does job j within ctx. An error matching origin.ErrDown gives
	// the job back uncounted, to run when ready says so and the service
	// that failed it (origin.DownError) is probed next; another error
	// counts an attempt, and the job runs again after a backoff, or is
	// given up after jobMaxAttempts.
	run func(m *Memory, ctx context.Context, j store.Job) error
	// giveUp records, in the transaction that drops it, that job j
	// failed for good; nil means nothing to record.
	giveUp func(m *Memory, ctx context.Context, tx *store.Tx, j store.Job) error
}

// jobKinds are the kinds m runs: metadata and citations when origins are
// configured.
func (m *Memory) jobKinds() map[string]jobKind {
	kinds := map[string]jobKind{}
	if m.origins != nil {
		kinds[jobMetadata] = jobKind{ready: m.origins.client.WorkReady, run: (*Memory).runMetadata, giveUp: (*Memory).metadataUnavailable}
		kinds[jobCitations] = jobKind{ready: m.origins.client.LinksReady, run: (*Memory).runCitations}
	}
	return kinds
}

// The worker's limits.
const (
	jobBatch       = 16               // jobs claimed at once
	jobConcurrency = 8                // jobs run at once
	jobLease       = 5 * time.Minute  // a claim's lease: a job held longer (its server died) is taken again
	jobTimeout     = 2 * time.Minute  // one run of a job
	jobPoll        = 5 * time.Second  // idle: how often to look for jobs other servers queued
	jobBackoff     = 30 * time.Second // the wait after a job's first failure, doubled after each next one
	jobMaxBackoff  = 6 * time.Hour
	jobMaxAttempts = 10 // failed runs before a job is given up (about a day and a half of backoff)
)

// jobs is a Memory's worker. The zero value (a Memory with no kind to run)
// does nothing.
type jobs struct {
	m      *Memory
	kinds  map[string]jobKind
	names  []string // of kinds, sorted
	owner  string   // this worker's lease owner: random
	nudge  chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// startJobs starts m's worker when m has a kind of job to run.
func (m *Memory) startJobs() {
	kinds := m.jobKinds()
	if len(kinds) == 0 {
		return
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	j := &jobs{m: m, kinds: kinds, owner: hex.EncodeToString(b[:]), nudge: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	for k := range kinds {
		j.names = append(j.names, k)
	}
	slices.Sort(j.names)
	m.jobs = j
	go j.loop(ctx)
}

// stop stops the worker and waits for it: a job cut short is given back
// uncounted.
func (j *jobs) stop() {
	if j == nil || j.cancel == nil {
		return
	}
	j.cancel()
	<-j.done
}

// wake tells the worker that a job was queued.
func (j *jobs) wake() {
	if j == nil {
		return
	}
	select {
	case j.nudge <- struct{}{}:
	default:
	}
}

// loop claims and runs jobs until ctx ends; it claims only when a job is
// due (NextJobDue, or when that read fails). With nothing due, it sleeps
// until the next job is due, one is queued here, or jobPoll passes; with
// every kind's services down, until they are due for a probe.
func (j *jobs) loop(ctx context.Context) {
	defer close(j.done)
	failing := false // the last claim failed: logged once until one succeeds
	for ctx.Err() == nil {
		now := j.m.now()
		wait := jobPoll
		var ready []string
		for _, name := range j.names {
			k := j.kinds[name]
			if k.ready == nil {
				ready = append(ready, name)
				continue
			}
			if ok, retry := k.ready(); ok {
				ready = append(ready, name)
			} else {
				wait = min(wait, max(retry.Sub(now), 0))
			}
		}
		if len(ready) > 0 {
			// A read first: an idle worker does not take the write
			// queue's turn to find nothing to claim.
			at, ok, err := store.NextJobDue(ctx, j.m.db, ready)
			if err != nil || ok && !at.After(now) {
				claimed, claimErr := j.claim(ctx, ready)
				switch {
				case claimErr != nil && ctx.Err() == nil:
					if !failing {
						j.m.log.Warn("background jobs: claiming failed", "err", claimErr)
					}
					failing = true
				case claimErr == nil:
					failing = false
				}
				if len(claimed) > 0 {
					j.runAll(ctx, claimed)
					continue
				}
				at, ok, err = store.NextJobDue(ctx, j.m.db, ready)
			}
			if err == nil && ok {
				wait = min(wait, at.Sub(now))
			}
		}
		wait = max(wait, 50*time.Millisecond) // leases of other servers' clocks: no spinning
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-j.nudge:
		case <-t.C:
		}
		t.Stop()
	}
}

// claim leases up to jobBatch due jobs of the kinds.
func (j *jobs) claim(ctx context.Context, kinds []string) ([]store.Job, error) {
	var claimed []store.Job
	err := j.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		var err error
		claimed, err = store.ClaimJobs(ctx, tx, tx.Engine(), kinds, j.owner, jobBatch, j.m.now(), jobLease)
		return err
	})
	return claimed, err
}

// runAll runs the claimed jobs, jobConcurrency at a time.
func (j *jobs) runAll(ctx context.Context, claimed []store.Job) {
	sem := make(chan struct{}, jobConcurrency)
	var wg sync.WaitGroup
	for _, job := range claimed {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			j.run(ctx, job)
		})
	}
	wg.Wait()
}

// run runs one job and records its outcome: done, given back for later
// (counted or not), or given up.
func (j *jobs) run(ctx context.Context, job store.Job) {
	k := j.kinds[job.Kind]
	rctx, cancel := context.WithTimeout(ctx, jobTimeout)
	err := k.run(j.m, rctx, job)
	cancel()
	// The outcome is recorded even while the worker stops.
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer wcancel()
	now := j.m.now()
	var werr error
	switch {
	case err == nil:
		werr = j.m.write(wctx, func(ctx context.Context, tx *store.Tx) error {
			_, err := store.FinishJob(ctx, tx, job, j.owner)
			return err
		})
	case ctx.Err() != nil || errors.Is(err, origin.ErrDown):
		// Cut short by the worker's stop, or not sent: not an attempt.
		at := now
		if k.ready != nil {
			if ok, retry := k.ready(); !ok {
				at = retry
			}
		}
		// A service the kind's ready does not wait for may be the one
		// down (Crossref, for a DOI OpenAlex does not know): the job
		// fails the same way until that service's next probe.
		if d := (*origin.DownError)(nil); errors.As(err, &d) && d.State.Retry.After(at) {
			at = d.State.Retry
		}
		werr = j.m.write(wctx, func(ctx context.Context, tx *store.Tx) error {
			return store.ReleaseJob(ctx, tx, job, j.owner, job.Attempts-1, at, err.Error())
		})
	case job.Attempts >= jobMaxAttempts:
		j.m.log.Debug("background job given up", "kind", job.Kind, "org", job.Org, "subject", job.Subject, "attempts", job.Attempts, "err", err)
		werr = j.m.write(wctx, func(ctx context.Context, tx *store.Tx) error {
			if k.giveUp != nil {
				if err := k.giveUp(j.m, ctx, tx, job); err != nil {
					return err
				}
			}
			return store.DropJob(ctx, tx, job, j.owner)
		})
	default:
		j.m.log.Debug("background job failed", "kind", job.Kind, "org", job.Org, "subject", job.Subject, "attempts", job.Attempts, "err", err)
		werr = j.m.write(wctx, func(ctx context.Context, tx *store.Tx) error {
			return store.ReleaseJob(ctx, tx, job, j.owner, job.Attempts, now.Add(jobRetryAfter(job.Attempts)), err.Error())
		})
	}
	if werr != nil {
		// The lease runs out and another take runs it again.
		j.m.log.Warn("background jobs: recording an outcome failed", "kind", job.Kind, slog.String("err", werr.Error()))
	}
}

// jobRetryAfter is the wait after a job's attempts-th failed run:
// jobBackoff doubled for each earlier one, at most jobMaxBackoff.
func jobRetryAfter(attempts int) time.Duration {
	d := jobBackoff
	for i := 1; i < attempts && d < jobMaxBackoff; i++ {
		d *= 2
	}
	return min(d, jobMaxBackoff)
}

// JobsQueued reports how many background jobs of each kind are queued in
// the database (every workspace's, any server's), and how many of them
// have failed at least once: a paper's metadata job is "metadata".
func (m *Memory) JobsQueued(ctx context.Context) (queued, failing map[string]int, err error) {
	defer translate(&err)
	return store.JobCounts(ctx, m.db)
}

// WaitJobs waits until no metadata job is due (each was done, or failed
// and waits for its retry, or waits for its origins to come back), or
// until ctx ends, and returns how many are still due: a command that
// exits after its store gives the metadata jobs it queued their chance.
// Citations jobs are not waited for: a paper is complete without its
// links, which the next run or server reads. A Memory that runs no job
// returns at once.
func (m *Memory) WaitJobs(ctx context.Context) (due int, err error) {
	defer translate(&err)
	if m.jobs == nil {
		return 0, nil
	}
	for {
		due, err = store.DueJobs(context.WithoutCancel(ctx), m.db, []string{jobMetadata}, m.now())
		if err != nil || due == 0 || ctx.Err() != nil {
			return due, err
		}
		m.jobs.wake()
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}
