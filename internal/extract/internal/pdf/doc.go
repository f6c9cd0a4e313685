// Copyright 2014 The Go Authors.  All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package pdf reads the objects, pages, fonts and positioned text of PDF
// files.
//
// It is a fork of github.com/dslipak/pdf v0.0.2 (itself a fork of
// rsc.io/pdf), kept inside internal/extract because the upstream module
// cannot be used as it is:
//
//   - objects inside compressed object streams were lost when they sat in
//     the last 4 KiB chunk of the stream (seekForward ignored data returned
//     together with io.EOF), so whole PDF 1.5 files read as zero pages;
//   - every reference was re-parsed, and every object-stream member
//     re-inflated, on each access, and Page.Content resolved the font's
//     /Widths array once per glyph: about 10 pages/s on a 15-page paper;
//   - the lexer returned '\n' forever at end of input, so an unterminated
//     string, array or dictionary looped endlessly, and nesting was
//     unbounded;
//   - Content ignored ToUnicode maps for fonts with an /Encoding, the
//     built-in encodings of embedded Type 1 fonts (TeX's ligatures and
//     quotes), two-byte CID fonts' widths, form XObjects and word spacing;
//   - stray fmt.Printf calls wrote to standard output.
//
// The Value API is upstream's. New here: the in-memory lexer, the object
// cache, the stream filters (filters.go), the page tree walk (pages.go),
// the font decoder (fonts.go) and the text-state interpreter (content.go)
// that returns positioned glyphs. Encrypted files are refused with
// ErrEncrypted.
//
// Nothing in this package is safe against every hostile file: callers run
// it where a deadline can kill it, and recover its panics.
package pdf
