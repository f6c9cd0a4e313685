package httpapi

import (
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/papermem/papermem"
)

// pathValue returns path variable name, percent-decoded (the router matches
// the encoded path so that %2F in a DOI stays inside the variable).
func pathValue(r *http.Request, name string) (string, error) {
	v, err := url.PathUnescape(mux.Vars(r)[name])
	if err != nil {
		return "", papermem.Errorf(papermem.EINVALID, "The %s in the path is not validly percent-encoded.", name)
	}
	return v, nil
}

var recallPapersOp = op{tag: "papers", summary: "Rank the workspace's papers for a query",
	query: []param{
		{name: "q", typ: "string", required: true, doc: "the query; missing or blank is 400"},
		{name: "limit", typ: "integer", doc: "most papers returned, 1..100; default 20"},
	},
	resp:  []papermem.Paper{},
	notes: "A JSON array of papers, best first, each DOI once, with score (the best score among the paper's title and abstract, passages and claims, plus 0.035 of the others' scores) and cached (its full text is in memory)."}

func (s *server) handleRecallPapers(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	req := papermem.PaperRecallRequest{Query: q.Get("q")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > papermem.MaxPaperLimit {
			return papermem.Errorf(papermem.EINVALID, "limit must be an integer between 1 and %d.", papermem.MaxPaperLimit)
		}
		req.Limit = n
	}
	papers, err := s.workspace(r).RecallPapers(r.Context(), req)
	if err != nil {
		return err
	}
	if papers == nil {
		papers = []papermem.Paper{}
	}
	return writeJSON(w, http.StatusOK, papers)
}

// existsResponse says whether a paper is in memory.
type existsResponse struct {
	Exists bool `json:"exists"`
}

var paperExistsOp = op{tag: "papers", summary: "Whether the workspace holds a paper", resp: existsResponse{},
	notes: "A malformed DOI is 400; a DOI of another workspace is {exists:false}."}

func (s *server) handlePaperExists(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	ok, err := s.workspace(r).PaperExists(r.Context(), doi)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, existsResponse{Exists: ok})
}

// paperRequest is a paper to store.
type paperRequest struct {
	DOI       *string  `json:"doi" doc:"the DOI; null or absent: found in source_url or the text, else a stable local:<hash> id from the title or source_url"`
	Title     string   `json:"title" doc:"default empty"`
	Text      string   `json:"text" doc:"full text (plain or Markdown); default empty. With text the paper is cached"`
	Authors   []string `json:"authors" doc:"default []"`
	Year      *int     `json:"year" doc:"publication year, 0..9999"`
	OA        bool     `json:"oa" doc:"open access; default false"`
	SourceURL *string  `json:"source_url" doc:"where the full text can be fetched (POST /v1/papers/{doi}/fetch)"`
	Domain    string   `json:"domain" doc:"topic area, used to filter recall"`
}

func (p *paperRequest) toLibrary() papermem.PaperInput {
	in := papermem.PaperInput{Title: p.Title, Text: p.Text, Authors: p.Authors, OA: p.OA, Domain: p.Domain}
	if p.DOI != nil {
		in.DOI = *p.DOI
	}
	if p.Year != nil {
		in.Year = *p.Year
	}
	if p.SourceURL != nil {
		in.SourceURL = *p.SourceURL
	}
	return in
}

// storePaperResponse is the stored paper with its ingest report.
type storePaperResponse struct {
	papermem.Paper
	Report *papermem.IngestReport `json:"report"`
}

var storePaperOp = op{tag: "papers", summary: "Store or update a paper", req: paperRequest{},
	resp: storePaperResponse{}, status: http.StatusCreated,
	notes: "Re-posting a DOI updates the paper in place (fields left empty keep their values); nothing is duplicated. None of doi, title, source_url is 400. The title, abstract, passages and claims are indexed for recall."}

func (s *server) handleStorePaper(w http.ResponseWriter, r *http.Request) error {
	var req paperRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	p, rep, err := s.workspace(r).StorePaper(r.Context(), req.toLibrary())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, storePaperResponse{Paper: *p, Report: rep})
}

// maxBatchPapers bounds one batch request.
const maxBatchPapers = 1000

// batchRequest is a list of papers to store.
type batchRequest struct {
	Papers []paperRequest `json:"papers" required:"true" doc:"1 to 1000 papers, each as in POST /v1/papers"`
}

