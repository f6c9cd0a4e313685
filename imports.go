package papermem

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/internal/bibfile"
	"github.com/papermem/papermem/internal/extract"
	"github.com/papermem/papermem/internal/fetch"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/zotero"
)

// An import brings a researcher's library into the workspace: a Zotero
// library (web API v3, or Zotero desktop's local API), or an export file
// (BibTeX, RIS, CSL-JSON, a CSV manifest of PDFs) with the files beside
// it. Each work becomes a paper (its DOI, or a stable local id) with its
// tags, collections and source; each attached PDF its full text. An
// import is recorded in the database with its progress, and runs in the
// background (StartImport) or in the caller's goroutine (RunImport).

// Import sources (ImportRequest.Source).
const (
	ImportZotero      = "zotero"       // the Zotero web API
	ImportZoteroLocal = "zotero-local" // Zotero desktop's local API (this machine)
	ImportBibTeX      = "bibtex"
	ImportRIS         = "ris"
	ImportCSLJSON     = "csl-json"
	ImportManifest    = "manifest" // CSV: file,doi,title
)

// Import statuses.
const (
	ImportRunning = "running"
	ImportDone    = "done"
	ImportFailed  = "failed"
)

// DefaultZoteroURL and DefaultZoteroLocalURL are the Zotero APIs an import
// reads when ZoteroOptions leave them empty.
const (
	DefaultZoteroURL      = zotero.DefaultURL
	DefaultZoteroLocalURL = zotero.DefaultLocalURL
)

// ZoteroOptions configure the Zotero imports. The zero value reads the
// public web API and the local API at their usual addresses.
type ZoteroOptions struct {
	URL      string // the web API; "" means DefaultZoteroURL
	LocalURL string // Zotero desktop's local API; "" means DefaultZoteroLocalURL
	// AllowPrivate lets file downloads reach loopback and private
	// addresses on any host (tests only). False means only the hosts of
	// URL and LocalURL may be such addresses.
	AllowPrivate bool
}

// ImportRequest asks for an import.
type ImportRequest struct {
	// Source is one of the Import* sources. Empty means the export
	// format of Name's extension (.bib, .ris, .json, .csv).
	Source string `json:"source"`
	// Library is the Zotero library, "users/<id>" or "groups/<id>";
	// empty means users/0 for the local API.
	Library string `json:"library"`
	// APIKey is the Zotero web API key. It is sent to the Zotero API only:
	// never stored, logged or answered.
	APIKey string `json:"-"`
	// Name, Data and Dir are an export file's: its name, its content and
	// the folder its attached files are read from (never outside it).
	// Empty Dir means the attached files are not read (an upload).
	Name string `json:"name"`
	Data []byte `json:"-"`
	Dir  string `json:"-"`
}

// Import is an import and its progress.
type Import = api.Import

// ImportError is an item an import could not store: its key in the source and
// the error's code and message.
type ImportError = api.ImportError

// MaxImportErrors bounds the errors an import records; later ones are
// counted in the last.
const MaxImportErrors = 100

