package dashboard

import "net/http"

// routes lists every dashboard page. Pages behind signedIn need the
// session cookie and, for POST, the CSRF token; founderOnly pages also
// need founder access. The pages that work on memory as the /v1 API does
// (papers, recall, upload, starting an import, graph) are metered: each counts as an API
// request.
func (h *handler) routes() {
	m := h.mux
	m.HandleFunc("GET /dashboard/login", h.loginPage)
	m.HandleFunc("POST /dashboard/login", h.login)
	m.HandleFunc("GET /dashboard/signup", h.signupPage)
	m.HandleFunc("POST /dashboard/signup", h.signup)
	m.Handle("POST /dashboard/logout", h.signedIn(h.logout))

	m.Handle("GET /dashboard/{$}", h.signedIn(h.overview))

	m.Handle("GET /dashboard/papers", h.signedIn(h.metered(h.papers)))
	m.Handle("GET /dashboard/papers/{doi...}", h.signedIn(h.metered(h.paper)))
	m.Handle("POST /dashboard/upload", h.signedIn(h.metered(h.upload)))
	m.Handle("GET /dashboard/imports", h.signedIn(h.imports))
	m.Handle("POST /dashboard/imports", h.signedIn(h.metered(h.startImport)))

	m.Handle("GET /dashboard/recall", h.signedIn(h.recallPage))
	m.Handle("POST /dashboard/recall", h.signedIn(h.metered(h.recall)))

	m.Handle("GET /dashboard/billing", h.signedIn(h.billing))
	m.Handle("POST /dashboard/billing/checkout", h.signedIn(h.checkout))
	m.Handle("POST /dashboard/billing/pay", h.signedIn(h.pay))

	m.Handle("GET /dashboard/graph", h.signedIn(h.metered(h.graph)))
	m.Handle("GET /dashboard/users", h.signedIn(h.users))
	m.Handle("POST /dashboard/users", h.founderOnly(h.addUser))

	m.Handle("GET /dashboard/keys", h.signedIn(h.keys))
	m.Handle("POST /dashboard/keys", h.signedIn(h.createKey))
	m.Handle("GET /dashboard/keys/{id}/revoke", h.signedIn(h.confirmRevoke))
	m.Handle("POST /dashboard/keys/{id}/revoke", h.signedIn(h.revokeKey))

	m.Handle("GET /dashboard/founder", h.founderOnly(h.founder))
	m.Handle("POST /dashboard/founder/workspaces/{org}/plan", h.founderOnly(h.setPlan))

	m.Handle("/dashboard/", h.signedIn(func(w http.ResponseWriter, r *http.Request, v *viewer) error {
		return errNoPage
	}))
}

// metered counts a page as one API request of the viewer's workspace, as
// the /v1 route doing the same work counts: the usage the dashboard shows
// then holds the dashboard's own work on memory.
func (h *handler) metered(f pageFunc) pageFunc {
	return func(w http.ResponseWriter, r *http.Request, v *viewer) error {
		h.svc.Workspace(v.User.WorkspaceID).CountAPIRequest()
		return f(w, r, v)
	}
}
