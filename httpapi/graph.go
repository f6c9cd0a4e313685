package httpapi

import (
	"net/http"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

var linkSessionOp = op{tag: "graph", summary: "Link a session to the papers and claims it used", req: api.LinkRequest{},
	resp: papermem.SessionLinks{},
	notes: "Creates the session on first use; its owner is the first user id that links or exports it (the session token's user, or X-User-Id with an API key). " +
		"Idempotent: existing links are kept and re-linking answers the same counts (linked_papers and linked_claims count the distinct papers and claims of the request). " +
		"An unknown DOI becomes a paper stub: a paper without title or text, so exists answers true and cached is false until the paper is stored. " +
		"An unknown claim id is 400 and nothing is written. At most 1000 papers and 1000 claims a request."}

func (s *server) handleLinkSession(w http.ResponseWriter, r *http.Request) error {
	var req api.LinkRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	res, err := s.workspace(r).LinkSession(r.Context(), papermem.SessionLink{SessionID: req.SessionID,
		UserID: principalFrom(r.Context()).user, Papers: req.Papers, Claims: req.Claims})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// graphNotes documents the graph shape shared by both graph routes.
const graphNotes = "Breadth-first over sessions, papers and claims. Node ids: session:<session_id>, paper:<doi>, claim:<node_id>. " +
	"Edges: uses (session → paper or claim, weight 1), cites (claim → the paper it comes from, weight 1), related (session → session, weight = Jaccard index of their paper sets, from the last materialize), citation (paper → a paper it cites, both in memory, from their stored citation links; weight 1; needs no materialize). " +
	"Nodes are ordered by hop (distance from the seed) then id; edges are every edge between two returned nodes. " +
	"At most 500 nodes: beyond that truncated is true. Another workspace's sessions are never reached."

// hopsParam is the hops query parameter.
var hopsParam = param{name: "hops", typ: "integer", doc: "depth, 1..3; default 1"}

var graphOp = op{tag: "graph", summary: "The session graph around a session",
	query: []param{{name: "seed_session", typ: "string", required: true, doc: "the session id to start from"}, hopsParam},
	resp:  papermem.Subgraph{}, errs: []int{http.StatusNotFound},
	notes: graphNotes + " 404 when the workspace has no such session; 400 without seed_session or with hops outside 1..3."}

func (s *server) handleGraph(w http.ResponseWriter, r *http.Request) error {
	seed := r.URL.Query().Get("seed_session")
	if seed == "" {
		return papermem.Errorf(papermem.EINVALID, "seed_session is required.")
	}
	hops, err := hopsOf(r)
	if err != nil {
		return err
	}
	g, err := s.workspace(r).Graph(r.Context(), seed, hops)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, g)
}

var neighborhoodOp = op{tag: "graph", summary: "The session graph around any node",
	query: []param{hopsParam}, resp: papermem.Subgraph{}, errs: []int{http.StatusNotFound},
	notes: graphNotes + " The node id is session:<session_id>, paper:<doi> (slashes raw or %2F-encoded) or claim:<node_id>. " +
		"From a paper the search reaches the sessions that use it, the linked claims that come from it and the papers in memory it cites or that cite it. 404 when the node is not in the workspace; 400 for a malformed id."}

func (s *server) handleNeighborhood(w http.ResponseWriter, r *http.Request) error {
	node, err := pathValue(r, "node_id")
	if err != nil {
		return err
	}
	hops, err := hopsOf(r)
	if err != nil {
		return err
	}
	g, err := s.workspace(r).Neighborhood(r.Context(), node, hops)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, g)
}

// hopsOf reads the hops parameter: absent means the default (0 for the
// library), else an integer in 1..MaxGraphHops.
func hopsOf(r *http.Request) (int, error) { return intOf(r, "hops", papermem.MaxGraphHops) }

var materializeOp = op{tag: "graph", summary: "Recompute the related edges between sessions", req: api.MaterializeRequest{},
	resp: papermem.MaterializeResult{},
	notes: "The body is optional. Afterwards two sessions share a related edge exactly when the Jaccard index of their paper sets is at least the threshold; the edge weighs that index. " +
		"Idempotent: a second run creates nothing (related_edges_created counts new edges only); edges now below the threshold are removed and changed ones re-weighted. " +
		"Candidate pairs come from an inverted index paper → sessions, never from all pairs; a paper linked by more than 1000 sessions does not create pairs on its own."}

func (s *server) handleMaterialize(w http.ResponseWriter, r *http.Request) error {
	var req api.MaterializeRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		return err
	}
	var th float64
	if req.Threshold != nil {
		if th = *req.Threshold; th <= 0 {
			return papermem.Errorf(papermem.EINVALID, "threshold must be greater than 0 and at most 1.")
		}
	}
	res, err := s.workspace(r).Materialize(r.Context(), th)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}
