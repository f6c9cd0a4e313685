package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3", for reading the stored Claims

	"github.com/papermem/papermem"
)

// measure ingests each PDF with this build through Workspace.IngestFile
// into a fresh database in a temporary folder and returns, by file name,
// the text of the Claim nodes stored for it, in the order they were
// stored, or the error IngestFile refused it with.
//
// This file is compiled at the base revision too (see base.go): it uses
// only the library's public API and the database's nodes table, which
// every revision has.
func measure(ctx context.Context, files []string) (map[string]result, error) {
	tmp, err := os.MkdirTemp("", "pdfclaims-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := map[string]result{}
	for i, f := range files {
		path := filepath.Join(tmp, fmt.Sprintf("%d.db", i))
		texts, err := ingestOne(ctx, path, f)
		if err != nil {
			out[filepath.Base(f)] = result{Error: papermem.ErrorMessage(err)}
			continue
		}
		out[filepath.Base(f)] = result{Claims: texts}
	}
	return out, nil
}

// ingestOne ingests file into a new database at path and reads back its
// Claims.
func ingestOne(ctx context.Context, path, file string) ([]string, error) {
	m, err := papermem.Open(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	in, err := os.Open(file)
	if err != nil {
		m.Close()
		return nil, err
	}
	_, err = m.Workspace("default").IngestFile(ctx, filepath.Base(file), in, papermem.IngestOptions{})
	in.Close()
	if cerr := m.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT text FROM nodes WHERE label = 'Claim' ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
