package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/papermem/papermem/internal/extract/internal/pdf"
)

// PDF parsing runs in a child process of the same binary: the parser can
// loop or exhaust memory on hostile files, and a goroutine cannot be
// killed. The child is this binary started with ChildEnv=pdf; the init
// hook below catches it before main (or TestMain) runs, reads the PDF from
// standard input, writes a pdfReply as JSON to standard output and exits.
// The parent kills it when the deadline passes.

// ChildEnv is the environment variable that turns a process started by
// Extract into a PDF extraction child. Binaries importing this package
// must not set it themselves.
const ChildEnv = "PAPERMEM_EXTRACT_CHILD"

// Limits of the child process.
const (
	childMemoryLimit = 2 << 30  // heap bytes before the child gives up
	childMaxStack    = 64 << 20 // goroutine stack bytes
	childMaxOutput   = 512 << 20
	childMaxStderr   = 16 << 10
)

// pdfReply is the child's answer.
type pdfReply struct {
	Doc   *Document `json:"doc,omitempty"`
	Error string    `json:"error,omitempty"` // reason, "pdf: ..."
}

// testHookParse, when not nil, is called by the child after it read the
// PDF and before it parses it; nil in production. The child is this
// binary, so a test sets it from a package-level variable's initializer,
// which runs before the init function below, where the child starts.
var testHookParse func()

func init() {
	if os.Getenv(ChildEnv) == "pdf" {
		os.Exit(runPDFChild(os.Stdin, os.Stdout))
	}
}

// runPDFChild is the child's main: it never returns an error to its
// caller, only an exit code, and reports failures in the reply.
func runPDFChild(in io.Reader, out io.Writer) int {
	debug.SetMaxStack(childMaxStack)
	// The child lives for one document: collect garbage only when the heap
	// nears the soft limit, not every time it doubles.
	debug.SetMemoryLimit(childMemoryLimit / 2)
	debug.SetGCPercent(-1)
	go watchMemory(childMemoryLimit, out)

	var reply pdfReply
	data, err := io.ReadAll(in)
	if err != nil {
		reply.Error = "pdf: cannot read input"
	} else {
		func() {
			defer func() {
				if p := recover(); p != nil {
					reply = pdfReply{Error: fmt.Sprintf("pdf: cannot parse file (%s)", clip(fmt.Sprint(p), 120))}
				}
			}()
			if testHookParse != nil {
				testHookParse()
			}
			doc, err := parsePDF(data)
			if err != nil {
				reply.Error = err.Error()
				return
			}
			reply.Doc = doc
		}()
	}
	if err := json.NewEncoder(out).Encode(&reply); err != nil {
		return 2
	}
	return 0
}

// watchMemory ends the child with a reply when its heap passes limit; the
// runtime would otherwise grow until the machine's memory runs out.
func watchMemory(limit uint64, out io.Writer) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for {
		time.Sleep(20 * time.Millisecond)
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > limit {
			json.NewEncoder(out).Encode(pdfReply{Error: "pdf: file needs too much memory"})
			os.Exit(3)
		}
	}
}

// childExe returns the path of this binary for starting the child.
func childExe() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}

func extractPDF(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	if !bytes.Contains(head, []byte("%PDF-")) {
		return nil, invalidf(PDF, "not a PDF file")
	}
	exe, err := childExe()
	if err != nil {
		return nil, fmt.Errorf("pdf: find own executable: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), ChildEnv+"=pdf")
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = childMaxOutput, childMaxStderr
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err() // Extract turns our deadline into ErrInvalid
	}
	var reply pdfReply
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil || (reply.Doc == nil && reply.Error == "") {
		if runErr == nil && stdout.Len() == 0 && stderr.Len() == 0 {
			return nil, fmt.Errorf("pdf: child process returned nothing")
		}
		return nil, invalidf(PDF, "cannot parse file (parser %s)", crashReason(runErr, stderr.String()))
	}
	if reply.Error != "" {
		return nil, &Error{Kind: ErrInvalid, Reason: reply.Error}
	}
	return reply.Doc, nil
}

// crashReason summarises how the child died.
func crashReason(runErr error, stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "runtime:") || strings.HasPrefix(l, "panic:") {
			return "crashed: " + clip(l, 100)
		}
	}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		return "exited: " + exit.ProcessState.String()
	}
	if runErr != nil {
		return "failed: " + clip(runErr.Error(), 100)
	}
	return "returned no result"
}

