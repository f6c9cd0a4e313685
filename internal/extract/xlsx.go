package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/xuri/excelize/v2"
)

// oleMagic starts an OLE compound file: an encrypted OOXML package or a
// legacy binary Office file.
var oleMagic = []byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}

// oleEncrypted reports whether an OLE compound file holds an encrypted
// OOXML package (its EncryptionInfo stream name, in UTF-16LE).
func oleEncrypted(data []byte) bool {
	name := []byte("E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o\x00")
	return bytes.Contains(data, name)
}

// Limits on the decompressed workbook.
const (
	xlsxUnzipLimit    = 1 << 30
	xlsxUnzipXMLLimit = 64 << 20
)

// extractXLSX reads every sheet of a workbook: the first non-empty row of a
// sheet names the columns, each later row becomes a section
// "column: value; ..." with Sheet and its 1-based data Row (the sheet row
// minus the header row). Values are formatted as Excel shows them
// (numbers, dates, shared and inline strings).
func extractXLSX(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	if bytes.HasPrefix(data, oleMagic) {
		if oleEncrypted(data) {
			return nil, invalidf(XLSX, "file is encrypted (password-protected workbook)")
		}
		return nil, invalidf(XLSX, "legacy binary .xls workbook, not .xlsx")
	}
	if !bytes.HasPrefix(data, []byte("PK")) {
		return nil, invalidf(XLSX, "not a zip file")
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    xlsxUnzipLimit,
		UnzipXMLSizeLimit: xlsxUnzipXMLLimit,
		// Excel shows the built-in short date (format 14) in the viewer's
		// locale; ISO dates read the same everywhere.
		ShortDatePattern: "yyyy-mm-dd",
	})
	if err != nil {
		return nil, xlsxError(err)
	}
	defer f.Close()

	doc := &Document{}
	if p, err := f.GetDocProps(); err == nil && p != nil {
		doc.Title = strings.TrimSpace(p.Title)
		doc.Authors = splitAuthors(p.Creator)
		doc.Year = parseYear(p.Created)
		doc.DOI = cleanDOI(p.Identifier)
		if doc.DOI == "" {
			doc.DOI = cleanDOI(p.Subject + " " + p.Keywords + " " + p.Description)
		}
	}
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, invalidf(XLSX, "workbook has no sheets")
	}
	for _, sheet := range sheets {
		if err := xlsxSheet(ctx, f, sheet, doc); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

func xlsxSheet(ctx context.Context, f *excelize.File, sheet string, doc *Document) error {
	rows, err := f.Rows(sheet)
	if err != nil {
		return xlsxError(err)
	}
	defer rows.Close()
	var header []string
	headerRow := 0
	var pending []string // a lone first row, kept until we know it is not a header
	n := 0
	for rows.Next() {
		n++
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		cells, err := rows.Columns()
		if err != nil {
			return xlsxError(err)
		}
		if filled(cells) == 0 {
			continue
		}
		if header == nil {
			header = headerNames(cells, columnLetter)
			headerRow = n
			pending = cells
			continue
		}
		if pending != nil && filled(pending) == 1 && filled(cells) >= 2 && strings.TrimSpace(pending[0]) != "" {
			// A caption above the header row: keep it as text, and take
			// this row as the header.
			doc.Sections = append(doc.Sections, Section{
				Heading: sheet, Type: TypeSheet, Sheet: sheet,
				Text: strings.TrimSpace(pending[0]),
			})
			header = headerNames(cells, columnLetter)
			headerRow = n
			pending = nil
			continue
		}
		pending = nil
		text := labelled(header, cells, columnLetter)
		doc.Rows++
		doc.Sections = append(doc.Sections, Section{
			Heading: sheet,
			Type:    TypeSheet,
			Sheet:   sheet,
			Row:     n - headerRow,
			Text:    text,
		})
	}
	if err := rows.Error(); err != nil {
		return xlsxError(err)
	}
	if pending != nil {
		// A sheet of one row: the row is data, not a header.
		doc.Rows++
		doc.Sections = append(doc.Sections, Section{
			Heading: sheet, Type: TypeSheet, Sheet: sheet, Row: 1,
			Text: strings.Join(trimAll(pending), " | "),
		})
	}
	return nil
}

// columnLetter names a column as Excel does: A, B, ..., Z, AA.
func columnLetter(i int) string {
	name, err := excelize.ColumnNumberToName(i + 1)
	if err != nil {
		return columnNumber(i)
	}
	return name
}

func xlsxError(err error) error {
	switch {
	case errors.Is(err, zip.ErrFormat), errors.Is(err, zip.ErrAlgorithm), errors.Is(err, zip.ErrChecksum):
		return invalidf(XLSX, "not a valid zip file (%v)", err)
	case errors.Is(err, excelize.ErrWorkbookPassword), errors.Is(err, excelize.ErrWorkbookFileFormat):
		return invalidf(XLSX, "file is encrypted or not a workbook")
	}
	return invalidf(XLSX, "cannot read workbook: %s", clip(err.Error(), 150))
}
