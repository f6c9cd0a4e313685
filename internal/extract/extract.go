// Package extract turns a file into structured, citable text: sections with
// their heading, type, page, sheet or row, and the rune offsets of each
// section within the document's whole extracted text.
//
// It knows seven formats (Markdown, plain text, CSV/TSV, JSON, PDF, XLSX,
// DOCX) and touches no database. Every Extract call reads at most
// Limits.MaxBytes+1 bytes, runs under a deadline and a recover guard, and
// parses PDF in a child process of the same binary (see pdf.go), so no input
// can crash or hang the caller.
package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Format names a supported file format.
type Format string

// The supported formats.
const (
	Markdown Format = "markdown"
	Text     Format = "text"
	CSV      Format = "csv"
	JSON     Format = "json"
	PDF      Format = "pdf"
	XLSX     Format = "xlsx"
	DOCX     Format = "docx"
)

// FormatInfo describes one format and the file extensions (with the leading
// dot, lower case) that select it.
type FormatInfo struct {
	Format     Format   `json:"format"`
	Extensions []string `json:"extensions"`
}

var formats = []FormatInfo{
	{Markdown, []string{".md", ".markdown"}},
	{Text, []string{".txt", ".text", ".log"}},
	{CSV, []string{".csv", ".tsv"}},
	{JSON, []string{".json"}},
	{PDF, []string{".pdf"}},
	{XLSX, []string{".xlsx"}},
	{DOCX, []string{".docx"}},
}

// Formats lists the supported formats in a fixed order. The result is a
// fresh copy the caller may modify.
func Formats() []FormatInfo {
	out := make([]FormatInfo, len(formats))
	for i, f := range formats {
		out[i] = FormatInfo{f.Format, append([]string(nil), f.Extensions...)}
	}
	return out
}

// FormatFor returns the format selected by filename's extension, compared
// case-insensitively, and false when the extension is unknown or missing.
func FormatFor(filename string) (Format, bool) {
	ext := strings.ToLower(filepath.Ext(filename))
	if ext == "" {
		return "", false
	}
	for _, f := range formats {
		for _, e := range f.Extensions {
			if e == ext {
				return f.Format, true
			}
		}
	}
	return "", false
}

// Defaults for the zero fields of Limits.
const (
	DefaultMaxBytes     = 25 << 20         // 25 MiB
	DefaultTimeout      = 30 * time.Second // per Extract call
	DefaultMaxJSONDepth = 64               // nesting of JSON arrays and objects
)

// Limits bounds one Extract call. A zero field means its Default* value.
type Limits struct {
	// MaxBytes is the largest input accepted; a larger one fails with
	// ErrTooLarge after reading MaxBytes+1 bytes. Zero means DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds the extraction; zero means DefaultTimeout. The
	// context's own deadline applies too.
	Timeout time.Duration
	// MaxJSONDepth bounds the nesting of JSON input; deeper input fails
	// with ErrInvalid. Zero means DefaultMaxJSONDepth.
	MaxJSONDepth int
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxJSONDepth <= 0 {
		l.MaxJSONDepth = DefaultMaxJSONDepth
	}
	return l
}

// Document is the structured text of one file.
type Document struct {
	Format  Format   `json:"format"`
	Title   string   `json:"title,omitempty"`   // from metadata, the first heading or the first line
	DOI     string   `json:"doi,omitempty"`     // raw DOI from metadata, the first page or lines, or a top-level "doi" field; "" if none
	Year    int      `json:"year,omitempty"`    // publication or creation year from metadata; 0 if unknown
	Authors []string `json:"authors,omitempty"` // from metadata; nil if unknown
	Pages   int      `json:"pages,omitempty"`   // PDF pages; 0 for other formats
	Rows    int      `json:"rows,omitempty"`    // CSV, XLSX and JSON record rows
	// Sections hold the text in reading order. Their texts joined with
	// SectionSeparator form the document's whole extracted text (Text).
	Sections []Section `json:"sections"`
	Chars    int       `json:"chars"` // runes of the whole extracted text
}

