package papermem

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/papermem/papermem/internal/relatedness"
	"github.com/papermem/papermem/internal/store"
	"github.com/papermem/papermem/internal/testhook"
)

// Session and graph limits.
const (
	DefaultRelatedThreshold = 0.2  // Materialize threshold when none is given
	DefaultGraphHops        = 1    // Graph and Neighborhood depth when none is given
	MaxGraphHops            = 3    // deepest Graph and Neighborhood accepted
	MaxGraphNodes           = 500  // most nodes a subgraph holds; beyond it Truncated is set
	MaxSessionLinks         = 1000 // most papers, and most claims, in one link or export
	HubSessions             = 1000 // a paper linked by more sessions generates no candidate pairs (see Materialize)
)

// Graph node and edge types.
const (
	NodeSession = "session"
	NodePaper   = "paper"
	NodeClaim   = "claim"

	EdgeUses    = "uses"    // session → paper or claim it used
	EdgeCites   = "cites"   // claim → the paper it comes from
	EdgeRelated = "related" // session — session whose paper sets overlap
	// EdgeCitation joins a paper to a paper it cites, both in memory, as
	// their stored citation links tell (see References); it weighs 1 and
	// needs no materialising.
	EdgeCitation = "citation"
)

// MaterializeResult counts what Materialize changed.
type MaterializeResult struct {
	Created int `json:"related_edges_created"` // edges that did not exist
	Updated int `json:"related_edges_updated"` // edges kept with a new weight
	Removed int `json:"related_edges_removed"` // edges now below the threshold
	Total   int `json:"related_edges"`         // related edges after the run
}