// importRuns are the imports running in the background, stopped by Close.
type importRuns struct {
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func newImportRuns() *importRuns {
	ctx, stop := context.WithCancel(context.Background())
	return &importRuns{ctx: ctx, stop: stop}
}

// close stops the imports running and waits for them to record it.
func (r *importRuns) close() {
	r.stop()
	r.wg.Wait()
}

// StartImport checks req, records the import and runs it in the
// background; Import reports its progress. A Zotero import asks the API
// once before it answers, so that a wrong key or library fails here and
// records nothing. Errors: EINVALID (a bad request, a file that does not
// parse, Zotero refusing the key or not knowing the library),
// EUNSUPPORTED (an unknown source), EUPSTREAM (Zotero unreachable).
func (w *Workspace) StartImport(ctx context.Context, req ImportRequest) (_ *Import, err error) {
	defer translate(&err)
	run, err := w.prepareImport(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	snap := run.snapshot()
	runs := w.m.runs
	runs.wg.Go(func() { run.run(runs.ctx) })
	return snap, nil
}

// RunImport is StartImport run in the caller's goroutine: it returns when
// the import is over, with its final state, calling progress (when not
// nil) as items are stored, from several goroutines at once. An import that failed is returned with status
// failed, and no error.
func (w *Workspace) RunImport(ctx context.Context, req ImportRequest, progress func(Import)) (_ *Import, err error) {
	defer translate(&err)
	run, err := w.prepareImport(ctx, req, progress)
	if err != nil {
		return nil, err
	}
	run.run(ctx)
	return run.snapshot(), nil
}

// Import returns the import with the id. Errors: ENOTFOUND.
func (w *Workspace) Import(ctx context.Context, id int64) (_ *Import, err error) {
	defer translate(&err)
	r, err := store.ImportByID(ctx, w.m.db, w.id, id)
	if err != nil {
		return nil, dbError(err, fmt.Sprintf("Import %d does not exist.", id))
	}
	return importOf(r), nil
}

// Imports lists the workspace's imports, newest first, at most limit (0
// means DefaultPaperLimit; at most MaxPaperLimit). Errors: EINVALID.
func (w *Workspace) Imports(ctx context.Context, limit int) (_ []Import, err error) {
	defer translate(&err)
	limit, err = listLimit(limit)
	if err != nil {
		return nil, err
	}
	rows, err := store.Imports(ctx, w.m.db, w.id, limit)
	if err != nil {
		return nil, fmt.Errorf("list imports: %w", err)
	}
	out := make([]Import, 0, len(rows))
	for i := range rows {
		out = append(out, *importOf(&rows[i]))
	}
	return out, nil
}

func importOf(r *store.Import) *Import {
	im := &Import{ID: r.ID, Source: r.Source, Library: r.Library, Status: r.Status, Total: r.Total, Items: r.Items,
		Papers: r.Papers, Documents: r.Documents, Deleted: r.Deleted, Skipped: r.Skipped, Message: r.Message,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if json.Unmarshal([]byte(r.Errors), &im.Errors) != nil || im.Errors == nil {
		im.Errors = []ImportError{}
	}
	return im
}

// source reads one kind of library for an import run.
type source interface {
	// name is the source of the papers it stores (Paper.Source).
	name() string
	// read stores the source's works through r.
	read(ctx context.Context, r *importRun) error
}

// prepareImport checks req and opens its source, then records the import.
func (w *Workspace) prepareImport(ctx context.Context, req ImportRequest, progress func(Import)) (*importRun, error) {
	var src source
	var err error
	switch req.Source {
	case ImportZotero, ImportZoteroLocal:
		src, err = w.zoteroSource(ctx, req)
	default:
		src, err = w.exportSource(req)
	}
	if err != nil {
		return nil, err
	}
	// src's name is "<source>:<library>": the Zotero library or the export
	// file's name, as the source resolved them.
	kind, library, _ := strings.Cut(src.name(), ":")
	now := w.m.nowString()
	row := &store.Import{Source: kind, Library: library, Status: ImportRunning, Errors: "[]", CreatedAt: now, UpdatedAt: now}
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		if err := w.ensureWorkspace(ctx, tx); err != nil {
			return err
		}
		row.ID, err = store.InsertImport(ctx, tx, w.id, row)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &importRun{w: w, src: src, row: importOf(row), progress: progress}, nil
}

// importRun is one import as it runs.
type importRun struct {
	w        *Workspace
	src      source
	progress func(Import)

	mu       sync.Mutex
	row      *Import
	written  time.Time // when the progress was last written
	upstream int       // items that failed at the source (EUPSTREAM), logged once as the import ends
}

// snapshot returns a copy of the import's state.
func (r *importRun) snapshot() *Import {
	r.mu.Lock()
	defer r.mu.Unlock()
	im := *r.row
	im.Errors = slices.Clone(im.Errors)
	if im.Errors == nil {
		im.Errors = []ImportError{}
	}
	return &im
}

// progressEvery is how often a running import writes its progress.
const progressEvery = 500 * time.Millisecond

// update changes the import's counts with fn, then reports and, at most
// every progressEvery, writes them.
func (r *importRun) update(ctx context.Context, fn func(im *Import)) {
	r.mu.Lock()
	fn(r.row)
	due := time.Since(r.written) >= progressEvery
	if due {
		r.written = time.Now()
	}
	r.mu.Unlock()
	if r.progress != nil {
		r.progress(*r.snapshot())
	}
	if due {
		r.write(ctx)
	}
}

// fail records an item that could not be stored.
func (r *importRun) fail(ctx context.Context, item string, err error) {
	code, msg := ErrorCode(err), ErrorMessage(err)
	if code == EINTERNAL {
		r.w.m.log.ErrorContext(ctx, "import item failed", "import", r.row.ID, "item", item, "err", err)
	}
	r.update(ctx, func(im *Import) {
		if code == EUPSTREAM {
			r.upstream++
		}
		if len(im.Errors) < MaxImportErrors {
			im.Errors = append(im.Errors, ImportError{Item: item, Code: code, Message: msg})
		}
	})
}

// write writes the import's state.
func (r *importRun) write(ctx context.Context) {
	im := r.snapshot()
	errs, _ := json.Marshal(im.Errors)
	row := &store.Import{ID: im.ID, Status: im.Status, Total: im.Total, Items: im.Items, Papers: im.Papers,
		Documents: im.Documents, Deleted: im.Deleted, Skipped: im.Skipped, Errors: string(errs), Message: im.Message,
		UpdatedAt: r.w.m.nowString()}
	err := r.w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error { return store.UpdateImport(ctx, tx, r.w.id, row) })
	if err != nil && ctx.Err() == nil {
		r.w.m.log.WarnContext(ctx, "import progress not written", "import", im.ID, "err", err)
	}
}

// run reads the source to the end and records how it ended.
func (r *importRun) run(ctx context.Context) {
	err := r.src.read(ctx, r)
	r.mu.Lock()
	r.row.Status = ImportDone
	switch {
	case ctx.Err() != nil:
		r.row.Status, r.row.Message = ImportFailed, "The import was interrupted: the server stopped or the caller gave up. Importing again resumes it."
	case err != nil:
		r.row.Status, r.row.Message = ImportFailed, ErrorMessage(err)
		switch ErrorCode(err) {
		case EINTERNAL:
			r.w.m.log.ErrorContext(ctx, "import failed", "import", r.row.ID, "err", err)
		case EUPSTREAM:
			r.w.m.log.WarnContext(ctx, "import stopped: the source stopped answering", "import", r.row.ID, "source", r.row.Source,
				"items_failed", r.upstream, "err", err)
		}
	case r.upstream > 0:
		r.w.m.log.WarnContext(ctx, "import done; the source failed some items", "import", r.row.ID, "source", r.row.Source,
			"items_failed", r.upstream)
	}
	r.mu.Unlock()
	if r.progress != nil {
		r.progress(*r.snapshot())
	}
	// The outcome is written even when ctx ended: a background import
	// stopped by Close records that it stopped.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	r.write(wctx)
}

// work is one work of a library, to be stored as a paper.
type work struct {
	key         string // its key in the source
	in          PaperInput
	journal     string // its venue
	abstract    string
	tags        []string
	collections []string
	files       []workFile
}

// workFile is a file attached to a work.
type workFile struct {
	name string // with its extension, which selects its format
	id   string // what identifies its content: a hash, or the source's checksum
	open func(ctx context.Context) (io.ReadCloser, error)
}

// hashes returns the hash of w's metadata and that of its files.
func (wk *work) hashes() (meta, files string) {
	m, _ := json.Marshal([]any{wk.in.DOI, wk.in.Title, wk.in.Authors, wk.in.Year, wk.journal, wk.in.SourceURL,
		wk.abstract, wk.tags, wk.collections})
	var ids []string
	for _, f := range wk.files {
		ids = append(ids, f.name+"\x00"+f.id)
	}
	return hashOf(m), hashOf([]byte(strings.Join(ids, "\x01")))
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:12])
}

