package httpapi_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
	"github.com/papermem/papermem/httpapi"
	"github.com/papermem/papermem/internal/testenv"
)

// fixtures holds small hand-made files.
const fixtures = "../testdata/extract"

// part is one part of a multipart form: a file when filename is set.
type part struct {
	name, filename string
	data           []byte
}

func filePart(t *testing.T, path string) part {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return part{name: "file", filename: filepath.Base(path), data: b}
}

func field(name, value string) part { return part{name: name, data: []byte(value)} }

// upload posts parts as multipart/form-data to /v1/ingest.
func (e *env) upload(hdr []string, parts ...part) resp {
	e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.filename != "" {
			w, err = mw.CreateFormFile(p.name, p.filename)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			e.t.Fatal(err)
		}
		w.Write(p.data)
	}
	if err := mw.Close(); err != nil {
		e.t.Fatal(err)
	}
	return e.post("/v1/ingest", mw.FormDataContentType(), &body, hdr)
}

// post sends a raw body with a content type.
func (e *env) post(path, ctype string, body io.Reader, hdr []string) resp {
	e.t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	return e.send(req, hdr)
}

// recallSpans posts a recall and returns its spans.
func recallSpans(t *testing.T, e *env, hdr []string, question string) []papermem.Span {
	t.Helper()
	r := e.do("POST", "/v1/recall", map[string]any{"question": question, "label": "Any"}, hdr...)
	want(t, r, http.StatusOK, "")
	var res papermem.RecallResult
	r.json(t, &res)
	return res.Spans
}

