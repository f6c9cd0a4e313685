package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/papermem/papermem"
)

// graphData is the graph page: the sessions to choose from and the chosen
// session's subgraph, drawn.
type graphData struct {
	Sessions []string
	Seed     string
	Hops     int
	MaxHops  int
	Graph    *papermem.Subgraph
	Picture  *graphPicture
}

// graphPicture lays a subgraph out in three columns — sessions, papers,
// claims — with its edges between them, for an SVG.
type graphPicture struct {
	Width, Height int
	Nodes         []placedNode
	Edges         []placedEdge
}

type placedNode struct {
	X, Y        int
	Class, Text string
	Title       string // the full label, as a tooltip
	Seed        bool
	Anchor      string // the label's text-anchor: end (left of the dot), middle (above) or start (right)
	LX, LY      int    // the label's position
}

type placedEdge struct {
	Path, Class string
}

// Graph picture geometry, in pixels.
const (
	graphWidth     = 1000
	graphRowHeight = 44
	graphLabelMax  = 38 // runes of a label drawn
)

// graphColumns are the x of each node type's column.
var graphColumns = map[string]int{papermem.NodeSession: 230, papermem.NodePaper: 480, papermem.NodeClaim: 680}

func newGraphPicture(g *papermem.Subgraph) *graphPicture {
	p := &graphPicture{Width: graphWidth}
	rows := map[string]int{}
	at := map[string]placedNode{}
	for _, n := range g.Nodes {
		x, ok := graphColumns[n.Type]
		if !ok {
			continue
		}
		y := 30 + rows[n.Type]*graphRowHeight
		rows[n.Type]++
		pn := placedNode{X: x, Y: y, Class: n.Type, Text: shorten(n.Label, graphLabelMax), Title: n.Label,
			Seed: n.ID == g.Seed, Anchor: "end", LX: x - 12, LY: y + 4}
		switch n.Type {
		case papermem.NodePaper:
			pn.Anchor, pn.LX, pn.LY = "middle", x, y-11
		case papermem.NodeClaim:
			pn.Anchor, pn.LX = "start", x+12
		}
		if n.Type == papermem.NodePaper && n.Cached != nil && !*n.Cached {
			pn.Class += " stub"
		}
		at[n.ID] = pn
		p.Nodes = append(p.Nodes, pn)
		p.Height = max(p.Height, y+20)
	}
	for _, e := range g.Edges {
		a, okA := at[e.Source]
		b, okB := at[e.Target]
		if !okA || !okB {
			continue
		}
		path := fmt.Sprintf("M %d %d L %d %d", a.X, a.Y, b.X, b.Y)
		if a.X == b.X { // two sessions: bow out to the right
			path = fmt.Sprintf("M %d %d Q %d %d %d %d", a.X, a.Y, a.X+60, (a.Y+b.Y)/2, b.X, b.Y)
		}
		p.Edges = append(p.Edges, placedEdge{Path: path, Class: e.Type})
	}
	return p
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

func (h *handler) graph(w http.ResponseWriter, r *http.Request, v *viewer) error {
	ws := h.m.Workspace(v.User.WorkspaceID)
	d := graphData{Seed: strings.TrimSpace(r.URL.Query().Get("session")), Hops: papermem.DefaultGraphHops, MaxHops: papermem.MaxGraphHops}
	var err error
	if d.Sessions, err = ws.RecentSessions(r.Context(), 0); err != nil {
		return err
	}
	if hs := r.URL.Query().Get("hops"); hs != "" {
		if d.Hops, err = strconv.Atoi(hs); err != nil {
			return papermem.Errorf(papermem.EINVALID, "hops must be a whole number.")
		}
	}
	if d.Seed == "" && len(d.Sessions) > 0 {
		d.Seed = d.Sessions[0]
	}
	if d.Seed != "" {
		if d.Graph, err = ws.Graph(r.Context(), d.Seed, d.Hops); err != nil {
			return err
		}
		d.Picture = newGraphPicture(d.Graph)
	}
	h.render(w, r, http.StatusOK, "graph", &page{Title: "Session graph", Nav: "graph", Viewer: v, Data: d})
	return nil
}