// Section is one citable span of a document.
type Section struct {
	// Heading is the heading path, e.g. "2 Methods > 2.1 Data"; "" for none.
	Heading string `json:"heading,omitempty"`
	// Type is one of abstract, introduction, background, methods, results,
	// discussion, conclusion, limitations, references, body, table, sheet.
	Type  string `json:"type"`
	Page  int    `json:"page,omitempty"`  // 1-based PDF page, else 0
	Sheet string `json:"sheet,omitempty"` // XLSX sheet name
	Row   int    `json:"row,omitempty"`   // 1-based data row (CSV/TSV, XLSX, JSON records), else 0
	Text  string `json:"text"`
	// CharStart and CharEnd are the rune offsets of Text within the
	// document's whole extracted text: []rune(doc.Text())[CharStart:CharEnd] == Text.
	CharStart int `json:"char_start"`
	CharEnd   int `json:"char_end"`
}

// SectionSeparator joins section texts in Document.Text.
const SectionSeparator = "\n\n"

// Text returns the document's whole extracted text: the section texts
// joined with SectionSeparator. Section offsets index into it in runes.
func (d *Document) Text() string {
	var sb strings.Builder
	for i, s := range d.Sections {
		if i > 0 {
			sb.WriteString(SectionSeparator)
		}
		sb.WriteString(s.Text)
	}
	return sb.String()
}

// Sentinel errors. Every error Extract returns for bad input wraps one of
// them (test with errors.Is) and reads as a human reason, such as
// "pdf: file is encrypted" or "json: nesting deeper than 64".
var (
	ErrInvalid     = errors.New("invalid file")       // corrupt, encrypted, truncated or empty input
	ErrTooLarge    = errors.New("file too large")     // input over Limits.MaxBytes
	ErrUnsupported = errors.New("unsupported format") // a Format this package does not know
)

// Error is the error returned for bad input: Reason is the human message
// (prefixed with the format) and Kind one of the sentinel errors.
type Error struct {
	Kind   error
	Reason string
}

// Error returns the human reason, e.g. "pdf: file is encrypted".
func (e *Error) Error() string { return e.Reason }

// Unwrap returns Kind, so errors.Is(err, ErrInvalid) works.
func (e *Error) Unwrap() error { return e.Kind }

func invalidf(f Format, format string, args ...any) error {
	return &Error{Kind: ErrInvalid, Reason: string(f) + ": " + fmt.Sprintf(format, args...)}
}

// Extract reads a file of format f from r and returns its structured text.
//
// Input over lim.MaxBytes fails with ErrTooLarge (r is read no further than
// MaxBytes+1 bytes); an unknown format with ErrUnsupported; corrupt,
// encrypted, truncated or empty input, or input that runs past lim.Timeout,
// with ErrInvalid. A canceled ctx returns ctx.Err(). Extract never panics.
func Extract(ctx context.Context, f Format, r io.Reader, lim Limits) (*Document, error) {
	lim = lim.withDefaults()
	ext := extractors[f]
	if ext == nil {
		return nil, &Error{Kind: ErrUnsupported, Reason: fmt.Sprintf("unsupported format %q", string(f))}
	}
	data, err := io.ReadAll(io.LimitReader(r, lim.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s input: %w", f, err)
	}
	if int64(len(data)) > lim.MaxBytes {
		return nil, &Error{Kind: ErrTooLarge, Reason: fmt.Sprintf("%s: file larger than %d bytes", f, lim.MaxBytes)}
	}
	if len(data) == 0 {
		return nil, invalidf(f, "no text found (empty file)")
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()

	type result struct {
		doc *Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if p := recover(); p != nil {
				res = result{nil, invalidf(f, "cannot parse file (%v)", clip(fmt.Sprint(p), 120))}
			}
			done <- res
		}()
		res.doc, res.err = ext(ctx, data, lim)
		if res.err == nil {
			res.err = finish(f, res.doc)
		}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			if ctx.Err() != nil && !isInputError(res.err) {
				return nil, timeoutOr(parent, f)
			}
			return nil, res.err
		}
		return res.doc, nil
	case <-ctx.Done():
		// The extractor goroutine stops at its next context check; its
		// result is dropped.
		return nil, timeoutOr(parent, f)
	}
}

