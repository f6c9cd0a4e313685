// Package hosted is the machinery of papermem's hosted service, built over
// a papermem.Memory and used by its HTTP API (httpapi), web console
// (dashboard) and MCP endpoint: accounts (signup, login, users) and their
// session checks, API keys (issuing and checking), checkouts through a
// payment provider and the invoices they write, usage metering, rate
// limits, and the founder console. A Go program that embeds the memory
// does not need it, and opening a Memory starts none of it.
//
//	m, err := papermem.Open(ctx, "papermem.db", nil)
//	...
//	svc, err := hosted.New(m, &hosted.Options{Payments: hosted.NewSignedOrders(secret)})
//	...
//	defer m.Close()
//	defer svc.Close() // before the memory's Close
//
// # What is the memory's and what is the service's
//
// The root package keeps what a workspace is and shows: the memory, and
// the account view of a workspace as the API's contract shows it
// (papermem.Workspace.Account: profile, notifications, plan, the API keys
// listed, the invoices, the current bill), with the plan catalogue and the
// names of the usage counters that plans and bills refer to. This package
// keeps what makes and checks credentials, takes money and counts use:
// it writes the accounts, keys, checkouts, invoices and usage counts that
// the account view reads, and adds its own components (auth, usage_meter)
// to the memory's health.
//
// # Sharing the memory's database
//
// A Service keeps its records in the memory's database, through the
// memory's own read pool and write queue (papermem.Memory.Shared, typed):
// on SQLite a second handle on the file would compete with the memory for
// its one writer, and ":memory:" would be another, empty, database. The
// memory reports the usage it sees — recalls, papers stored, files
// ingested, fetches, notes remembered — to the meter of the one Service
// built over it (the Shared's MeterSlot); the Service counts it in memory
// and writes it in batches. Rate
// limits kept in the database (TakeRequest) use, on PostgreSQL, a small
// pool of the Service's own.
//
// # Credentials
//
// Signup, Login and CreateUser manage accounts; API keys authenticate with
// AuthenticateAPIKey. Session tokens are signed by the caller (the HTTP
// layer): AuthenticateSession checks that a verified token's user still
// stands, and Logout, Workspace.LogoutAll, Workspace.ChangePassword and
// DisableUser end sessions. Verified credentials are cached per Service
// against a generation number that every ending change moves, so a change
// made by another process sharing the database takes effect at once.
//
// Errors are papermem's (package api's): an *papermem.Error with its code,
// read with papermem.ErrorCode. Every exported method translates the
// database's errors (an outage is papermem.ErrUnavailable), as the
// memory's do. The bodies of its answers (User, Usage, Overview, …) are
// defined in package api, which the Go client shares; their names here
// are aliases.
package hosted
