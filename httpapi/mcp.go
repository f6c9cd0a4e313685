package httpapi

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/papermem/papermem"
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
		return mcpserver.New(mcpserver.Local(s.m.Workspace(p.workspace), p.user), &mcpserver.Options{Logger: s.log})
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
		"The handshake's serverInfo.version is the papermem module version of the server's build (a release, a Go pseudo-version, or devel+<commit>). " +
		"Tools: recall, recall_papers, store_paper, paper_exists, fetch_paper, ingest_file (base64 content, same size limit as POST /v1/ingest), store_analysis, get_analysis, remember, recall_user, forget, link_session, export_session, graph; " +
		"each carries annotations (readOnlyHint on the reads, destructiveHint on the tools that overwrite or delete, idempotentHint where a repeated call changes nothing more, openWorldHint on fetch_paper only). " +
		"recall and recall_user default to a budget of " + strconv.Itoa(mcpserver.DefaultBudgetTokens) + " tokens (" + strconv.Itoa(papermem.DefaultBudgetTokens) + " on /v1). " +
		"A tool's failure is a result with isError and the API's error body as text. " +
		"No credential, or one that is not valid: 401 with the API's error body and WWW-Authenticate: Bearer realm=\"papermem\" (with error=\"invalid_token\" when a credential was sent); papermem does not run the MCP OAuth flow, so there is no resource_metadata. " +
		"A request the transport refuses before any JSON-RPC message is read (Content-Type not application/json, Accept without both application/json and text/event-stream, a body that is not JSON, an unsupported MCP-Protocol-Version) is the API's error body, {\"error\":{\"code\",\"message\"}}, with the transport's status (400 invalid_input, 403 forbidden, 413 payload_too_large, 415 unsupported_format). " +
		"A refusal of a JSON-RPC message itself is the transport's JSON-RPC error response, as the MCP specification defines it, application/json."}

// handleMCP serves one MCP message. A body announced larger than the limit
// is refused here with the API's error body; the SDK enforces the limit on
// bodies of unannounced length. The SDK writes the transport's own
// refusals as plain text; they are answered as the API's error body with
// the same status.
func (s *server) handleMCP(w http.ResponseWriter, r *http.Request) error {
	if r.ContentLength > s.mcpLimit {
		return &http.MaxBytesError{Limit: s.mcpLimit}
	}
	tw := &transportWriter{ResponseWriter: w}
	s.mcp.ServeHTTP(tw, r)
	if tw.status == 0 {
		return nil
	}
	msg := strings.TrimSpace(tw.text.String())
	return &papermem.Error{Code: codeOfStatus(tw.status), Message: sentence(msg), Err: errors.New("mcp transport: " + msg)}
}

// sentence is the transport's text as the API's messages are written:
// capitalised, ending with a full stop.
func sentence(msg string) string {
	if msg == "" {
		return "The MCP transport refused the request."
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// transportWriter holds back an error the MCP transport writes as plain
// text (http.Error), keeping its status and text; anything else, JSON-RPC
// error responses included, goes through.
type transportWriter struct {
	http.ResponseWriter
	status int          // of the error held back; 0 when none
	text   bytes.Buffer // its text
}

func (w *transportWriter) WriteHeader(status int) {
	if status >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.status = status
		h := w.Header()
		h.Del("Content-Type")
		h.Del("X-Content-Type-Options")
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *transportWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.text.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *transportWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