// limitedBuffer keeps the first max bytes written and discards the rest.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// parsePDF extracts the document in this process. Only the child calls it
// (and tests of the layout, under their own deadline).
func parsePDF(data []byte) (*Document, error) {
	r, err := pdf.NewReader(data)
	if err != nil {
		if errors.Is(err, pdf.ErrEncrypted) {
			return nil, invalidf(PDF, "file is encrypted")
		}
		return nil, invalidf(PDF, "%s", strings.TrimPrefix(err.Error(), "pdf: "))
	}
	pages := r.Pages()
	if len(pages) == 0 {
		return nil, invalidf(PDF, "no pages found")
	}
	lp := make([]layoutPage, 0, len(pages))
	var buf []pdf.Glyph // reused: only the words of each page are kept
	for i, p := range pages {
		buf = pageGlyphs(r, p, buf[:0])
		uprightGlyphs(buf)
		lp = append(lp, layoutPage{Number: i + 1, Words: buildWords(buf), Box: p.MediaBox})
	}
	doc := layoutDocument(lp)
	doc.Pages = len(pages)
	pdfMetadata(r, doc)
	if err := finish(PDF, doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// pageGlyphs appends the glyphs of one page to buf; a page that fails or
// panics keeps what it showed before failing, or nothing.
func pageGlyphs(r *pdf.Reader, p pdf.Page, buf []pdf.Glyph) (g []pdf.Glyph) {
	defer func() {
		if recover() != nil {
			g = buf[:0]
		}
	}()
	g, _ = r.AppendGlyphs(buf, p)
	return g
}

// pdfMetadata fills title, DOI, year and authors from the document
// information dictionary and XMP metadata, falling back to the first page.
func pdfMetadata(r *pdf.Reader, doc *Document) {
	defer func() { recover() }()
	info := r.Trailer().Key("Info")
	if t := strings.TrimSpace(info.Key("Title").Text()); usableTitle(t) {
		doc.Title = t
	}
	if a := info.Key("Author").Text(); a != "" {
		doc.Authors = splitAuthors(a)
	}
	for _, k := range []string{"doi", "DOI", "Subject", "Keywords", "Identifier"} {
		if d := cleanDOI(info.Key(k).Text()); d != "" && doc.DOI == "" {
			doc.DOI = d
		}
	}
	if doc.DOI == "" {
		if meta := r.Trailer().Key("Root").Key("Metadata"); meta.Kind() == pdf.Stream {
			if xmp, err := meta.Data(); err == nil && len(xmp) < 4<<20 {
				doc.DOI = xmpDOI(string(xmp))
			}
		}
	}
	if doc.DOI == "" {
		doc.DOI = firstPageDOI(doc)
	}
	if y := pdfDateYear(info.Key("CreationDate").Text()); y > 0 {
		doc.Year = y
	}
}

// pdfDateYear reads the year of a PDF date ("D:20200502083329Z").
func pdfDateYear(s string) int {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	if len(s) >= 4 {
		return parseYear(s[:4])
	}
	return 0
}

// xmpDOI finds a DOI in the DOI-bearing XMP properties.
func xmpDOI(x string) string {
	for _, tag := range []string{"prism:doi", "pdfx:doi", "dc:identifier", "prism:url", "crossmark:DOI"} {
		if i := strings.Index(x, tag); i >= 0 {
			end := i + 400
			if end > len(x) {
				end = len(x)
			}
			if d := findDOI(x[i:end]); d != "" {
				return d
			}
		}
	}
	return ""
}

// firstPageDOI looks for a DOI in the text of page 1.
func firstPageDOI(doc *Document) string {
	for _, s := range doc.Sections {
		if s.Page > 1 {
			break
		}
		if d := findDOI(s.Text); d != "" {
			return d
		}
	}
	return ""
}

// usableTitle rejects empty and tool-generated metadata titles.
func usableTitle(t string) bool {
	l := strings.ToLower(t)
	if len(t) < 3 || l == "untitled" || strings.HasPrefix(l, "microsoft word") || strings.HasPrefix(l, "microsoft powerpoint") {
		return false
	}
	for _, ext := range []string{".dvi", ".doc", ".docx", ".pdf", ".tex", ".ps", ".indd", ".qxd"} {
		if strings.HasSuffix(l, ext) {
			return false
		}
	}
	return true
}
