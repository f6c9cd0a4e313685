package papermem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/store"
)

// Backup writes an online, consistent copy of the whole database to the
// file dest, while the database serves: SQLite's VACUUM INTO reads one
// snapshot on a read connection, so writes go on meanwhile and none of
// them is half in the copy. The copy is written next to dest and renamed
// into place when complete, so dest is either whole or absent; it is an
// ordinary papermem database (Open it, or start the server on it, to
// restore). It returns the copy's size in bytes. Errors: EINVALID (dest
// exists), ENOSPACE, EUNSUPPORTED on PostgreSQL (back it up with pg_dump).
func (m *Memory) Backup(ctx context.Context, dest string) (_ int64, err error) {
	defer translate(&err)
	if err := m.fileCopies(); err != nil {
		return 0, err
	}
	if _, err := os.Stat(dest); err == nil {
		return 0, Errorf(EINVALID, "%s already exists; back up to a new file.", dest)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("backup: %w", err)
	}
	tmp, err := m.vacuumInto(ctx, filepath.Dir(dest))
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp)
	st, err := os.Stat(tmp)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	return st.Size(), nil
}

// BackupFile is a backup made by BackupInDir.
type BackupFile = api.BackupFile

// BackupInDir makes a backup as Backup does into a new file of dir named
// for the current time (papermem-20060102T150405.000Z.db), creating dir
// (mode 0700: a backup holds password and key hashes) when missing. An
// empty dir means "backups" beside the database file, or the system's
// temporary directory for an in-memory database. Errors: ENOSPACE,
// EUNSUPPORTED on PostgreSQL.
func (m *Memory) BackupInDir(ctx context.Context, dir string) (_ *BackupFile, err error) {
	defer translate(&err)
	if err := m.fileCopies(); err != nil {
		return nil, err
	}
	start := time.Now()
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "papermem-backups")
		if m.path != store.Memory {
			dir = filepath.Join(filepath.Dir(m.path), "backups")
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	name := filepath.Join(dir, "papermem-"+strings.ReplaceAll(timestamp(m.now()), ":", "")+".db")
	n, err := m.Backup(ctx, name)
	if err != nil {
		return nil, err
	}
	return &BackupFile{Path: name, Bytes: n, ElapsedMS: time.Since(start).Milliseconds()}, nil
}

// fileCopies says whether the database can be copied to a file: SQLite's
// can, PostgreSQL's is backed up with PostgreSQL's own tools (EUNSUPPORTED).
func (m *Memory) fileCopies() error {
	if m.database.Engine == store.Postgres {
		return Errorf(EUNSUPPORTED, "Backup copies a SQLite database to a file; this server stores in PostgreSQL: back it up with pg_dump (or PostgreSQL's continuous archiving).")
	}
	return nil
}

// vacuumInto writes a snapshot of the database to a new file in dir and
// returns its name.
func (m *Memory) vacuumInto(ctx context.Context, dir string) (string, error) {
	f, err := os.CreateTemp(dir, ".papermem-backup-*.db")
	if err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	name := f.Name()
	f.Close() // VACUUM INTO writes into an empty file
	if err := m.database.VacuumInto(ctx, name); err != nil {
		os.Remove(name)
		if store.IsFull(err) {
			return "", &Error{Code: ENOSPACE, Message: "No room for the backup.", Err: err}
		}
		return "", fmt.Errorf("backup: %w", err)
	}
	return name, nil
}