// storeWork stores wk as a paper, with its files as its full text, unless
// the same work was imported from the same source before (its hashes
// match): then it counts as skipped. sourced holds the papers the
// source's keys held (PapersOfSource), wk's among them if any.
func (r *importRun) storeWork(ctx context.Context, wk *work, sourced map[string]store.SourcedPaper) error {
	var prev *store.SourcedPaper
	if sp, ok := sourced[wk.key]; ok {
		prev = &sp
	}
	meta, files := wk.hashes()
	hash := meta + "." + files
	if prev != nil && prev.Hash == hash {
		r.update(ctx, func(im *Import) { im.Skipped++ })
		return nil
	}
	filesChanged := prev == nil || !strings.HasSuffix(prev.Hash, "."+files)
	in := wk.in
	filing := &store.Filing{Source: r.src.name(), Key: wk.key, Tags: wk.tags, Collections: wk.collections}
	if len(wk.files) == 0 {
		in.Text, filing.Hash = wk.abstract, hash
	}
	p, _, err := r.w.storePaperInput(ctx, in, filed{journal: wk.journal, filing: filing})
	if err != nil {
		return err
	}
	if prev != nil && prev.DOI != p.DOI {
		// The item's DOI (or, without one, its title) changed: its old paper goes.
		if err := r.w.DeletePaper(ctx, prev.DOI); err != nil && ErrorCode(err) != ENOTFOUND {
			return err
		}
	}
	if len(wk.files) > 0 {
		if filesChanged || (prev != nil && prev.DOI != p.DOI) {
			for _, f := range wk.files {
				if err := r.ingestFile(ctx, p.DOI, f); err != nil {
					return fmt.Errorf("%s: %w", f.name, err)
				}
				r.update(ctx, func(im *Import) { im.Documents++ })
			}
		}
		filing.Hash = hash
		err := r.w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error { return tx.FilePaper(ctx, r.w.id, p.DOI, filing) })
		if err != nil {
			return err
		}
	}
	r.update(ctx, func(im *Import) { im.Papers++ })
	return nil
}

