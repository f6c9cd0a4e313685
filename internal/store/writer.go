package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Errors of Writer.Do. The write did not happen.
var (
	// ErrQueueFull: as many writes as the queue holds were already waiting.
	ErrQueueFull = errors.New("write queue full")
	// ErrWaitExpired: the caller's context ended, or the longest wait
	// passed, before the write's turn came.
	ErrWaitExpired = errors.New("write waited too long")
	// ErrClosed: the Writer is closed.
	ErrClosed = errors.New("writer closed")
)

// Writer runs every write transaction of a database on its one write
// connection, one at a time, in the order they arrive (a FIFO queue and
// one goroutine). Writes waiting together are committed together: each in
// a savepoint of one transaction, so one write's failure rolls back that
// write alone, and many small writes cost one commit. A *Writer is safe
// for concurrent use.
type Writer struct {
	db       *sql.DB
	engine   Engine
	jobs     chan *job
	maxBatch int
	maxWait  time.Duration

	mu      sync.RWMutex // held for writing by Close: no send after close(jobs)
	closed  bool
	stopped chan struct{}
}

// job is one write waiting or running.
type job struct {
	ctx   context.Context
	fn    func(context.Context, *Tx) error
	state atomic.Int32 // queued, running or abandoned
	err   error        // set before done is closed
	done  chan struct{}
}

const (
	queued int32 = iota
	running
	abandoned
)

// NewWriter starts the writer of db (on its write connection). At most
// queue writes wait at once; at most batch writes share a commit; a write
// waits at most maxWait for its turn (zero: only its context limits the
// wait).
func NewWriter(db *DB, queue, batch int, maxWait time.Duration) *Writer {
	w := &Writer{db: db.Write, engine: db.Engine, jobs: make(chan *job, queue), maxBatch: max(batch, 1), maxWait: maxWait,
		stopped: make(chan struct{})}
	go w.run()
	return w
}

// Do runs fn in a write transaction and returns once it is committed, or
// rolled back. fn runs on the writer's goroutine with ctx's values but
// without its cancellation: ctx limits the wait in the queue
// (ErrWaitExpired), and a write that has begun runs to its end. fn must not
// keep tx or start another write, and may run twice, the first run rolled
// back (a deadlock's victim, see commit): it sets what it hands out rather
// than adding to it. Errors: fn's, the commit's, ErrQueueFull,
// ErrWaitExpired, ErrClosed. A write whose commit lost its connection
// (ErrCommitUnknown) is not run again: it may have been committed.
func (w *Writer) Do(ctx context.Context, fn func(context.Context, *Tx) error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrWaitExpired, ctx.Err())
	}
	j := &job{ctx: context.WithoutCancel(ctx), fn: fn, done: make(chan struct{})}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrClosed
	}
	select {
	case w.jobs <- j:
	default:
		w.mu.RUnlock()
		return ErrQueueFull
	}
	w.mu.RUnlock()
	var timeout <-chan time.Time
	if w.maxWait > 0 {
		t := time.NewTimer(w.maxWait)
		defer t.Stop()
		timeout = t.C
	}
	var why error
	select {
	case <-j.done:
		return j.err
	case <-ctx.Done():
		why = ctx.Err()
	case <-timeout:
		why = fmt.Errorf("no turn within %v", w.maxWait)
	}
	if j.state.CompareAndSwap(queued, abandoned) {
		return fmt.Errorf("%w: %w", ErrWaitExpired, why)
	}
	<-j.done // begun: it finishes
	return j.err
}

// Queued returns the number of writes waiting for their turn.
func (w *Writer) Queued() int { return len(w.jobs) }

// Close refuses new writes, runs those already queued and stops.
func (w *Writer) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.jobs)
	}
	w.mu.Unlock()
	<-w.stopped
}

// run takes the jobs in arrival order, each with those queued behind it
// (up to maxBatch), and commits them.
func (w *Writer) run() {
	defer close(w.stopped)
	batch := make([]*job, 0, w.maxBatch)
	for j := range w.jobs {
		batch = append(batch[:0], j)
	more:
		for len(batch) < w.maxBatch {
			select {
			case j, ok := <-w.jobs:
				if !ok {
					break more
				}
				batch = append(batch, j)
			default:
				break more
			}
		}
		live := batch[:0]
		for _, j := range batch {
			if j.state.CompareAndSwap(queued, running) {
				live = append(live, j)
			}
		}
		w.commit(live)
	}
}

// commit runs jobs in one transaction and finishes each. A job that fails
// is rolled back alone. A job that PostgreSQL rolled back to break a
// deadlock, or for a serialization failure, runs again in a transaction of
// its own after the others commit: the transaction it deadlocked with waits
// for locks the shared transaction holds until then. When the transaction
// itself fails (begin, commit, or a savepoint: SQLite rolls back the whole
// transaction on a full disk), the jobs it held fail with that error and
// those not yet run get a transaction of their own.
func (w *Writer) commit(jobs []*job) {
	if len(jobs) == 0 {
		return
	}
	sqlTx, err := w.db.BeginTx(context.Background(), nil)
	if err != nil {
		finish(jobs, fmt.Errorf("begin: %w", err))
		return
	}
	defer sqlTx.Rollback()
	tx := &Tx{tx: sqlTx, engine: w.engine}
	var done, again []*job
	for i, j := range jobs {
		err, txErr := runJob(tx, j, len(jobs) > 1)
		if txErr != nil {
			// What the transaction held is lost: for a full disk or a
			// lock, the others fail as j did; the rest start anew.
			lost := txErr
			if IsFull(err) || IsBusy(err) {
				lost = err
			}
			finish(done, lost)
			finish(jobs[i:i+1], cmp.Or(err, txErr))
			sqlTx.Rollback()
			w.commit(append(again, jobs[i+1:]...))
			return
		}
		if err != nil && len(jobs) > 1 && isTransient(err) {
			again = append(again, j)
			continue
		}
		if err != nil {
			finish(jobs[i:i+1], err)
			continue
		}
		done = append(done, j)
	}
	if len(done) > 0 {
		finish(done, sqlTx.Commit())
	}
	sqlTx.Rollback() // ends the transaction when nothing committed: the retries need the connection
	for _, j := range again {
		w.commit([]*job{j})
	}
}

// runJob runs j in tx, in a savepoint when the transaction is shared. err
// is j's failure, its changes undone; txErr says the transaction cannot go
// on.
func runJob(tx *Tx, j *job, shared bool) (err, txErr error) {
	if !shared {
		return j.fn(j.ctx, tx), nil
	}
	if _, err := tx.tx.Exec("SAVEPOINT job"); err != nil {
		return nil, err
	}
	if err := j.fn(j.ctx, tx); err != nil {
		if _, rerr := tx.tx.Exec("ROLLBACK TO job; RELEASE job"); rerr != nil {
			return err, rerr
		}
		return err, nil
	}
	if _, err := tx.tx.Exec("RELEASE job"); err != nil {
		return nil, err
	}
	return nil, nil
}

// finish ends each of jobs with err.
func finish(jobs []*job, err error) {
	for _, j := range jobs {
		j.err = err
		close(j.done)
	}
}
