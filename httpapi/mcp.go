package httpapi

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem/mcpserver"
)

// newMCPHandler serves the MCP tools over Streamable HTTP, stateless: every
// POST carries its own credential, passes the same authentication, tenancy
// and rate limit as /v1 (see chain), and gets a server bound to its
// principal's workspace and user, so no MCP session can outlive or change
// its credential. A body may hold a base64 file of the ingestion limit.
func (s *server) newMCPHandler() http.Handler {
	s.mcpLimit = s.m.MaxIngestBytes()*4/3 + multipartOverhead
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		p := principalFrom(r.Context())
		return mcpserver.New(mcpserver.Local(s.m.Workspace(p.org), p.user), &mcpserver.Options{Logger: s.log})
	}, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              s.log,
		MaxRequestBodyBytes: s.mcpLimit,
	})
}

var mcpOp = op{tag: "mcp", summary: "Model Context Protocol tools over Streamable HTTP",
	req: map[string]any{}, resp: map[string]any{},
	notes: "A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call …), answered as application/json; " +
		"stateless: no Mcp-Session-Id, every request authenticated like /v1 (API key with optional X-User-Id, or session token), rate-limited per credential and scoped to its workspace; GET and DELETE are 405. " +
		"Tools: recall, recall_papers, store_paper, paper_exists, fetch_paper, ingest_file (base64 content, same size limit as POST /v1/ingest), store_analysis, get_analysis, remember, recall_user, forget, link_session, export_session, graph. " +
		"A tool's failure is a result with isError and the API's error body as text. No credential: 401 with the API's error body."}

// handleMCP serves one MCP message. A body announced larger than the limit
// is refused here with the API's error body; the SDK enforces the limit on
// bodies of unannounced length.
func (s *server) handleMCP(w http.ResponseWriter, r *http.Request) error {
	if r.ContentLength > s.mcpLimit {
		return &http.MaxBytesError{Limit: s.mcpLimit}
	}
	s.mcp.ServeHTTP(w, r)
	return nil
}