// ingestFile ingests f as the full text of the paper doi.
func (r *importRun) ingestFile(ctx context.Context, doi string, f workFile) error {
	rc, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = r.w.ingest(ctx, f.name, rc, IngestOptions{DOI: doi}, true)
	translate(&err)
	return err
}

// importWorkers is how many works an import stores at once.
const importWorkers = 4

// A Zotero import's requests wait at most zoteroHeaderTimeout for an
// answer to begin (a file's download, once begun, has five minutes), and
// the import stops once zoteroDownAfter items in a row failed at Zotero.
const (
	zoteroHeaderTimeout = 30 * time.Second
	zoteroDownAfter     = 10
)

// each runs fn on every index below n with importWorkers goroutines,
// until ctx ends.
func each(ctx context.Context, n int, fn func(i int)) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(importWorkers, n) {
		wg.Go(func() {
			for i := range jobs {
				fn(i)
			}
		})
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// exportFile is an export file being imported.
type exportFile struct {
	format  bibfile.Format
	file    string // its name
	entries []bibfile.Entry
	dir     *os.Root // the folder of its attached files; nil: none are read
	dirPath string
	maxSize int64
}

// exportSource parses req's export file. Errors: EINVALID, EUNSUPPORTED.
func (w *Workspace) exportSource(req ImportRequest) (*exportFile, error) {
	name := filepath.Base(strings.TrimSpace(req.Name))
	f, ok := bibfile.FormatOf(name)
	if req.Source != "" {
		f, ok = bibfile.Format(req.Source), slices.Contains([]string{ImportBibTeX, ImportRIS, ImportCSLJSON, ImportManifest}, req.Source)
	}
	if !ok {
		return nil, Errorf(EUNSUPPORTED, "Cannot import %q: the sources are zotero, zotero-local, and export files .bib, .ris, .json (CSL-JSON) and .csv (a file,doi,title manifest).", cmpOr(req.Source, name))
	}
	if name == "." || name == "" {
		name = "export." + string(f)
	}
	es, err := bibfile.Parse(f, bytes.NewReader(req.Data))
	if err != nil {
		return nil, Errorf(EINVALID, "Cannot read %s: %v.", name, err)
	}
	x := &exportFile{format: f, file: name, entries: es, maxSize: w.m.maxIngestBytes}
	if req.Dir != "" {
		abs, err := filepath.Abs(req.Dir)
		if err == nil {
			x.dir, err = os.OpenRoot(abs)
		}
		if err != nil {
			return nil, Errorf(EINVALID, "Cannot open the export's folder %s: %v.", req.Dir, err)
		}
		x.dirPath = abs
	}
	return x, nil
}

func (x *exportFile) name() string { return string(x.format) + ":" + x.file }

func (x *exportFile) read(ctx context.Context, r *importRun) error {
	if x.dir != nil {
		defer x.dir.Close()
	}
	r.update(ctx, func(im *Import) { im.Total = len(x.entries) })
	keys := make([]string, len(x.entries))
	seen := map[string]int{}
	for i, e := range x.entries {
		k := cmpOr(e.Key, cmpOr(e.DOI, "title:"+strings.ToLower(e.Title)))
		if seen[k]++; seen[k] > 1 {
			k = fmt.Sprintf("%s#%d", k, seen[k])
		}
		keys[i] = k
	}
	prev, err := store.PapersOfSource(ctx, r.w.m.db, r.w.id, x.name(), keys)
	if err != nil {
		return err
	}
	each(ctx, len(x.entries), func(i int) {
		e := &x.entries[i]
		r.update(ctx, func(im *Import) { im.Items++ })
		wk, err := x.work(keys[i], e)
		if err == nil {
			err = r.storeWork(ctx, wk, prev)
		}
		if err != nil {
			r.fail(ctx, keys[i], err)
		}
	})
	return ctx.Err()
}

// work makes the work of entry e, reading its attached files (those in a
// format IngestFile reads) to hash them.
func (x *exportFile) work(key string, e *bibfile.Entry) (*work, error) {
	wk := &work{key: key, in: PaperInput{DOI: e.DOI, Title: e.Title, Authors: e.Authors, Year: e.Year, SourceURL: e.URL},
		journal: e.Venue, abstract: e.Abstract, tags: e.Tags}
	if wk.in.DOI != "" && NormalizeDOI(wk.in.DOI) == "" {
		wk.in.DOI = FindDOI(wk.in.DOI) // "https://doi.org/…" forms, or one DOI of a list
	}
	if wk.in.Year < 0 || wk.in.Year > 9999 {
		wk.in.Year = 0
	}
	if x.dir == nil {
		return wk, nil
	}
	for _, path := range e.Files {
		if _, ok := extract.FormatFor(path); !ok {
			continue // a snapshot, an image: not a text papermem reads
		}
		b, err := x.readFile(path)
		if err != nil {
			return nil, err
		}
		wk.files = append(wk.files, workFile{name: filepath.Base(filepath.FromSlash(strings.ReplaceAll(path, `\`, "/"))), id: hashOf(b),
			open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }})
	}
	return wk, nil
}

// readFile reads an attached file, relative to the export's folder (an
// absolute path must lie inside it). Errors: EINVALID for a path outside
// the folder, ENOTFOUND for a missing file, ETOOLARGE.
func (x *exportFile) readFile(path string) ([]byte, error) {
	p := filepath.FromSlash(strings.ReplaceAll(path, `\`, "/"))
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(x.dirPath, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, Errorf(EINVALID, "%s is outside the export's folder: only files inside it are read.", path)
		}
		p = rel
	}
	f, err := x.dir.Open(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, Errorf(ENOTFOUND, "%s is not in the export's folder.", path)
	case err != nil:
		return nil, Errorf(EINVALID, "%s cannot be read from the export's folder: %v.", path, trimRootErr(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, x.maxSize+1))
	if err != nil {
		return nil, Errorf(EINVALID, "%s cannot be read: %v.", path, trimRootErr(err))
	}
	if int64(len(b)) > x.maxSize {
		return nil, Errorf(ETOOLARGE, "%s is larger than the maximum file size.", path)
	}
	return b, nil
}

// trimRootErr drops the path of an os.Root error: the message names the
// file already.
func trimRootErr(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}

// zoteroLibrary is a Zotero library being imported.
type zoteroLibrary struct {
	c       *zotero.Client
	source  string // zotero:users/4242 or zotero-local:users/0
	version string // the key of its version in library_versions
	since   int64  // the version the last complete import reached

	unchanged bool // the library has not changed since since
}

// zoteroSource opens req's Zotero library and asks it once (with the
// version of the last import) so that a wrong key fails here.
func (w *Workspace) zoteroSource(ctx context.Context, req ImportRequest) (*zoteroLibrary, error) {
	zo := w.m.zotero
	local := req.Source == ImportZoteroLocal
	base := cmpOr(zo.URL, DefaultZoteroURL)
	if local {
		base = cmpOr(zo.LocalURL, DefaultZoteroLocalURL)
	} else if strings.TrimSpace(req.APIKey) == "" {
		return nil, Errorf(EINVALID, "A Zotero web API import needs api_key: a key with read access to the library (zotero.org/settings/keys).")
	}
	var trusted []string
	for _, u := range []string{cmpOr(zo.URL, DefaultZoteroURL), cmpOr(zo.LocalURL, DefaultZoteroLocalURL)} {
		if h := hostPort(u); h != "" {
			trusted = append(trusted, h)
		}
	}
	f := fetch.New(fetch.Options{Timeout: 5 * time.Minute, HeaderTimeout: zoteroHeaderTimeout, AllowPrivate: zo.AllowPrivate, Trusted: trusted})
	c, err := zotero.New(zotero.Options{URL: base, Library: req.Library, Key: strings.TrimSpace(req.APIKey), Local: local,
		Client: f.Client(), MaxFileBytes: w.m.maxIngestBytes})
	if errors.Is(err, zotero.ErrLibrary) {
		return nil, Errorf(EINVALID, "library must be \"users/<id>\" or \"groups/<id>\", not %q.", req.Library)
	}
	if err != nil {
		return nil, Errorf(EINVALID, "The Zotero URL cannot be used: %v.", err)
	}
	lib := c.Library()
	z := &zoteroLibrary{c: c, source: req.Source + ":" + lib, version: req.Source + ":" + c.URL()}
	if z.since, err = store.LibraryVersion(ctx, w.m.db, w.id, z.version); err != nil {
		return nil, err
	}
	if z.unchanged, err = c.Check(ctx, z.since); err != nil {
		return nil, zoteroError(err, lib, local)
	}
	return z, nil
}

// zoteroError says what a failed first request of a Zotero import means.
func zoteroError(err error, lib string, local bool) error {
	switch {
	case zotero.Forbidden(err):
		return &Error{Code: EINVALID, Message: fmt.Sprintf("Zotero refused the API key for %s: check the key and that it may read this library.", lib), Err: err}
	case zotero.NotFound(err):
		return &Error{Code: EINVALID, Message: fmt.Sprintf("Zotero has no library %s.", lib), Err: err}
	case local:
		return &Error{Code: EUPSTREAM, Message: "Zotero desktop's local API does not answer: start Zotero 7 and tick \"Allow other applications on this computer to communicate with Zotero\" (Settings → Advanced).", Err: err}
	}
	return &Error{Code: EUPSTREAM, Message: "The Zotero API did not answer: " + err.Error(), Err: err}
}

// upstream is an error of the Zotero API, or of reaching it: EUPSTREAM,
// with the client's message (which never holds the key). A canceled
// context passes through.
func upstream(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, zotero.ErrFileTooLarge) {
		return &Error{Code: ETOOLARGE, Message: "The attachment is larger than the maximum file size.", Err: err}
	}
	return &Error{Code: EUPSTREAM, Message: err.Error(), Err: err}
}

// hostPort returns a URL's host:port, the port made explicit, as the
// fetch guard names trusted hosts; "" for a bad URL.
func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(net.JoinHostPort(u.Hostname(), port))
}

func (z *zoteroLibrary) name() string { return z.source }

func (z *zoteroLibrary) read(ctx context.Context, r *importRun) error {
	if z.unchanged {
		return nil
	}
	var items []zotero.Item
	ver, notModified, err := z.c.Items(ctx, z.since, func(p zotero.Page) error {
		items = append(items, p.Items...)
		r.update(ctx, func(im *Import) {
			if p.Total >= 0 {
				im.Total = p.Total
			}
			im.Items += len(p.Items)
		})
		return nil
	})
	if err != nil {
		return upstream(err)
	}
	if notModified {
		return nil
	}
	if z.since > 0 {
		keys, err := z.c.Deleted(ctx, z.since)
		if err != nil {
			return upstream(err)
		}
		gone, err := store.PapersOfSource(ctx, r.w.m.db, r.w.id, z.source, keys)
		if err != nil {
			return err
		}
		for key, p := range gone {
			if err := r.w.DeletePaper(ctx, p.DOI); err != nil && ErrorCode(err) != ENOTFOUND {
				r.fail(ctx, key, err)
				continue
			}
			r.update(ctx, func(im *Import) { im.Deleted++ })
		}
	}
	// The works: the regular items read, and the parents of attachments
	// changed without them.
	var works []zotero.Item
	have := map[string]bool{}
	var parents []string
	for _, it := range items {
		if it.Regular() && !it.Trashed() {
			works = append(works, it)
			have[it.Key] = true
		}
	}
	skipped := len(items) - len(works)
	for _, it := range items {
		if p := it.Data.ParentItem; it.PDF() && p != "" && !have[p] {
			have[p] = true
			parents = append(parents, p)
		}
	}
	if len(parents) > 0 {
		more, err := z.c.ItemsByKey(ctx, parents)
		if err != nil {
			return upstream(err)
		}
		for _, it := range more {
			if it.Regular() && !it.Trashed() {
				works = append(works, it)
			}
		}
	}
	r.update(ctx, func(im *Import) { im.Skipped += skipped })
	keys := make([]string, len(works))
	for i, it := range works {
		keys[i] = it.Key
	}
	prev, err := store.PapersOfSource(ctx, r.w.m.db, r.w.id, z.source, keys)
	if err != nil {
		return err
	}
	// Zotero failing zoteroDownAfter items in a row, with none stored
	// between, has stopped answering: the import stops there instead of
	// failing every item left, each after its own wait.
	ictx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	names := sync.OnceValues(func() (map[string]string, error) { return z.c.Collections(ictx) })
	var failed atomic.Bool
	var inRow atomic.Int64
	each(ictx, len(works), func(i int) {
		it := &works[i]
		wk, err := z.work(ictx, it, names)
		if err == nil {
			err = r.storeWork(ictx, wk, prev)
		}
		switch {
		case err == nil:
			inRow.Store(0)
		case ictx.Err() != nil && ctx.Err() == nil:
			// Cut short by the stop below: not the item's failure.
		default:
			failed.Store(true)
			r.fail(ctx, it.Key, err)
			if ErrorCode(err) != EUPSTREAM {
				inRow.Store(0)
			} else if inRow.Add(1) >= zoteroDownAfter {
				stop(err)
			}
		}
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if cause := context.Cause(ictx); cause != nil && !errors.Is(cause, context.Canceled) {
		return &Error{Code: EUPSTREAM, Err: cause, Message: fmt.Sprintf("Zotero stopped answering: %d items in a row failed (%s). "+
			"What was stored stays; importing again resumes the import.", zoteroDownAfter, ErrorMessage(cause))}
	}
	if failed.Load() {
		return nil // the version stays: the next import reads the failed items again
	}
	return r.w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		return store.SetLibraryVersion(ctx, tx, r.w.id, z.version, ver, r.w.m.nowString())
	})
}

// work makes the work of a regular item, its PDF attachments among its
// files (read from the API when stored).
func (z *zoteroLibrary) work(ctx context.Context, it *zotero.Item, names func() (map[string]string, error)) (*work, error) {
	wk := &work{key: it.Key, in: PaperInput{DOI: it.DOI(), Title: it.Data.Title, Authors: it.Authors(), Year: it.Year(),
		SourceURL: it.Data.URL}, journal: it.Venue(), abstract: it.Data.AbstractNote, tags: it.TagNames()}
	if wk.in.DOI != "" && NormalizeDOI(wk.in.DOI) == "" {
		wk.in.DOI = FindDOI(wk.in.DOI)
	}
	if len(it.Data.Collections) > 0 {
		byKey, err := names()
		if err != nil {
			return nil, upstream(err)
		}
		for _, k := range it.Data.Collections {
			if n := byKey[k]; n != "" {
				wk.collections = append(wk.collections, n)
			}
		}
	}
	if it.Meta.NumChildren != nil && *it.Meta.NumChildren == 0 {
		return wk, nil
	}
	children, err := z.c.Children(ctx, it.Key)
	if err != nil {
		return nil, upstream(err)
	}
	slices.SortFunc(children, func(a, b zotero.Item) int { return strings.Compare(a.Key, b.Key) })
	for _, ch := range children {
		if !ch.PDF() || ch.Trashed() {
			continue
		}
		id := ch.MD5()
		if id == "" {
			id = fmt.Sprintf("v%d", ch.Version)
		}
		key := ch.Key
		name := cmpOr(filepath.Base(ch.Data.Filename), key+".pdf")
		if !strings.HasSuffix(strings.ToLower(name), ".pdf") {
			name += ".pdf"
		}
		wk.files = append(wk.files, workFile{name: name, id: id, open: func(ctx context.Context) (io.ReadCloser, error) {
			rc, err := z.c.File(ctx, key)
			return rc, upstream(err)
		}})
	}
	return wk, nil
}
