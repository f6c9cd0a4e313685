package store

import (
	"context"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/testdb"
)

// inTx runs fn in a transaction of db, committed unless fn fails.
func inTx(t *testing.T, db *DB, fn func(tx *Tx) error) {
	t.Helper()
	ctx := context.Background()
	sqlTx, err := db.Write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fn(&Tx{tx: sqlTx, engine: db.Engine}); err != nil {
		sqlTx.Rollback()
		t.Fatal(err)
	}
	if err := sqlTx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// claim claims up to n metadata jobs for owner at now, with a minute's
// lease, in a transaction of its own.
func claim(t *testing.T, db *DB, owner string, n int, now time.Time) []Job {
	t.Helper()
	var jobs []Job
	inTx(t, db, func(tx *Tx) error {
		var err error
		jobs, err = ClaimJobs(context.Background(), tx, db.Engine, []string{"metadata"}, owner, n, now, time.Minute)
		return err
	})
	return jobs
}

// TestJobLease follows a job through the queue: claimed once, not again
// while its lease lasts, taken again by another server once the lease of a
// server that died ran out (attempts counted), the dead server's late
// finish ignored, and deleted by the holder's.
func TestJobLease(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	inTx(t, db, func(tx *Tx) error { return Enqueue(ctx, tx, "metadata", "org1", "10.1/a", "", t0) })

	got := claim(t, db, "dead", 5, t0)
	if len(got) != 1 || got[0].Subject != "10.1/a" || got[0].Org != "org1" || got[0].Attempts != 1 {
		t.Fatalf("first claim = %+v", got)
	}
	if again := claim(t, db, "other", 5, t0.Add(30*time.Second)); len(again) != 0 {
		t.Fatalf("claimed again within the lease: %+v", again)
	}
	if _, ok, err := NextJobDue(ctx, db.Reader(), []string{"metadata"}); err != nil || !ok {
		t.Fatalf("next due: %v %v", ok, err)
	}
	// The lease ran out: the server that held it died.
	taken := claim(t, db, "other", 5, t0.Add(2*time.Minute))
	if len(taken) != 1 || taken[0].Attempts != 2 {
		t.Fatalf("claim after the lease ran out = %+v", taken)
	}
	inTx(t, db, func(tx *Tx) error {
		if done, err := FinishJob(ctx, tx, got[0], "dead"); done || err != nil {
			t.Errorf("the dead server's finish deleted the job (%v, %v)", done, err)
		}
		return nil
	})
	inTx(t, db, func(tx *Tx) error {
		if done, err := FinishJob(ctx, tx, taken[0], "other"); !done || err != nil {
			t.Errorf("the holder's finish: %v, %v", done, err)
		}
		return nil
	})
	if q, _, err := JobCounts(ctx, db.Reader()); err != nil || q["metadata"] != 0 {
		t.Errorf("queued after the finish: %v, %v", q, err)
	}
}

// TestJobEnqueuedAgain checks that a job enqueued again while it runs is
// not deleted by the run's finish but runs again, and that a released job
// is due when it says.
func TestJobEnqueuedAgain(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	inTx(t, db, func(tx *Tx) error { return Enqueue(ctx, tx, "metadata", "org1", "10.1/a", "", t0) })
	got := claim(t, db, "s1", 1, t0)
	inTx(t, db, func(tx *Tx) error { return Enqueue(ctx, tx, "metadata", "org1", "10.1/a", "fresh", t0) })
	inTx(t, db, func(tx *Tx) error {
		if done, err := FinishJob(ctx, tx, got[0], "s1"); done || err != nil {
			t.Errorf("finish of a job enqueued again: %v, %v; want it kept", done, err)
		}
		return nil
	})
	again := claim(t, db, "s1", 1, t0)
	if len(again) != 1 || again[0].Args != "fresh" || again[0].Version == got[0].Version {
		t.Fatalf("claim after enqueueing again = %+v (first %+v)", again, got)
	}
	inTx(t, db, func(tx *Tx) error {
		return ReleaseJob(ctx, tx, again[0], "s1", again[0].Attempts, t0.Add(time.Hour), "crossref: 500")
	})
	if early := claim(t, db, "s1", 1, t0.Add(59*time.Minute)); len(early) != 0 {
		t.Errorf("released job taken before its time: %+v", early)
	}
	if _, failing, err := JobCounts(ctx, db.Reader()); err != nil || failing["metadata"] != 1 {
		t.Errorf("failing jobs = %v, %v", failing, err)
	}
	late := claim(t, db, "s1", 1, t0.Add(61*time.Minute))
	if len(late) != 1 || late[0].Attempts != 2 {
		t.Fatalf("released job at its time = %+v", late)
	}
	inTx(t, db, func(tx *Tx) error { return DropJob(ctx, tx, late[0], "s1") })
	if q, _, _ := JobCounts(ctx, db.Reader()); q["metadata"] != 0 {
		t.Errorf("queued after the drop: %v", q)
	}
}

// TestJobClaimsDisjoint checks that two servers claiming at once each get
// their own jobs: on PostgreSQL the rows one is claiming are skipped by
// the other (FOR UPDATE SKIP LOCKED) rather than waited for or taken
// twice; on SQLite claims take turns.
func TestJobClaimsDisjoint(t *testing.T) {
	ctx := context.Background()
	path := testdb.Path(t)
	db, err := Open(ctx, path, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	inTx(t, db, func(tx *Tx) error {
		for _, d := range []string{"10.1/a", "10.1/b", "10.1/c"} {
			if err := Enqueue(ctx, tx, "metadata", "org1", d, "", t0); err != nil {
				return err
			}
		}
		return nil
	})
	if db.Engine != Postgres {
		a, b := claim(t, db, "s1", 2, t0), claim(t, db, "s2", 2, t0)
		if len(a) != 2 || len(b) != 1 || b[0].Subject == a[0].Subject || b[0].Subject == a[1].Subject {
			t.Errorf("claims %+v and %+v overlap", a, b)
		}
		return
	}
	// A second server over the same database.
	other, err := Open(ctx, path, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	first, err := db.Write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	a, err := ClaimJobs(ctx, &Tx{tx: first, engine: db.Engine}, db.Engine, []string{"metadata"}, "s1", 2, t0, time.Minute)
	if err != nil || len(a) != 2 {
		t.Fatalf("first claim: %+v, %v", a, err)
	}
	// The first claim's transaction is still open: its rows are locked.
	b := claim(t, other, "s2", 3, t0)
	if len(b) != 1 || b[0].Subject == a[0].Subject || b[0].Subject == a[1].Subject {
		t.Errorf("second claim %+v overlaps the first %+v", b, a)
	}
}
