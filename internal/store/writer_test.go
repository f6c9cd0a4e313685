package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// openTest opens a database in a temporary directory with a table t(v).
func openTest(tb testing.TB, sync string) *DB {
	tb.Helper()
	db, err := Open(context.Background(), filepath.Join(tb.TempDir(), "w.db"), sync)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Write.Exec(`CREATE TABLE t (v INTEGER NOT NULL CHECK (v >= 0))`); err != nil {
		tb.Fatal(err)
	}
	return db
}

// insert is a write of one row.
func insert(v int) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO t (v) VALUES (?)`, v)
		return err
	}
}

// rows returns t's values in insertion order.
func rows(tb testing.TB, db *DB) []int {
	tb.Helper()
	r, err := db.Read.Query(`SELECT v FROM t ORDER BY rowid`)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var out []int
	for r.Next() {
		var v int
		if err := r.Scan(&v); err != nil {
			tb.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// hold occupies w's goroutine with a write that returns when release is
// closed, and returns once that write has begun.
func hold(t *testing.T, w *Writer) (release func(), done <-chan error) {
	t.Helper()
	begun, stop := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- w.Do(context.Background(), func(context.Context, *sql.Tx) error {
			close(begun)
			<-stop
			return nil
		})
	}()
	<-begun
	return func() { close(stop) }, errc
}

// enqueue starts Do(fn) on its own goroutine and returns once the write
// waits in the queue, so that writes enqueued one after another arrive in
// that order.
func enqueue(t *testing.T, w *Writer, ctx context.Context, fn func(context.Context, *sql.Tx) error) <-chan error {
	t.Helper()
	before := len(w.jobs)
	errc := make(chan error, 1)
	go func() { errc <- w.Do(ctx, fn) }()
	for deadline := time.Now().Add(10 * time.Second); len(w.jobs) == before; {
		if time.Now().After(deadline) {
			t.Fatal("write never queued")
		}
		time.Sleep(time.Millisecond)
	}
	return errc
}

// TestWriterOrder checks that writes run in arrival order, that the writes
// waiting together share a commit, and that one write's failure in a
// shared commit undoes that write alone.
func TestWriterOrder(t *testing.T) {
	db := openTest(t, SyncNormal)
	w := NewWriter(db.Write, 100, 8, 0)
	defer w.Close()
	release, held := hold(t, w)
	var errs []<-chan error
	var want []int
	for i := range 20 {
		v := i
		if i == 5 {
			v = -1 // fails the CHECK constraint
		} else {
			want = append(want, v)
		}
		errs = append(errs, enqueue(t, w, context.Background(), insert(v)))
	}
	if got := rows(t, db); len(got) != 0 {
		t.Fatalf("rows %v before the first write committed", got)
	}
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	for i, errc := range errs {
		err := <-errc
		if (err != nil) != (i == 5) {
			t.Errorf("write %d: err %v", i, err)
		}
	}
	if diff := cmp.Diff(want, rows(t, db)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestWriterQueueFull checks that a write beyond the queue fails at once
// with ErrQueueFull and is never run.
func TestWriterQueueFull(t *testing.T) {
	db := openTest(t, SyncNormal)
	w := NewWriter(db.Write, 2, 8, 0)
	defer w.Close()
	release, held := hold(t, w)
	a := enqueue(t, w, context.Background(), insert(1))
	b := enqueue(t, w, context.Background(), insert(2))
	if err := w.Do(context.Background(), insert(3)); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("third write: err %v, want ErrQueueFull", err)
	}
	release()
	for _, errc := range []<-chan error{held, a, b} {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int{1, 2}, rows(t, db)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestWriterWaitExpired checks that a write whose context ends, or whose
// longest wait passes, before its turn fails with ErrWaitExpired and is
// never run, while the writes behind it still are.
func TestWriterWaitExpired(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxWait time.Duration
		timeout time.Duration
	}{
		{"Deadline", 0, 50 * time.Millisecond},
		{"MaxWait", 50 * time.Millisecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t, SyncNormal)
			w := NewWriter(db.Write, 10, 8, tc.maxWait)
			defer w.Close()
			release, held := hold(t, w)
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			late := enqueue(t, w, ctx, insert(1))
			if err := <-late; !errors.Is(err, ErrWaitExpired) {
				t.Fatalf("err %v, want ErrWaitExpired", err)
			}
			behind := enqueue(t, w, context.Background(), insert(2))
			release()
			if err := <-held; err != nil {
				t.Fatal(err)
			}
			if err := <-behind; err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]int{2}, rows(t, db)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("Canceled", func(t *testing.T) {
		db := openTest(t, SyncNormal)
		w := NewWriter(db.Write, 10, 8, 0)
		defer w.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := w.Do(ctx, insert(1)); !errors.Is(err, ErrWaitExpired) {
			t.Fatalf("err %v, want ErrWaitExpired", err)
		}
	})
}

// TestWriterClose checks that Close runs the writes already queued and
// that later writes fail with ErrClosed.
func TestWriterClose(t *testing.T) {
	db := openTest(t, SyncNormal)
	w := NewWriter(db.Write, 10, 8, 0)
	release, held := hold(t, w)
	queued := enqueue(t, w, context.Background(), insert(1))
	closed := make(chan struct{})
	go func() { w.Close(); close(closed) }()
	release()
	<-closed
	for _, errc := range []<-chan error{held, queued} {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Do(context.Background(), insert(2)); !errors.Is(err, ErrClosed) {
		t.Fatalf("err %v, want ErrClosed", err)
	}
	if diff := cmp.Diff([]int{1}, rows(t, db)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestWriterFull checks writes on a full database (max_page_count stands
// in for a full disk): the write that does not fit fails with an error
// IsFull recognises and leaves nothing; every write acknowledged is
// stored and every write refused is not, in a shared commit too; once
// there is room again, writes succeed.
func TestWriterFull(t *testing.T) {
	db := openTest(t, SyncNormal)
	w := NewWriter(db.Write, 10, 8, 0)
	defer w.Close()
	var pages int
	if err := db.Write.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+2)); err != nil {
		t.Fatal(err)
	}
	big := func(ctx context.Context, tx *sql.Tx) error {
		for i := range 20000 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO t (v) VALUES (?)`, 1000000+i); err != nil {
				return err
			}
		}
		return nil
	}
	release, held := hold(t, w)
	small1 := enqueue(t, w, context.Background(), insert(1))
	huge := enqueue(t, w, context.Background(), big)
	small2 := enqueue(t, w, context.Background(), insert(2))
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-huge; !IsFull(err) {
		t.Fatalf("big write: err %v, want a full database", err)
	}
	var want []int
	for v, errc := range map[int]<-chan error{1: small1, 2: small2} {
		if err := <-errc; err == nil {
			want = append(want, v)
		} else if !IsFull(err) {
			t.Errorf("small write %d: err %v", v, err)
		}
	}
	got := rows(t, db)
	if len(got) != len(want) {
		t.Fatalf("rows %v, want the acknowledged writes %v only", got, want)
	}
	if _, err := db.Write.Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	if err := w.Do(context.Background(), big); err != nil {
		t.Fatalf("after room returned: %v", err)
	}
}

// BenchmarkWriter measures writes of one row from 64 goroutines with
// writes committed one by one (batch-1) and sharing commits (batch-64),
// for each synchronous setting. The ratio between the two is what
// batching buys.
func BenchmarkWriter(b *testing.B) {
	for _, sync := range []string{SyncNormal, SyncFull} {
		for _, batch := range []int{1, 64} {
			b.Run(fmt.Sprintf("sync-%s/batch-%d", sync, batch), func(b *testing.B) {
				db := openTest(b, sync)
				w := NewWriter(db.Write, 1024, batch, 0)
				defer w.Close()
				b.SetParallelism(64 / max(1, runtime.GOMAXPROCS(0)))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := w.Do(context.Background(), insert(1)); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
