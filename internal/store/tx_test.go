package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"
)

// TestTimestamp pins the stored format of times: databases written by
// earlier builds must compare and read the same.
func TestTimestamp(t *testing.T) {
	at := time.Date(2026, 3, 2, 11, 4, 5, 123456789, time.FixedZone("CET", 3600))
	if got, want := Timestamp(at), "2026-03-02T10:04:05.123Z"; got != want {
		t.Errorf("Timestamp = %q, want %q", got, want)
	}
	if back, err := parseTimestamp(Timestamp(at)); err != nil || !back.Equal(at.Truncate(time.Millisecond)) {
		t.Errorf("parseTimestamp(Timestamp(t)) = %v, %v", back, err)
	}
}

// TestErrNotFound: a read of one row that finds none says ErrNotFound, in
// the read pool and in a write, and still matches sql.ErrNoRows.
func TestErrNotFound(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := PaperID(ctx, db.Reader(), "lab", "10.1/none"); !errors.Is(err, ErrNotFound) || !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("PaperID of no paper in the read pool: err = %v", err)
	}
	w := NewWriter(db, 1, 1, 0)
	defer w.Close()
	err := w.Do(ctx, func(ctx context.Context, tx *Tx) error { return tx.DeleteMemory(ctx, "lab", "ada", "none") })
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("DeleteMemory of no memory: err = %v", err)
	}
}
