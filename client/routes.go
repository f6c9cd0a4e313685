package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/papermem/papermem/api"
)

// One method per /v1 route, in the order of httpapi/routes.go. Each
// returns the server's error as a *api.Error with the API's code.

const get, post, del, patch = http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodPatch

// call is do for routes that answer a value of type T.
func call[T any](ctx context.Context, c *Client, method, path string, in any) (*T, error) {
	out := new(T)
	if err := c.do(ctx, method, path, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Root answers GET /: the service name and API version.
func (c *Client) Root(ctx context.Context) (*api.RootResponse, error) {
	return call[api.RootResponse](ctx, c, get, "/", nil)
}

// Health answers GET /v1/health, the liveness probe.
func (c *Client) Health(ctx context.Context) (*api.HealthResponse, error) {
	return call[api.HealthResponse](ctx, c, get, "/v1/health", nil)
}

// Status answers GET /v1/status, the availability summary.
func (c *Client) Status(ctx context.Context) (*api.StatusResponse, error) {
	return call[api.StatusResponse](ctx, c, get, "/v1/status", nil)
}

// OpenAPI returns GET /v1/openapi.json, the OpenAPI 3 document.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var doc json.RawMessage
	if err := c.do(ctx, get, "/v1/openapi.json", nil, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// Signup creates an account and its workspace (POST /v1/auth/signup). Use
// the returned access token with WithToken.
func (c *Client) Signup(ctx context.Context, req api.SignupRequest) (*api.TokenResponse, error) {
	return call[api.TokenResponse](ctx, c, post, "/v1/auth/signup", req)
}

// Login exchanges an email and password for a session token (POST
// /v1/auth/login).
func (c *Client) Login(ctx context.Context, req api.LoginRequest) (*api.TokenResponse, error) {
	return call[api.TokenResponse](ctx, c, post, "/v1/auth/login", req)
}

// Me returns the session token's user (GET /v1/auth/me).
func (c *Client) Me(ctx context.Context) (*api.MeResponse, error) {
	return call[api.MeResponse](ctx, c, get, "/v1/auth/me", nil)
}

// Logout ends the calling session (POST /v1/auth/logout): the token sent
// is refused from then on. Needs a session token; an API key is
// unauthorized.
func (c *Client) Logout(ctx context.Context) (*api.LogoutResponse, error) {
	return call[api.LogoutResponse](ctx, c, post, "/v1/auth/logout", nil)
}

// LogoutAll ends every session of the calling user, the one sent included
// (POST /v1/auth/logout-all). Needs a session token.
func (c *Client) LogoutAll(ctx context.Context) (*api.LogoutResponse, error) {
	return call[api.LogoutResponse](ctx, c, post, "/v1/auth/logout-all", nil)
}

// ChangePassword changes the calling user's password (POST
// /v1/auth/password). Every earlier session token of the user ends; use the
// returned one with WithToken. A wrong current password is forbidden.
func (c *Client) ChangePassword(ctx context.Context, req api.PasswordRequest) (*api.TokenResponse, error) {
	return call[api.TokenResponse](ctx, c, post, "/v1/auth/password", req)
}

// Recall returns the spans that answer a question within a token budget
// (POST /v1/recall).
func (c *Client) Recall(ctx context.Context, req api.RecallRequest) (*api.RecallResult, error) {
	return call[api.RecallResult](ctx, c, post, "/v1/recall", req)
}

// RecallPapers ranks the workspace's papers for query (GET
// /v1/papers/recall); limit 0 means the server's default. The list ends
// when the papers that follow are much weaker than the best; RecallPapersIn
// with Fill lists up to the limit.
func (c *Client) RecallPapers(ctx context.Context, query string, limit int) ([]api.Paper, error) {
	return c.RecallPapersIn(ctx, api.PaperRecallRequest{Query: query, Limit: limit})
}

// PaperExists reports whether the workspace holds the paper (GET
// /v1/papers/{doi}/exists).
func (c *Client) PaperExists(ctx context.Context, doi string) (bool, error) {
	res, err := call[api.ExistsResponse](ctx, c, get, pathf("/v1/papers/%s/exists", doi), nil)
	if err != nil {
		return false, err
	}
	return res.Exists, nil
}

// Cite returns the stored paper's reference in format (GET
// /v1/papers/{doi}/cite): papermem.CitationBibTeX, CitationRIS or
// CitationCSLJSON; "" means the server's default, BibTeX. An unknown
// format is invalid_input, an unknown paper not_found.
func (c *Client) Cite(ctx context.Context, doi, format string) (string, error) {
	res, err := c.send(ctx, get, withQuery(pathf("/v1/papers/%s/cite", doi), url.Values{"format": {format}}), nil)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return "", fmt.Errorf("GET /v1/papers/{doi}/cite: read response: %w", err)
	}
	return string(b), nil
}

// StorePaper stores or updates a paper (POST /v1/papers).
func (c *Client) StorePaper(ctx context.Context, req api.PaperRequest) (*api.StorePaperResponse, error) {
	return call[api.StorePaperResponse](ctx, c, post, "/v1/papers", req)
}

// StorePapers stores up to 1000 papers at once (POST /v1/papers/batch).
func (c *Client) StorePapers(ctx context.Context, req api.BatchRequest) (*api.BatchReport, error) {
	return call[api.BatchReport](ctx, c, post, "/v1/papers/batch", req)
}

// FetchPaper makes sure a paper's full text is in memory (POST
// /v1/papers/{doi}/fetch).
func (c *Client) FetchPaper(ctx context.Context, doi string) (*api.FetchResult, error) {
	return call[api.FetchResult](ctx, c, post, pathf("/v1/papers/%s/fetch", doi), nil)
}

// References returns the works a paper cites (GET
// /v1/papers/{doi}/references); refresh asks the origins again.
func (c *Client) References(ctx context.Context, doi string, refresh bool) (*api.CitationList, error) {
	return call[api.CitationList](ctx, c, get, withQuery(pathf("/v1/papers/%s/references", doi), refreshQuery(refresh)), nil)
}

// Citations returns the works citing a paper (GET
// /v1/papers/{doi}/citations); refresh asks the origins again.
func (c *Client) Citations(ctx context.Context, doi string, refresh bool) (*api.CitationList, error) {
	return call[api.CitationList](ctx, c, get, withQuery(pathf("/v1/papers/%s/citations", doi), refreshQuery(refresh)), nil)
}

func refreshQuery(refresh bool) url.Values {
	if !refresh {
		return nil
	}
	return url.Values{"refresh": {"true"}}
}

// Related returns the papers in memory related to a paper by citations
// (GET /v1/papers/{doi}/related); limit 0 means the server's default.
func (c *Client) Related(ctx context.Context, doi string, limit int) ([]api.CitationRelated, error) {
	out, err := call[[]api.CitationRelated](ctx, c, get, withQuery(pathf("/v1/papers/%s/related", doi), limitQuery(limit)), nil)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

func limitQuery(limit int) url.Values {
	if limit == 0 {
		return nil
	}
	return url.Values{"limit": {strconv.Itoa(limit)}}
}

// DeletePaper removes a paper and everything of it (DELETE
// /v1/papers/{doi}).
func (c *Client) DeletePaper(ctx context.Context, doi string) (*api.DeletedResponse, error) {
	return call[api.DeletedResponse](ctx, c, del, pathf("/v1/papers/%s", doi), nil)
}

// IngestFormats lists the file formats ingestion reads and the largest
// file accepted (GET /v1/ingest/formats).
func (c *Client) IngestFormats(ctx context.Context) (*api.FormatsResponse, error) {
	return call[api.FormatsResponse](ctx, c, get, "/v1/ingest/formats", nil)
}

// Ingest adds the file read from r, named name (its extension selects the
// format), to memory (POST /v1/ingest). The file is held in memory while
// it is sent, so that a 429 can be retried.
func (c *Client) Ingest(ctx context.Context, name string, r io.Reader, opts api.IngestOptions) (*api.IngestReport, error) {
	return upload[api.IngestReport](ctx, c, "/v1/ingest", name, r, [][2]string{{"domain", opts.Domain}, {"doi", opts.DOI}, {"title", opts.Title}})
}

// upload posts the file read from r, named name, as the multipart part
// "file" to path, with fields (name and value; an empty value is left
// out), and decodes the answer as a T. The form is held in memory while
// it is sent, so that a 429 can be retried.
func upload[T any](ctx context.Context, c *Client, path, name string, r io.Reader, fields [][2]string) (*T, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		if f[1] != "" {
			if err := mw.WriteField(f[0], f[1]); err != nil {
				return nil, err
			}
		}
	}
	part, err := mw.CreateFormFile("file", name)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(part, r); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	res, err := c.send(ctx, post, path, &body{data: buf.Bytes(), contentType: mw.FormDataContentType()})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var v T
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		return nil, fmt.Errorf("POST %s: decode response: %w", path, err)
	}
	return &v, nil
}

// Documents lists the workspace's documents, most recently ingested first
// (GET /v1/documents); limit 0 means the server's default.
func (c *Client) Documents(ctx context.Context, limit int) (*api.DocumentsResponse, error) {
	return call[api.DocumentsResponse](ctx, c, get, withQuery("/v1/documents", limitQuery(limit)), nil)
}

// StoreAnalysis stores or replaces the analysis of a paper (POST
// /v1/analysis).
func (c *Client) StoreAnalysis(ctx context.Context, req api.AnalysisRequest) (*api.StoredAnalysis, error) {
	return call[api.StoredAnalysis](ctx, c, post, "/v1/analysis", req)
}

// Analysis returns the analysis of a paper (GET /v1/analysis/{doi}).
func (c *Client) Analysis(ctx context.Context, doi string) (*api.Analysis, error) {
	return call[api.Analysis](ctx, c, get, pathf("/v1/analysis/%s", doi), nil)
}

// Remember stores a memory of the current user (POST /v1/user/remember):
// a session token's user, or WithUser with an API key.
func (c *Client) Remember(ctx context.Context, req api.RememberRequest) (*api.Remembered, error) {
	return call[api.Remembered](ctx, c, post, "/v1/user/remember", req)
}

// RecallUser recalls the current user's memories (POST /v1/user/recall).
func (c *Client) RecallUser(ctx context.Context, req api.UserRecallRequest) (*api.RecallResult, error) {
	return call[api.RecallResult](ctx, c, post, "/v1/user/recall", req)
}

// Forget deletes one of the current user's memories (DELETE
// /v1/user/memory/{key}).
func (c *Client) Forget(ctx context.Context, key string) (*api.DeletedResponse, error) {
	return call[api.DeletedResponse](ctx, c, del, pathf("/v1/user/memory/%s", key), nil)
}

// LinkSession links a session to the papers and claims it used (POST
// /v1/sessions/link).
func (c *Client) LinkSession(ctx context.Context, req api.LinkRequest) (*api.SessionLinks, error) {
	return call[api.SessionLinks](ctx, c, post, "/v1/sessions/link", req)
}

// Graph returns the session graph around a session (GET /v1/graph); hops 0
// means the server's default.
func (c *Client) Graph(ctx context.Context, seedSession string, hops int) (*api.Subgraph, error) {
	q := url.Values{"seed_session": {seedSession}, "hops": {hopsValue(hops)}}
	return call[api.Subgraph](ctx, c, get, withQuery("/v1/graph", q), nil)
}

// Neighborhood returns the session graph around any node (GET
// /v1/graph/neighborhood/{node_id}); hops 0 means the server's default.
func (c *Client) Neighborhood(ctx context.Context, nodeID string, hops int) (*api.Subgraph, error) {
	q := url.Values{"hops": {hopsValue(hops)}}
	return call[api.Subgraph](ctx, c, get, withQuery(pathf("/v1/graph/neighborhood/%s", nodeID), q), nil)
}

func hopsValue(hops int) string {
	if hops == 0 {
		return ""
	}
	return strconv.Itoa(hops)
}

// Materialize recomputes the related edges between sessions (POST
// /v1/graph/materialize).
func (c *Client) Materialize(ctx context.Context, req api.MaterializeRequest) (*api.MaterializeResult, error) {
	return call[api.MaterializeResult](ctx, c, post, "/v1/graph/materialize", req)
}

// Gaps returns the works the workspace's papers cite and it lacks, most
// cited first (GET /v1/graph/gaps); limit 0 means the server's default.
func (c *Client) Gaps(ctx context.Context, limit int) ([]api.CitationGap, error) {
	out, err := call[[]api.CitationGap](ctx, c, get, withQuery("/v1/graph/gaps", limitQuery(limit)), nil)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// ExportSession writes a session's export record (POST
// /v1/export/session).
func (c *Client) ExportSession(ctx context.Context, req api.ExportRequest) (*api.Exported, error) {
	return call[api.Exported](ctx, c, post, "/v1/export/session", req)
}

// exportValues are the query parameters of q.
func exportValues(q api.ExportQuery) url.Values {
	v := url.Values{"session_id": {q.SessionID}}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	return v
}

// Exports returns one page of session export records (GET /v1/export).
func (c *Client) Exports(ctx context.Context, q api.ExportQuery) (*api.ExportPage, error) {
	v := exportValues(q)
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	v.Set("cursor", q.Cursor)
	return call[api.ExportPage](ctx, c, get, withQuery("/v1/export", v), nil)
}

// ExportDownload streams every session export record matching q's
// session, since and until, one JSON object a line (GET
// /v1/export/download). The caller closes the reader; a download cut short
// ends in a read error, never silently.
func (c *Client) ExportDownload(ctx context.Context, q api.ExportQuery) (io.ReadCloser, error) {
	res, err := c.send(ctx, get, withQuery("/v1/export/download", exportValues(q)), nil)
	if err != nil {
		return nil, err
	}
	return res.Body, nil
}

// Users lists the workspace's users with their activity (GET /v1/users).
func (c *Client) Users(ctx context.Context) (*api.UsersResponse, error) {
	return call[api.UsersResponse](ctx, c, get, "/v1/users", nil)
}

// Workspaces lists the current workspace and those the caller created (GET
// /v1/workspaces).
func (c *Client) Workspaces(ctx context.Context) (*api.WorkspacesResponse, error) {
	return call[api.WorkspacesResponse](ctx, c, get, "/v1/workspaces", nil)
}

// CreateWorkspace creates a workspace with its first API key (POST
// /v1/workspaces).
func (c *Client) CreateWorkspace(ctx context.Context, req api.CreateWorkspaceRequest) (*api.CreatedWorkspace, error) {
	return call[api.CreatedWorkspace](ctx, c, post, "/v1/workspaces", req)
}

// CreateAPIKey creates an API key; its value is returned this once (POST
// /v1/account/api-keys).
func (c *Client) CreateAPIKey(ctx context.Context, req api.CreateKeyRequest) (*api.NewAPIKey, error) {
	return call[api.NewAPIKey](ctx, c, post, "/v1/account/api-keys", req)
}

// APIKeys lists the workspace's API keys, without values (GET
// /v1/account/api-keys).
func (c *Client) APIKeys(ctx context.Context) (*api.ApiKeysResponse, error) {
	return call[api.ApiKeysResponse](ctx, c, get, "/v1/account/api-keys", nil)
}

// RevokeAPIKey revokes an API key (DELETE /v1/account/api-keys/{key_id}).
func (c *Client) RevokeAPIKey(ctx context.Context, keyID string) (*api.RevokedResponse, error) {
	return call[api.RevokedResponse](ctx, c, del, pathf("/v1/account/api-keys/%s", keyID), nil)
}

// Account returns the account view (GET /v1/account).
func (c *Client) Account(ctx context.Context) (*api.Account, error) {
	return call[api.Account](ctx, c, get, "/v1/account", nil)
}

// UpdateAccount merges the objects of req into the account (PATCH
// /v1/account).
func (c *Client) UpdateAccount(ctx context.Context, req api.AccountPatch) (*api.Account, error) {
	return call[api.Account](ctx, c, patch, "/v1/account", req)
}

// Checkout starts a checkout for a plan (POST /v1/billing/checkout).
func (c *Client) Checkout(ctx context.Context, req api.CheckoutRequest) (*api.CheckoutResult, error) {
	return call[api.CheckoutResult](ctx, c, post, "/v1/billing/checkout", req)
}

// ConfirmCheckout confirms a checkout's payment (POST
// /v1/billing/checkout/confirm).
func (c *Client) ConfirmCheckout(ctx context.Context, req api.ConfirmRequest) (*api.Confirmation, error) {
	return call[api.Confirmation](ctx, c, post, "/v1/billing/checkout/confirm", req)
}

// Usage returns the workspace's usage this month (GET /v1/usage).
func (c *Client) Usage(ctx context.Context) (*api.Usage, error) {
	return call[api.Usage](ctx, c, get, "/v1/usage", nil)
}

// Billing returns the workspace's bill this month so far (GET
// /v1/billing).
func (c *Client) Billing(ctx context.Context) (*api.Bill, error) {
	return call[api.Bill](ctx, c, get, "/v1/billing", nil)
}

// Analytics returns memory size, fetch cache efficiency and top domains
// (GET /v1/analytics).
func (c *Client) Analytics(ctx context.Context) (*api.Analytics, error) {
	return call[api.Analytics](ctx, c, get, "/v1/analytics", nil)
}

// AdminMe reports whether the caller has founder access (GET
// /v1/admin/me).
func (c *Client) AdminMe(ctx context.Context) (*api.AdminMeResponse, error) {
	return call[api.AdminMeResponse](ctx, c, get, "/v1/admin/me", nil)
}

// AdminOverview returns the platform overview (GET /v1/admin/overview).
func (c *Client) AdminOverview(ctx context.Context) (*api.Overview, error) {
	return call[api.Overview](ctx, c, get, "/v1/admin/overview", nil)
}

// AdminWorkspaces lists every workspace (GET /v1/admin/workspaces).
func (c *Client) AdminWorkspaces(ctx context.Context) (*api.AdminWorkspacesResponse, error) {
	return call[api.AdminWorkspacesResponse](ctx, c, get, "/v1/admin/workspaces", nil)
}

// AdminUsers lists every account (GET /v1/admin/users).
func (c *Client) AdminUsers(ctx context.Context) (*api.AdminUsersResponse, error) {
	return call[api.AdminUsersResponse](ctx, c, get, "/v1/admin/users", nil)
}

// AdminHealth returns the detailed component health (GET
// /v1/admin/health).
func (c *Client) AdminHealth(ctx context.Context) (*api.Health, error) {
	return call[api.Health](ctx, c, get, "/v1/admin/health", nil)
}

// AdminActivity returns one workspace in detail (GET
// /v1/admin/workspaces/{org_id}/activity).
func (c *Client) AdminActivity(ctx context.Context, orgID string) (*api.WorkspaceActivity, error) {
	return call[api.WorkspaceActivity](ctx, c, get, pathf("/v1/admin/workspaces/%s/activity", orgID), nil)
}

// AdminSetPlan sets a workspace's plan without payment (POST
// /v1/admin/workspaces/{org_id}/plan).
func (c *Client) AdminSetPlan(ctx context.Context, orgID string, req api.SetPlanRequest) (*api.Account, error) {
	return call[api.Account](ctx, c, post, pathf("/v1/admin/workspaces/%s/plan", orgID), req)
}

// AdminCreateUser creates a user in a workspace (POST
// /v1/admin/workspaces/{org_id}/users).
func (c *Client) AdminCreateUser(ctx context.Context, orgID string, req api.CreateUserRequest) (*api.User, error) {
	return call[api.User](ctx, c, post, pathf("/v1/admin/workspaces/%s/users", orgID), req)
}

// AdminBackup writes an online, consistent copy of the whole database to
// a new file on the server, in its backup directory (POST
// /v1/admin/backup), and returns the file's path and size; the copy itself
// is not sent.
func (c *Client) AdminBackup(ctx context.Context) (*api.BackupFile, error) {
	return call[api.BackupFile](ctx, c, post, "/v1/admin/backup", nil)
}

// AdminDisableUser disables a user of a workspace (POST
// /v1/admin/workspaces/{org_id}/users/{user_id}/disable): the user's
// sessions end and the API keys they created are refused until enabled.
func (c *Client) AdminDisableUser(ctx context.Context, orgID, userID string) (*api.User, error) {
	return call[api.User](ctx, c, post, pathf("/v1/admin/workspaces/%s/users/%s/disable", orgID, userID), nil)
}

// AdminEnableUser enables a disabled user again (POST
// /v1/admin/workspaces/{org_id}/users/{user_id}/enable); sessions from
// before the disabling stay ended.
func (c *Client) AdminEnableUser(ctx context.Context, orgID, userID string) (*api.User, error) {
	return call[api.User](ctx, c, post, pathf("/v1/admin/workspaces/%s/users/%s/enable", orgID, userID), nil)
}