// batchError is one paper that failed.
type batchError struct {
	Index int    `json:"index" doc:"position of the paper in the request"`
	Code  string `json:"code" doc:"the error code it would have had alone"`
	Error string `json:"error" doc:"why it failed"`
}

// batchReport sums the ingest reports of a batch.
type batchReport struct {
	Ingested    int          `json:"ingested" doc:"papers stored"`
	Failed      int          `json:"failed" doc:"papers refused"`
	Errors      []batchError `json:"errors" doc:"one entry per refused paper, by index"`
	DOIs        []string     `json:"dois" doc:"keys of the stored papers, in request order"`
	CharsRead   int          `json:"chars_read"`
	Sections    int          `json:"sections"`
	NodesStored int          `json:"nodes_stored"`
	ClaimsFound int          `json:"claims_found"`
	ElapsedMS   int64        `json:"elapsed_ms"`
}

var storePapersOp = op{tag: "papers", summary: "Store many papers with a worker pool", req: batchRequest{}, resp: batchReport{},
	notes: "Papers are stored independently by a bounded pool of workers: one refused paper does not stop the others and is reported in errors (the answer is still 200). An empty or missing list, or more than 1000 papers, is 400."}

// batchWorkers bounds the concurrency of a batch.
var batchWorkers = min(runtime.GOMAXPROCS(0), 8)

func (s *server) handleStorePapers(w http.ResponseWriter, r *http.Request) error {
	var req batchRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if len(req.Papers) == 0 || len(req.Papers) > maxBatchPapers {
		return papermem.Errorf(papermem.EINVALID, "papers must hold 1 to %d papers.", maxBatchPapers)
	}
	start := time.Now()
	ws := s.workspace(r)
	type result struct {
		doi string
		rep *papermem.IngestReport
		err error
	}
	results := make([]result, len(req.Papers))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(batchWorkers, len(req.Papers)) {
		wg.Go(func() {
			for i := range jobs {
				p, rep, err := ws.StorePaper(r.Context(), req.Papers[i].toLibrary())
				if err == nil {
					results[i] = result{doi: p.DOI, rep: rep}
				} else {
					results[i] = result{err: err}
				}
			}
		})
	}
	for i := range req.Papers {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	out := batchReport{Errors: []batchError{}, DOIs: []string{}}
	for i, res := range results {
		if res.err != nil {
			_, code := statusOf(res.err)
			if code == "internal" {
				s.log.ErrorContext(r.Context(), "batch paper failed", keyErr, res.err)
			}
			out.Failed++
			out.Errors = append(out.Errors, batchError{Index: i, Code: code, Error: papermem.ErrorMessage(res.err)})
			continue
		}
		out.Ingested++
		out.DOIs = append(out.DOIs, res.doi)
		out.CharsRead += res.rep.CharsRead
		out.Sections += res.rep.Sections
		out.NodesStored += res.rep.NodesStored
		out.ClaimsFound += res.rep.ClaimsFound
	}
	out.ElapsedMS = time.Since(start).Milliseconds()
	return writeJSON(w, http.StatusOK, out)
}

var fetchPaperOp = op{tag: "papers", summary: "Make sure a paper's full text is in memory, cache first",
	resp: papermem.FetchResult{}, errs: []int{http.StatusNotFound, http.StatusBadGateway},
	notes: "Text in memory: {warm:true, source:memory, bytes, bytes_saved:bytes}. Paper known, not cached, with a source_url: downloaded (timeout, size cap, no loopback/private/link-local addresses unless PAPERMEM_FETCH_ALLOW_PRIVATE=1), ingested, {warm:false, source:origin, bytes_saved:0}. Unknown paper, or no text and no source_url: 404. Origin failure: 502 upstream_failed."}

func (s *server) handleFetchPaper(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	res, err := s.workspace(r).FetchPaper(r.Context(), doi)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// deletedResponse names what was deleted.
type deletedResponse struct {
	Deleted string `json:"deleted"`
}

var deletePaperOp = op{tag: "papers", summary: "Remove a paper, its passages, claims and analysis from every index",
	resp: deletedResponse{}, errs: []int{http.StatusNotFound},
	notes: "Answers {deleted: <normalised doi>}; nothing of the paper is recalled afterwards. Unknown DOI: 404."}

func (s *server) handleDeletePaper(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	if err := s.workspace(r).DeletePaper(r.Context(), doi); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, deletedResponse{Deleted: papermem.NormalizeDOI(doi)})
}
