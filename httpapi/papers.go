package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
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
		{name: "dois", typ: "string", doc: "repeatable: rank only these papers (at most 100)"},
		{name: "tags", typ: "string", doc: "repeatable: rank only the papers with one of these tags"},
		{name: "collections", typ: "string", doc: "repeatable: rank only the papers in one of these collections"},
		{name: "fill", typ: "boolean", doc: "true: up to limit papers; default false: the list ends before a paper scoring under " + fmt.Sprint(papermem.SourceStopRatio) + " times the best sound (not retracted) paper"},
	},
	resp:  []papermem.Paper{},
	notes: "A JSON array of papers, best first, each DOI once, ranked by their title and abstract, with cached (its full text is in memory) and score, on the scale of /v1/recall's: the list may be shorter than limit, or empty. " + scoreNote}

func (s *server) handleRecallPapers(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	req := papermem.PaperRecallRequest{Query: q.Get("q"), DOIs: q["dois"], Tags: q["tags"], Collections: q["collections"]}
	n, err := limitOf(r, papermem.MaxPaperLimit)
	if err != nil {
		return err
	}
	req.Limit = n
	if req.Fill, err = boolOf(r, "fill"); err != nil {
		return err
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

var paperExistsOp = op{tag: "papers", summary: "Whether the workspace holds a paper", resp: api.ExistsResponse{},
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
	return writeJSON(w, http.StatusOK, api.ExistsResponse{Exists: ok})
}

var storePaperOp = op{tag: "papers", summary: "Store or update a paper", req: api.PaperRequest{},
	resp: api.StorePaperResponse{}, status: http.StatusCreated,
	notes: "Re-posting a DOI updates the paper in place (fields left empty keep their values); nothing is duplicated. None of doi, title, source_url is 400. The title, abstract, passages and claims are indexed for recall. " +
		"With the origins on (PAPERMEM_ORIGINS, default on), a paper with its title or text never waits for them: it is stored and recallable at once with metadata:pending, and a background job (a durable queue in the database) fills what it lacks (title, authors, year, journal, type, oa) from Crossref (OpenAlex when Crossref does not know it) and Unpaywall, and sets retracted/notices from Crossref's updated-by notices and OpenAlex's is_retracted, then metadata:complete (unavailable if they keep failing; GET /v1/papers/{doi} shows it). " +
		"Only what cannot be stored without an origin waits, within PAPERMEM_ORIGIN_DEADLINE (default 5s): a DOI alone (no title, no text) is filled before it is stored, and answers 502 upstream_failed, nothing stored, when no origin answered in time (a DOI no origin knows is stored as given); a title alone (no DOI in the body, source_url or text) is matched at Crossref (accepted when the best hit's score is at least 20 and its title's word-set Dice similarity at least 0.8; else, or when Crossref does not answer in time, local:<hash>). A paper with text and no DOI gets local:<hash> at once. Answers are cached a day; refresh:true makes the job ask again."}

func (s *server) handleStorePaper(w http.ResponseWriter, r *http.Request) error {
	var req api.PaperRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	p, rep, err := s.workspace(r).StorePaper(r.Context(), req.Input())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, api.StorePaperResponse{Paper: *p, Report: rep})
}

// maxBatchPapers bounds one batch request.
const maxBatchPapers = 1000

var storePapersOp = op{tag: "papers", summary: "Store many papers with a worker pool", req: api.BatchRequest{}, resp: api.BatchReport{},
	notes: "Papers are stored independently by a bounded pool of workers: one refused paper does not stop the others and is reported in errors (the answer is still 200). An empty or missing list, or more than 1000 papers, is 400."}

// batchWorkers bounds the concurrency of a batch.
var batchWorkers = min(runtime.GOMAXPROCS(0), 8)

func (s *server) handleStorePapers(w http.ResponseWriter, r *http.Request) error {
	var req api.BatchRequest
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
				p, rep, err := ws.StorePaper(r.Context(), req.Papers[i].Input())
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
	out := api.BatchReport{Errors: []api.BatchError{}, DOIs: []string{}}
	for i, res := range results {
		if res.err != nil {
			_, code := statusOf(res.err)
			if code == "internal" {
				s.log.ErrorContext(r.Context(), "batch paper failed", keyErr, res.err)
			}
			out.Failed++
			out.Errors = append(out.Errors, api.BatchError{Index: i, Code: code, Error: papermem.ErrorMessage(res.err)})
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
	notes: "Text in memory: {warm:true, source:memory, bytes, bytes_saved:bytes}. Paper known, not cached, with a source_url: downloaded (timeout, size cap, no loopback/private/link-local addresses unless PAPERMEM_FETCH_ALLOW_PRIVATE=1), ingested, {warm:false, source:origin, bytes_saved:0}. With the origins on, a paper with neither text nor source_url gets an open-access copy its origins know of (Unpaywall's best location, then its others, OpenAlex's, then arXiv's for 10.48550/arXiv.* DOIs), downloaded through the same guard (hosts of configured origin URLs excepted) and ingested: {warm:false, source:origin}; the next call answers source:memory. Unknown paper, or no text and nowhere to fetch it from (no source_url, no open-access copy known): 404. Origin failure: 502 upstream_failed, nothing stored."}

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

var deletePaperOp = op{tag: "papers", summary: "Remove a paper, its passages, claims and analysis from every index",
	resp: api.DeletedResponse{}, errs: []int{http.StatusNotFound},
	notes: "Answers {deleted: <normalised doi>}; nothing of the paper is recalled afterwards. Unknown DOI: 404."}

func (s *server) handleDeletePaper(w http.ResponseWriter, r *http.Request) error {
	doi, err := pathValue(r, "doi")
	if err != nil {
		return err
	}
	if err := s.workspace(r).DeletePaper(r.Context(), doi); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.DeletedResponse{Deleted: papermem.NormalizeDOI(doi)})
}
