package api

import (
	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// RootResponse names the service.
type RootResponse struct {
	Service    string `json:"service" doc:"always papermem"`
	APIVersion string `json:"api_version" doc:"always v1"`
	Dashboard  string `json:"dashboard" doc:"path of the web dashboard: /dashboard/"`
}

// HealthResponse is the readiness probe's answer.
type HealthResponse struct {
	Status        string `json:"status" doc:"ok (200), or unavailable (503) while a component the server needs is down"`
	Enabled       bool   `json:"enabled" doc:"the memory API accepts requests"`
	StorageMode   string `json:"storage_mode" doc:"sqlite for a database file, postgres for a PostgreSQL database, memory for -db :memory:"`
	VectorEnabled bool   `json:"vector_enabled" doc:"vector search is available (always true: on SQLite the server does not start without sqlite-vec; vectors are scored in process on either engine)"`
	// Components is absent while every component is up.
	Components map[string]string `json:"components,omitempty" doc:"present only in a 503: component name (database) to down"`
	// Origins is absent when the origins are off.
	Origins []papermem.OriginState `json:"origins,omitempty" doc:"with the origins on: each origin service's state as this server sees it; a down origin never fails the probe (stores do not wait for it)"`
}

// StatusResponse is the public availability summary.
type StatusResponse struct {
	Status        string            `json:"status" doc:"ok when every component is up, else degraded"`
	APIVersion    string            `json:"api_version"`
	UptimeSeconds int64             `json:"uptime_seconds"`
	Components    map[string]string `json:"components" doc:"component name (database) to ok or down"`
}

// SignupRequest creates an account and its workspace.
type SignupRequest struct {
	Email         string `json:"email" required:"true" doc:"unique on the platform, compared case-insensitively"`
	Password      string `json:"password" required:"true" doc:"8 to 72 bytes; stored only as a bcrypt hash"`
	Name          string `json:"name" doc:"display name; default empty"`
	OrgID         string `json:"org_id" doc:"id of the new workspace, ^[a-z0-9][a-z0-9_-]{2,63}$; default a fresh id. An existing id is refused (400 invalid_workspace): users join a workspace through the admin route."`
	WorkspaceName string `json:"workspace_name" doc:"display name of the new workspace"`
}

// TokenResponse answers signup and login.
type TokenResponse struct {
	AccessToken string      `json:"access_token" doc:"session token (JWT, HS256) for Authorization: Bearer"`
	TokenType   string      `json:"token_type" doc:"always bearer"`
	ExpiresIn   int         `json:"expires_in" doc:"seconds until the token expires: the workspace's token TTL"`
	User        hosted.User `json:"user"`
}

// LoginRequest exchanges an email and password for a session token.
type LoginRequest struct {
	Email    string `json:"email" required:"true"`
	Password string `json:"password" required:"true"`
}

// PasswordRequest changes the caller's password.
type PasswordRequest struct {
	CurrentPassword string `json:"current_password" required:"true"`
	NewPassword     string `json:"new_password" required:"true" doc:"8 to 72 bytes, as at signup"`
}

// LogoutResponse answers logout and logout-all.
type LogoutResponse struct {
	LoggedOut bool `json:"logged_out" doc:"always true"`
}

// MeResponse is the current user.
type MeResponse struct {
	hosted.User
	IsFounder bool `json:"is_founder" doc:"whether the account has founder access"`
}

// AdminMeResponse says whether the caller is a founder.
type AdminMeResponse struct {
	IsFounder bool `json:"is_founder" doc:"false without a credential, with an invalid one, or for ordinary users"`
}

// CreateKeyRequest names a new API key.
type CreateKeyRequest struct {
	Name string `json:"name" doc:"label of the key, at most 100 characters; default \"default\""`
}

// ApiKeysResponse lists the workspace's keys. (Its name is the OpenAPI
// component name, kept as it was.)
type ApiKeysResponse struct {
	APIKeys []papermem.APIKey `json:"api_keys"`
}

// RevokedResponse names the revoked key.
type RevokedResponse struct {
	Revoked string `json:"revoked"`
}

// UsersResponse lists the workspace's users.
type UsersResponse struct {
	Users   []hosted.UserActivity `json:"users"`
	Count   int                   `json:"count"`
	Current *string               `json:"current" doc:"the caller's user_id; null for an API key without X-User-Id"`
}

// WorkspacesResponse lists workspaces.
type WorkspacesResponse struct {
	Workspaces []hosted.WorkspaceSummary `json:"workspaces" doc:"each with its creator and counts of users, API keys, papers, documents and memories (notes)"`
	Current    string                    `json:"current" doc:"the credential's org_id"`
}

// CreateWorkspaceRequest creates a workspace.
type CreateWorkspaceRequest struct {
	OrgID string `json:"org_id" required:"true" doc:"^[a-z0-9][a-z0-9_-]{2,63}$; invalid or taken is 400 invalid_workspace"`
	Name  string `json:"name" doc:"display name; default empty"`
}

// CreatedWorkspace is a new workspace with its first API key.
type CreatedWorkspace struct {
	hosted.WorkspaceRecord
	APIKey *hosted.NewAPIKey `json:"api_key" doc:"the new workspace's first key; key is its value, shown this once"`
}

// AccountPatch documents the PATCH body; it is decoded into
// papermem.AccountUpdate, which keeps each object raw so that only the
// fields it names are merged.
type AccountPatch struct {
	Profile        *papermem.Profile        `json:"profile" doc:"fields given replace the stored ones, the others stay; null or absent leaves the profile. website is an http(s) URL, country an ISO 3166 alpha-2 code"`
	Notifications  *papermem.Notifications  `json:"notifications" doc:"merged likewise; usage_alert_percent is 1..100"`
	BillingContact *papermem.BillingContact `json:"billing_contact" doc:"merged likewise; email must be an email address"`
	PaymentMethod  *papermem.PaymentMethod  `json:"payment_method" doc:"merged likewise; type card, bank_transfer or invoice; a card needs brand, last4 (four digits), exp_month and exp_year. Any other field (a card number) is dropped, never stored"`
	Plan           *string                  `json:"plan" doc:"a free plan (starter, Starter Tier; any case), or an object with slug, name or tier. A paid plan is 400 invalid_input (buy it through /v1/billing/checkout); an unknown plan is 400 unknown_plan"`
}

// CheckoutRequest starts a move to a plan.
type CheckoutRequest struct {
	Plan string `json:"plan" required:"true" doc:"starter, team or enterprise, or Starter Tier, Team Tier, Enterprise Tier; any case. Unknown: 400 unknown_plan"`
}

// ConfirmRequest settles a checkout.
type ConfirmRequest struct {
	CheckoutID string  `json:"checkout_id" required:"true" doc:"from POST /v1/billing/checkout; another workspace's checkout is 404"`
	PaymentID  *string `json:"payment_id" doc:"the provider's payment id"`
	Signature  *string `json:"signature" doc:"hex(HMAC-SHA256(checkout_id + \"|\" + payment_id, PAPERMEM_PAYMENT_SECRET)) for the built-in provider"`
}

// AdminWorkspacesResponse lists every workspace.
type AdminWorkspacesResponse struct {
	Workspaces []hosted.WorkspaceSummary `json:"workspaces"`
}

// AdminUsersResponse lists every account.
type AdminUsersResponse struct {
	Users []hosted.UserSummary `json:"users"`
}

// SetPlanRequest names the tier a founder sets.
type SetPlanRequest struct {
	Tier string `json:"tier" required:"true" doc:"starter, team or enterprise, or Starter Tier, Team Tier, Enterprise Tier; any case. Unknown: 400 unknown_plan"`
}

// CreateUserRequest adds a user to a workspace.
type CreateUserRequest struct {
	Email    string `json:"email" required:"true" doc:"unique on the platform; taken is 400 duplicate_email"`
	Password string `json:"password" required:"true" doc:"8 to 72 bytes; stored only as a bcrypt hash"`
	Name     string `json:"name" doc:"display name; default empty"`
}