func TestIngest(t *testing.T) {
	const limit = 200 << 10
	e := newEnv(t, httpapi.Config{}, &papermem.Options{MaxIngestBytes: limit})
	a := e.signup("ada@example.org", "lab-one")
	b := e.signup("bob@example.org", "lab-two")

	t.Run("Formats", func(t *testing.T) {
		r := e.do("GET", "/v1/ingest/formats", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var got struct {
			Formats      []papermem.IngestFormat `json:"formats"`
			MaxFileBytes int64                   `json:"max_file_bytes"`
		}
		r.json(t, &got)
		if diff := cmp.Diff(papermem.IngestFormats(), got.Formats); diff != "" || got.MaxFileBytes != limit {
			t.Errorf("max_file_bytes %d, formats (-want +got):\n%s", got.MaxFileBytes, diff)
		}
		if len(got.Formats) != 7 || got.Formats[0].Format != "markdown" || got.Formats[0].Extensions[0] != ".md" {
			t.Errorf("formats %s", r.body)
		}
		want(t, e.do("GET", "/v1/ingest/formats", nil), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("Document", func(t *testing.T) {
		r := e.upload(a.auth(), field("domain", "glaciology"), filePart(t, filepath.Join(fixtures, "sample.xlsx")))
		want(t, r, http.StatusCreated, "")
		var rep papermem.IngestReport
		r.json(t, &rep)
		if rep.Kind != "document" || !strings.HasPrefix(rep.DocID, "doc:") || rep.Format != "xlsx" || rep.Rows == 0 || rep.NodesStored == 0 {
			t.Fatalf("report %s", r.body)
		}
		for _, s := range recallSpans(t, e, a.auth(), "Station Vernagtferner altitude 3180") {
			if s.Provenance.Source == "sample.xlsx" && strings.Contains(s.Text, "Station: Vernagtferner") {
				p := s.Provenance
				if p.Kind != "document" || p.Sheet != "Stations" || p.Row != 2 || p.Title != "Alpine glacier survey" {
					t.Errorf("provenance %+v", p)
				}
				return
			}
		}
		t.Error("the uploaded row was not recalled")
	})
	t.Run("PaperFieldsAfterFile", func(t *testing.T) {
		const doi = "10.1000/http-glacier"
		r := e.upload(a.auth(), filePart(t, filepath.Join(fixtures, "sample.pdf")), field("doi", doi), field("title", "Alps melt"))
		want(t, r, http.StatusCreated, "")
		var rep papermem.IngestReport
		r.json(t, &rep)
		if rep.Kind != "paper" || rep.DocID != doi || rep.Pages != 2 {
			t.Fatalf("report %s", r.body)
		}
		r = e.do("GET", "/v1/papers/"+doi+"/exists", nil, a.auth()...)
		if strings.TrimSpace(string(r.body)) != `{"exists":true}` {
			t.Errorf("exists: %s", r.body)
		}
		for _, s := range recallSpans(t, e, a.auth(), "average loss per year glacier") {
			if s.Provenance.DOI == doi && s.Provenance.Page == 1 && s.Provenance.Title == "Alps melt" {
				return
			}
		}
		t.Error("no span of the paper from page 1")
	})
	t.Run("Tenancy", func(t *testing.T) {
		for _, s := range recallSpans(t, e, b.auth(), "Station Vernagtferner altitude 3180 average loss per year glacier") {
			t.Errorf("workspace lab-two recalled %+v", s)
		}
		r := e.do("GET", "/v1/papers/10.1000/http-glacier/exists", nil, b.auth()...)
		if strings.TrimSpace(string(r.body)) != `{"exists":false}` {
			t.Errorf("exists in lab-two: %s", r.body)
		}
	})
	t.Run("ErrUnsupported", func(t *testing.T) {
		r := e.upload(a.auth(), part{name: "file", filename: "setup.exe", data: []byte("MZ")})
		want(t, r, http.StatusUnsupportedMediaType, "unsupported_format")
	})
	t.Run("ErrTooLarge", func(t *testing.T) {
		// Just over the limit: refused by the reader of the file.
		r := e.upload(a.auth(), part{name: "file", filename: "big.txt", data: bytes.Repeat([]byte("ice "), limit/4+1)})
		want(t, r, http.StatusRequestEntityTooLarge, "payload_too_large")
		// Far over: the body is cut off while the form is read.
		r = e.upload(a.auth(), part{name: "file", filename: "huge.txt", data: bytes.Repeat([]byte("ice "), 4*limit)})
		want(t, r, http.StatusRequestEntityTooLarge, "payload_too_large")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		r := e.upload(a.auth(), part{name: "file", filename: "broken.pdf", data: []byte("%PDF-1.7\n1 0 obj << >> endobj\n%%EOF")})
		want(t, r, http.StatusBadRequest, "invalid_input")
		if !strings.Contains(string(r.body), "pdf: ") {
			t.Errorf("no parser reason: %s", r.body)
		}
		want(t, e.upload(a.auth(), part{name: "file", filename: "empty.md"}), http.StatusBadRequest, "invalid_input")
		want(t, e.upload(a.auth(), field("domain", "x")), http.StatusBadRequest, "invalid_input")
		want(t, e.upload(a.auth(), field("file", "no filename")), http.StatusBadRequest, "invalid_input")
		want(t, e.upload(a.auth(), part{name: "file", filename: "a.md", data: []byte("# A")}, part{name: "file", filename: "b.md", data: []byte("# B")}),
			http.StatusBadRequest, "invalid_input")
		want(t, e.upload(a.auth(), field("doi", "not-a-doi"), part{name: "file", filename: "a.md", data: []byte("# A\nText.")}),
			http.StatusBadRequest, "invalid_input")
		want(t, e.do("POST", "/v1/ingest", map[string]any{"file": "x"}, a.auth()...), http.StatusBadRequest, "invalid_input")
		want(t, e.post("/v1/ingest", "multipart/form-data", strings.NewReader("x"), a.auth()), http.StatusBadRequest, "invalid_input")
		want(t, e.post("/v1/ingest", "multipart/form-data; boundary=zz", strings.NewReader("--zz\r\nbroken"), a.auth()), http.StatusBadRequest, "invalid_input")
	})
	t.Run("NothingStoredOnFailure", func(t *testing.T) {
		r := e.do("GET", "/v1/analytics", nil, a.auth()...)
		want(t, r, http.StatusOK, "")
		var an hosted.Analytics
		r.json(t, &an)
		if an.Memory.Documents != 1 || an.Memory.Papers != 1 {
			t.Errorf("memory %+v: want the one document and the one paper uploaded", an.Memory)
		}
	})
	t.Run("Testdocs", func(t *testing.T) {
		path := filepath.Join("..", testdocsDir, "docx", "docling-word_sample.docx")
		if _, err := os.Stat(path); err != nil {
			testenv.Need(t, "../shared/testdocs", err)
		}
		r := e.upload(a.auth(), filePart(t, path))
		want(t, r, http.StatusCreated, "")
		for _, s := range recallSpans(t, e, a.auth(), "a respectful duck could eat") {
			if s.Provenance.Source == "docling-word_sample.docx" && strings.Contains(s.Provenance.Section, "Let’s eat") {
				return
			}
		}
		t.Error("the docx section was not recalled")
	})
}

// testdocsDir is the shared test documents, relative to the repository.
const testdocsDir = "../shared/testdocs"