// Materialize recomputes the workspace's related edges: after it, two
// sessions are joined by exactly one related edge when the Jaccard index of
// their paper sets, |A∩B| / |A∪B|, is at least threshold, and the edge's
// weight is that index. Edges that exist are kept (re-weighted when their
// index changed), edges now below the threshold are removed, so a second
// run with the same links creates nothing. Threshold 0 means
// DefaultRelatedThreshold; otherwise it must lie in (0, 1].
//
// Candidate pairs come from an inverted index paper → sessions, never from
// all pairs of sessions: for each session, an accumulator counts the papers
// it shares with every later session reached through its papers. Time is
// O(L + Σ_p s_p²) for L links and s_p sessions per paper p, memory O(L + S
// + E) for S sessions and E edges; sessions that share no paper cost
// nothing. A paper linked by more than HubSessions sessions does not
// generate candidate pairs (it would cost s_p² and join almost everyone),
// but still counts exactly in the index of every pair found through another
// paper: the only effect of the cap is that two sessions whose shared
// papers are all such hubs get no edge.
//
// The pairs are computed from one read of the links, before the write
// begins, so the write — one transaction that reads the edges and applies
// the difference — is all that other writers wait for (on SQLite, those of
// every process over the file). Links made while the pairs are computed
// are related by the next run. Errors: EINVALID.
func (w *Workspace) Materialize(ctx context.Context, threshold float64) (*MaterializeResult, error) {
	if threshold == 0 {
		threshold = DefaultRelatedThreshold
	}
	if math.IsNaN(threshold) || threshold <= 0 || threshold > 1 {
		return nil, Errorf(EINVALID, "threshold must be greater than 0 and at most 1.")
	}
	links, err := store.SessionPapers(ctx, w.m.db, w.id)
	if err != nil {
		return nil, fmt.Errorf("materialize: %w", err)
	}
	if testhook.Materialize != nil {
		testhook.Materialize()
	}
	rel := make([]relatedness.Link, len(links))
	for i, l := range links {
		rel[i] = relatedness.Link(l)
	}
	want := relatedness.Pairs(rel, threshold, HubSessions)
	res := &MaterializeResult{}
	err = w.m.write(ctx, func(ctx context.Context, tx *store.Tx) error {
		*res = MaterializeResult{} // counted afresh if the write runs again (store.Writer)
		// Servers sharing a PostgreSQL database materialise a workspace
		// one at a time: each rewrites the edges it read.
		if err := tx.TakeTurns(ctx, "materialize "+w.id); err != nil {
			return err
		}
		have, err := store.RelatedEdges(ctx, tx, w.id)
		if err != nil {
			return err
		}
		ew, err := store.NewEdgeWriter(ctx, tx, w.id, w.m.nowString())
		if err != nil {
			return err
		}
		defer ew.Close()
		for _, p := range want {
			old, ok := have[[2]int64{p.A, p.B}]
			switch {
			case !ok:
				if err := ew.Insert(ctx, store.Edge{A: p.A, B: p.B, Weight: p.Weight}); err != nil {
					return fmt.Errorf("insert related edge: %w", err)
				}
				res.Created++
			case old != p.Weight:
				if err := ew.Update(ctx, store.Edge{A: p.A, B: p.B, Weight: p.Weight}); err != nil {
					return fmt.Errorf("update related edge: %w", err)
				}
				res.Updated++
			}
			delete(have, [2]int64{p.A, p.B})
		}
		for k := range have {
			if err := ew.Delete(ctx, k[0], k[1]); err != nil {
				return fmt.Errorf("delete related edge: %w", err)
			}
			res.Removed++
		}
		res.Total = len(want)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Subgraph is a breadth-first part of a workspace's session graph.
//
// Node ids are stable strings: "session:<session_id>", "paper:<doi>" (the
// normalised DOI or local id) and "claim:<node_id>" (the node id recall
// reports).
type Subgraph struct {
	Seed      string      `json:"seed"`      // id of the node the search started from
	Hops      int         `json:"hops"`      // depth searched
	Nodes     []GraphNode `json:"nodes"`     // by distance from the seed, then id
	Edges     []GraphEdge `json:"edges"`     // every edge between two of Nodes, by source, target, type
	Truncated bool        `json:"truncated"` // true when MaxGraphNodes cut the search short
}

// GraphNode is a session, paper or claim. Fields beyond id, type, label and
// hop are set for the types they concern.
type GraphNode struct {
	ID        string `json:"id"`
	Type      string `json:"type"`  // NodeSession, NodePaper or NodeClaim
	Label     string `json:"label"` // session id, paper title (or DOI), claim text (shortened)
	Hop       int    `json:"hop"`   // distance from the seed
	SessionID string `json:"session_id,omitempty"`
	UserID    string `json:"user_id,omitempty"`    // session owner
	DOI       string `json:"doi,omitempty"`        // paper, or the paper a claim comes from
	Cached    *bool  `json:"cached,omitempty"`     // paper: its full text is in memory
	NodeID    int64  `json:"node_id,omitempty"`    // claim: the recall node id
	NodeLabel string `json:"node_label,omitempty"` // claim: Claim, Passage, Paper, Analysis or Document
}

// GraphEdge is a typed, weighted edge. Uses, cites and citation edges weigh 1;
// related edges weigh the Jaccard index of the two sessions' paper sets.
type GraphEdge struct {
	Source string  `json:"source"`
	Target string  `json:"target"`
	Type   string  `json:"type"` // EdgeUses, EdgeCites, EdgeRelated or EdgeCitation
	Weight float64 `json:"weight"`
}

// claimLabelRunes bounds a claim node's label.
const claimLabelRunes = 160

// Graph returns the subgraph around session seed: the sessions, papers and
// claims within hops edges (0 means DefaultGraphHops, at most MaxGraphHops)
// and every edge between them. Only the workspace's own sessions are seen.
// Errors: EINVALID, ENOTFOUND (no such session in this workspace).
func (w *Workspace) Graph(ctx context.Context, seed string, hops int) (*Subgraph, error) {
	if strings.TrimSpace(seed) == "" {
		return nil, Errorf(EINVALID, "seed_session is required.")
	}
	return w.Neighborhood(ctx, NodeSession+":"+seed, hops)
}

// Neighborhood returns the subgraph within hops edges of the node with id
// nodeID ("session:<id>", "paper:<doi>" or "claim:<node_id>"; see
// Subgraph). Hops 0 means DefaultGraphHops, at most MaxGraphHops. The
// search is breadth-first; it stops adding nodes at MaxGraphNodes and then
// reports Truncated. From a paper it reaches the sessions that use it,
// the linked claims that come from it, and the papers in memory it cites
// or that cite it (citation edges). Errors: EINVALID, ENOTFOUND.
func (w *Workspace) Neighborhood(ctx context.Context, nodeID string, hops int) (*Subgraph, error) {
	if hops == 0 {
		hops = DefaultGraphHops
	}
	if hops < 0 || hops > MaxGraphHops {
		return nil, Errorf(EINVALID, "hops must be between 1 and %d.", MaxGraphHops)
	}
	seed, err := w.resolveNode(ctx, nodeID)
	if err != nil {
		return nil, err
	}
	g := &graphSearch{w: w, dist: map[gkey]int{seed: 0}, order: []gkey{seed}, edges: map[gedge]float64{}}
	frontier := []gkey{seed}
	// One pass beyond the last hop adds only the edges between nodes
	// already found, so the result holds every edge among its nodes.
	for hop := 1; hop <= hops+1 && len(frontier) > 0; hop++ {
		adj, err := g.adjacent(ctx, frontier)
		if err != nil {
			return nil, err
		}
		frontier = g.add(adj, hop, hop > hops)
	}
	return g.result(ctx, nodeID, hops)
}

// gkey names a graph node by type and row id (session and paper rows,
// node id for claims).
type gkey struct {
	typ string
	id  int64
}

// gedge is an edge between two gkeys.
type gedge struct {
	src, dst gkey
	typ      string
}

// graphSearch holds the state of one breadth-first search.
type graphSearch struct {
	w         *Workspace
	dist      map[gkey]int
	order     []gkey
	edges     map[gedge]float64
	truncated bool
}

// resolveNode parses a node id and checks that the node exists in the
// workspace.
func (w *Workspace) resolveNode(ctx context.Context, nodeID string) (gkey, error) {
	typ, rest, ok := strings.Cut(nodeID, ":")
	if !ok || rest == "" {
		return gkey{}, Errorf(EINVALID, "%q is not a graph node id (session:<id>, paper:<doi> or claim:<node_id>).", nodeID)
	}
	var id int64
	var err error
	switch typ {
	case NodeSession:
		id, err = store.SessionID(ctx, w.m.db, w.id, rest)
		err = dbError(err, "No session "+rest+" in this workspace.")
	case NodePaper:
		d := NormalizeDOI(rest)
		if d == "" {
			return gkey{}, Errorf(EINVALID, "%q is not a DOI.", rest)
		}
		id, err = store.PaperID(ctx, w.m.db, w.id, d)
		err = dbError(err, "Paper "+d+" is not in memory.")
	case NodeClaim:
		n, perr := strconv.ParseInt(rest, 10, 64)
		if perr != nil {
			return gkey{}, Errorf(EINVALID, "%q is not a claim node id.", rest)
		}
		id, err = store.NodeIDNotOfKind(ctx, w.m.db, w.id, n, KindMemory)
		err = dbError(err, "No claim "+rest+" in this workspace.")
	default:
		return gkey{}, Errorf(EINVALID, "%q is not a graph node id (session:<id>, paper:<doi> or claim:<node_id>).", nodeID)
	}
	return gkey{typ, id}, err
}

// edgeOrder ranks edge types for the order in which a truncated search
// keeps neighbours: related sessions first, then what sessions use.
var edgeOrder = map[string]int{EdgeRelated: 0, EdgeUses: 1, EdgeCites: 2, EdgeCitation: 3}

// add takes the edges found around the frontier: endpoints not yet seen
// join the graph at distance hop (unless onlyEdges, or the node cap is
// reached), and edges whose endpoints are both in the graph are kept. It
// returns the new frontier.
func (g *graphSearch) add(adj []adjacency, hop int, onlyEdges bool) []gkey {
	sort.Slice(adj, func(i, j int) bool {
		a, b := adj[i], adj[j]
		if edgeOrder[a.e.typ] != edgeOrder[b.e.typ] {
			return edgeOrder[a.e.typ] < edgeOrder[b.e.typ]
		}
		if a.weight != b.weight {
			return a.weight > b.weight
		}
		if a.e.src != b.e.src {
			return lessKey(a.e.src, b.e.src)
		}
		return lessKey(a.e.dst, b.e.dst)
	})
	var next []gkey
	for _, a := range adj {
		in := true
		for _, k := range []gkey{a.e.src, a.e.dst} {
			if _, ok := g.dist[k]; ok {
				continue
			}
			if onlyEdges {
				in = false
				break
			}
			if len(g.order) >= MaxGraphNodes {
				g.truncated = true
				in = false
				break
			}
			g.dist[k] = hop
			g.order = append(g.order, k)
			next = append(next, k)
		}
		if in {
			g.edges[a.e] = a.weight
		}
	}
	return next
}

func lessKey(a, b gkey) bool {
	if a.typ != b.typ {
		return a.typ < b.typ
	}
	return a.id < b.id
}

// adjacency is an edge found next to a frontier node.
type adjacency struct {
	e      gedge
	weight float64
}

// adjacent returns every edge touching a node of frontier.
func (g *graphSearch) adjacent(ctx context.Context, frontier []gkey) ([]adjacency, error) {
	ids := map[string][]int64{}
	for _, k := range frontier {
		ids[k.typ] = append(ids[k.typ], k.id)
	}
	w := g.w
	var out []adjacency
	add := func(es []store.Edge, typ, src, dst string) {
		for _, e := range es {
			out = append(out, adjacency{e: gedge{src: gkey{src, e.A}, dst: gkey{dst, e.B}, typ: typ}, weight: e.Weight})
		}
	}
	if s := ids[NodeSession]; len(s) > 0 {
		a, err := store.SessionNeighbours(ctx, w.m.db, w.id, s)
		if err != nil {
			return nil, err
		}
		add(a.Papers, EdgeUses, NodeSession, NodePaper)
		add(a.Claims, EdgeUses, NodeSession, NodeClaim)
		add(a.Related, EdgeRelated, NodeSession, NodeSession)
	}
	if p := ids[NodePaper]; len(p) > 0 {
		a, err := store.PaperNeighbours(ctx, w.m.db, w.id, p)
		if err != nil {
			return nil, err
		}
		add(a.Sessions, EdgeUses, NodeSession, NodePaper)
		add(a.Claims, EdgeCites, NodeClaim, NodePaper)
		cited, err := store.CitationNeighbours(ctx, w.m.db, w.id, p)
		if err != nil {
			return nil, err
		}
		add(cited, EdgeCitation, NodePaper, NodePaper)
	}
	if c := ids[NodeClaim]; len(c) > 0 {
		a, err := store.ClaimNeighbours(ctx, w.m.db, w.m.database.Engine, w.id, c)
		if err != nil {
			return nil, err
		}
		add(a.Sessions, EdgeUses, NodeSession, NodeClaim)
		add(a.Papers, EdgeCites, NodeClaim, NodePaper)
	}
	return out, nil
}

// result loads the nodes' details and builds the Subgraph.
func (g *graphSearch) result(ctx context.Context, seed string, hops int) (*Subgraph, error) {
	nodes := make(map[gkey]*GraphNode, len(g.order))
	ids := map[string][]int64{}
	for _, k := range g.order {
		ids[k.typ] = append(ids[k.typ], k.id)
	}
	w := g.w
	sessions, err := store.GraphSessions(ctx, w.m.db, w.m.db.Engine(), w.id, ids[NodeSession])
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		nodes[gkey{NodeSession, s.ID}] = &GraphNode{ID: NodeSession + ":" + s.SessionID, Type: NodeSession, Label: s.SessionID,
			SessionID: s.SessionID, UserID: s.UserID}
	}
	papers, err := store.GraphPapers(ctx, w.m.db, w.m.db.Engine(), w.id, ids[NodePaper])
	if err != nil {
		return nil, err
	}
	for _, p := range papers {
		n := &GraphNode{ID: NodePaper + ":" + p.DOI, Type: NodePaper, Label: p.Title, DOI: p.DOI, Cached: &p.Cached}
		if n.Label == "" {
			n.Label = n.DOI
		}
		nodes[gkey{NodePaper, p.ID}] = n
	}
	claims, err := store.GraphClaims(ctx, w.m.db, w.m.database.Engine, w.id, ids[NodeClaim])
	if err != nil {
		return nil, err
	}
	for _, c := range claims {
		nodes[gkey{NodeClaim, c.ID}] = &GraphNode{ID: NodeClaim + ":" + strconv.FormatInt(c.Num, 10), Type: NodeClaim,
			Label: shorten(c.Text, claimLabelRunes), DOI: c.DOI, NodeID: c.Num, NodeLabel: c.Label}
	}

	root, ok := nodes[g.order[0]]
	if !ok {
		return nil, Errorf(ENOTFOUND, "No node %s in this workspace.", seed)
	}
	sg := &Subgraph{Seed: root.ID, Hops: hops, Nodes: []GraphNode{}, Edges: []GraphEdge{}, Truncated: g.truncated}
	for _, k := range g.order {
		n, ok := nodes[k]
		if !ok {
			continue // deleted while searching
		}
		n.Hop = g.dist[k]
		sg.Nodes = append(sg.Nodes, *n)
	}
	sort.SliceStable(sg.Nodes, func(i, j int) bool {
		a, b := sg.Nodes[i], sg.Nodes[j]
		if a.Hop != b.Hop {
			return a.Hop < b.Hop
		}
		return a.ID < b.ID
	})
	for e, wt := range g.edges {
		s, t := nodes[e.src], nodes[e.dst]
		if s == nil || t == nil {
			continue
		}
		sg.Edges = append(sg.Edges, GraphEdge{Source: s.ID, Target: t.ID, Type: e.typ, Weight: wt})
	}
	sort.Slice(sg.Edges, func(i, j int) bool {
		a, b := sg.Edges[i], sg.Edges[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.Type < b.Type
	})
	return sg, nil
}

// shorten cuts s to at most n runes, on a word boundary when one is near,
// marking the cut with an ellipsis.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*3/4 {
		cut = cut[:i]
	}
	return cut + "…"
}
