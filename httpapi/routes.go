package httpapi

import "net/http"

// route is one endpoint: method, mux path template, the credential it
// needs, its handler and its OpenAPI description.
type route struct {
	method string
	path   string
	access access
	h      handlerFunc
	op     op
}

// routes lists every /v1 route and /mcp, grouped by resource. Each group's access
// column says which authentication wraps it (see chain): public, optional,
// bearer (API key or session token), session (token only), memory (bearer
// or developer headers) and founder. Adding a route is adding a line.
func (s *server) routes() []route {
	const get, post, del, patch = http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodPatch
	return []route{
		// Health and discovery.
		{get, "/", public, s.handleRoot, rootOp},
		{get, "/v1/health", public, s.handleHealth, healthOp},
		{get, "/v1/status", public, s.handleStatus, statusOp},
		{get, "/v1/openapi.json", public, s.handleOpenAPI, openAPIOp},

		// Auth.
		{post, "/v1/auth/signup", public, s.handleSignup, signupOp},
		{post, "/v1/auth/login", public, s.handleLogin, loginOp},
		{get, "/v1/auth/me", session, s.handleMe, meOp},
		{post, "/v1/auth/logout", session, s.handleLogout, logoutOp},
		{post, "/v1/auth/logout-all", session, s.handleLogoutAll, logoutAllOp},
		{post, "/v1/auth/password", session, s.handleChangePassword, passwordOp},

		// Recall.
		{post, "/v1/recall", memory, s.handleRecall, recallOp},

		// Papers. {doi:.+} takes DOIs with raw or %2F-encoded slashes.
		{get, "/v1/papers/recall", memory, s.handleRecallPapers, recallPapersOp},
		{get, "/v1/papers/{doi:.+}/exists", memory, s.handlePaperExists, paperExistsOp},
		{get, "/v1/papers/{doi:.+}/cite", memory, s.handleCite, citeOp},
		{get, "/v1/papers/{doi:.+}/references", memory, s.handleReferences, referencesOp},
		{get, "/v1/papers/{doi:.+}/citations", memory, s.handleCitations, citationsOp},
		{get, "/v1/papers/{doi:.+}/related", memory, s.handleRelated, relatedOp},
		{get, "/v1/papers", memory, s.handlePapers, papersOp},
		{get, "/v1/papers/{doi:.+}", memory, s.handlePaper, paperOp},
		{post, "/v1/papers", memory, s.handleStorePaper, storePaperOp},
		{post, "/v1/papers/batch", memory, s.handleStorePapers, storePapersOp},
		{post, "/v1/papers/{doi:.+}/fetch", memory, s.handleFetchPaper, fetchPaperOp},
		{del, "/v1/papers/{doi:.+}", memory, s.handleDeletePaper, deletePaperOp},

		// Ingestion.
		{get, "/v1/ingest/formats", memory, s.handleIngestFormats, ingestFormatsOp},
		{post, "/v1/ingest", memory, s.handleIngest, ingestOp},
		{get, "/v1/documents", memory, s.handleDocuments, documentsOp},
		{del, "/v1/documents/{id}", memory, s.handleDeleteDocument, deleteDocumentOp},

		// Imports of a library or an export file.
		{post, "/v1/imports", memory, s.handleStartImport, startImportOp},
		{get, "/v1/imports", memory, s.handleImports, importsOp},
		{get, "/v1/imports/{id}", memory, s.handleImport, importOp},

		// Analyses.
		{post, "/v1/analysis", memory, s.handleStoreAnalysis, storeAnalysisOp},
		{get, "/v1/analysis/{doi:.+}", memory, s.handleAnalysis, analysisOp},

		// Per-user memory.
		{post, "/v1/user/remember", memory, s.handleRemember, rememberOp},
		{post, "/v1/user/recall", memory, s.handleRecallUser, recallUserOp},
		{del, "/v1/user/memory/{key:.+}", memory, s.handleForget, forgetOp},

		// Sessions and graph. {node_id:.+} takes paper ids with slashes.
		{post, "/v1/sessions/link", memory, s.handleLinkSession, linkSessionOp},
		{get, "/v1/graph", memory, s.handleGraph, graphOp},
		{get, "/v1/graph/neighborhood/{node_id:.+}", memory, s.handleNeighborhood, neighborhoodOp},
		{post, "/v1/graph/materialize", memory, s.handleMaterialize, materializeOp},
		{get, "/v1/graph/gaps", memory, s.handleGaps, gapsOp},

		// Export.
		{post, "/v1/export/session", memory, s.handleExportSession, exportSessionOp},
		{get, "/v1/export", memory, s.handleExports, exportsOp},
		{get, "/v1/export/download", memory, s.handleExportDownload, exportDownloadOp},

		// Users and workspaces.
		{get, "/v1/users", bearer, s.handleUsers, usersOp},
		{get, "/v1/workspaces", bearer, s.handleWorkspaces, workspacesOp},
		{post, "/v1/workspaces", bearer, s.handleCreateWorkspace, createWorkspaceOp},

		// API keys.
		{post, "/v1/account/api-keys", bearer, s.handleCreateAPIKey, createAPIKeyOp},
		{get, "/v1/account/api-keys", bearer, s.handleAPIKeys, apiKeysOp},
		{del, "/v1/account/api-keys/{key_id}", bearer, s.handleRevokeAPIKey, revokeAPIKeyOp},

		// Account, billing and usage.
		{get, "/v1/account", bearer, s.handleAccount, accountOp},
		{patch, "/v1/account", bearer, s.handleUpdateAccount, updateAccountOp},
		{post, "/v1/billing/checkout", bearer, s.handleCheckout, checkoutOp},
		{post, "/v1/billing/checkout/confirm", bearer, s.handleConfirmCheckout, confirmCheckoutOp},
		{get, "/v1/usage", bearer, s.handleUsage, usageOp},
		{get, "/v1/billing", bearer, s.handleBilling, billingOp},
		{get, "/v1/analytics", bearer, s.handleAnalytics, analyticsOp},

		// Admin.
		{get, "/v1/admin/me", optional, s.handleAdminMe, adminMeOp},
		{get, "/v1/admin/overview", founder, s.handleAdminOverview, adminOverviewOp},
		{get, "/v1/admin/workspaces", founder, s.handleAdminWorkspaces, adminWorkspacesOp},
		{get, "/v1/admin/users", founder, s.handleAdminUsers, adminUsersOp},
		{get, "/v1/admin/health", founder, s.handleAdminHealth, adminHealthOp},
		{get, "/v1/admin/workspaces/{org_id}/activity", founder, s.handleAdminActivity, adminActivityOp},
		{post, "/v1/admin/workspaces/{org_id}/plan", founder, s.handleAdminSetPlan, adminSetPlanOp},
		{post, "/v1/admin/workspaces/{org_id}/users", founder, s.handleAdminCreateUser, adminCreateUserOp},
		{post, "/v1/admin/workspaces/{org_id}/users/{user_id}/disable", founder, s.handleAdminDisableUser, adminDisableUserOp},
		{post, "/v1/admin/workspaces/{org_id}/users/{user_id}/enable", founder, s.handleAdminEnableUser, adminEnableUserOp},
		{post, "/v1/admin/backup", founder, s.handleAdminBackup, adminBackupOp},

		// MCP (Streamable HTTP), with the credentials of the memory routes.
		{post, "/mcp", memory, s.handleMCP, mcpOp},
	}
}
