package evalcmd

import (
	"io/fs"
	"os"
	"path/filepath"
)

// DatabaseSize returns the size of the SQLite database at path and its
// -wal.
func DatabaseSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// DirSize returns the size of the files in dir, such as the search index
// files papermem keeps by default in <database>-index (Options.IndexDir);
// 0 when dir is missing.
func DirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
