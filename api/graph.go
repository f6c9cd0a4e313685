package api

// MaterializeResult counts what Materialize changed.
type MaterializeResult struct {
	Created int `json:"related_edges_created"` // edges that did not exist
	Updated int `json:"related_edges_updated"` // edges kept with a new weight
	Removed int `json:"related_edges_removed"` // edges now below the threshold
	Total   int `json:"related_edges"`         // related edges after the run
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
