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

// storedClaims ingests each PDF through Workspace.IngestFile into a fresh
// database in a temporary folder and returns the text of the Claim nodes
// stored for it, in the order they were stored, by file name. A file
// IngestFile refuses maps to nil and its error is returned in errs.
//
// This file is compiled at the base revision too (see base.go): it uses
// only the library's public API and the database's nodes table, which
// every revision has.
func storedClaims(ctx context.Context, files []string) (claims map[string][]string, errs map[string]string, err error) {
	tmp, err := os.MkdirTemp("", "pdfclaims-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	claims, errs = map[string][]string{}, map[string]string{}
	for i, f := range files {
		name := filepath.Base(f)
		path := filepath.Join(tmp, fmt.Sprintf("%d.db", i))
		texts, ierr := ingestOne(ctx, path, f)
		if ierr != nil {
			errs[name] = papermem.ErrorMessage(ierr)
			continue
		}
		claims[name] = texts
	}
	return claims, errs, nil
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