func isInputError(err error) bool {
	return errors.Is(err, ErrInvalid) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrUnsupported)
}

// timeoutOr returns the caller's context error when the caller canceled or
// its deadline passed, and ErrInvalid when Limits.Timeout ran out.
func timeoutOr(parent context.Context, f Format) error {
	if err := parent.Err(); err != nil {
		return err
	}
	return invalidf(f, "extraction timed out")
}

type extractor func(ctx context.Context, data []byte, lim Limits) (*Document, error)

var extractors = map[Format]extractor{
	Markdown: extractMarkdown,
	Text:     extractText,
	CSV:      extractCSV,
	JSON:     extractJSON,
	XLSX:     extractXLSX,
	DOCX:     extractDOCX,
	PDF:      extractPDF,
}

// finish cleans section texts, drops empty sections, types untyped ones,
// computes offsets and fills the title.
func finish(f Format, d *Document) error {
	if d == nil {
		return invalidf(f, "no text found")
	}
	d.Format = f
	out := d.Sections[:0]
	types := map[string]string{} // SectionType by heading
	for _, s := range d.Sections {
		s.Text = cleanText(s.Text)
		if strings.TrimSpace(s.Text) == "" {
			continue
		}
		s.Heading = strings.TrimSpace(cleanText(s.Heading))
		if s.Type == "" {
			t, ok := types[s.Heading]
			if !ok {
				t = SectionType(s.Heading)
				types[s.Heading] = t
			}
			s.Type = t
		}
		out = append(out, s)
	}
	d.Sections = out
	if len(out) == 0 {
		return invalidf(f, "no text found")
	}
	pos := 0
	sepLen := utf8.RuneCountInString(SectionSeparator)
	for i := range d.Sections {
		if i > 0 {
			pos += sepLen
		}
		n := utf8.RuneCountInString(d.Sections[i].Text)
		d.Sections[i].CharStart = pos
		d.Sections[i].CharEnd = pos + n
		pos += n
	}
	d.Chars = pos
	d.Title = clip(strings.TrimSpace(cleanText(d.Title)), 300)
	if d.Title == "" && (f == Markdown || f == Text || f == DOCX || f == PDF) {
		d.Title = firstLine(d.Sections)
	}
	return nil
}

// cleanText repairs ligatures, drops control characters and NULs, folds
// CRLF and trims trailing space on each line.
func cleanText(s string) string {
	if !needsClean(s) {
		return strings.TrimSpace(s)
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue
			}
			sb.WriteByte('\n')
		case r == '\t' || r == '\n':
			sb.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfeff || r == 0xfffd || r == 0xad:
			// control characters, BOMs, replacement characters, soft hyphens
		case r >= 0xfb00 && r <= 0xfb06:
			sb.WriteString(ligatures[r-0xfb00])
		default:
			sb.WriteRune(r)
		}
	}
	lines := strings.Split(sb.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

var ligatures = [...]string{"ff", "fi", "fl", "ffi", "ffl", "ft", "st"}

func needsClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 {
			return true
		}
		if (c == ' ' || c == '\t') && (i+1 == len(s) || s[i+1] == '\n') {
			return true
		}
	}
	return false
}

func firstLine(secs []Section) string {
	for _, s := range secs {
		if s.Heading != "" {
			h := s.Heading
			if i := strings.Index(h, " > "); i >= 0 {
				h = h[:i]
			}
			return clip(h, 200)
		}
		for _, l := range strings.Split(s.Text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				return clip(l, 200)
			}
		}
	}
	return ""
}

// clip shortens s to at most n runes, at a word boundary when possible.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}
