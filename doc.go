// Package papermem is a workspace memory for research agents: papers,
// ingested documents, analyses and per-user notes, stored in one SQLite
// file (or one PostgreSQL database) and recalled as the spans of text that answer a question, within a
// token budget, each with the provenance a reader can cite.
//
// # Storing and recalling
//
// Open a Memory over a database file, or a postgres:// URL to store in
// PostgreSQL, which several servers may share. Its methods act on the default
// workspace; Memory.Workspace returns a handle with the same methods for
// any other workspace, and nothing stored in one workspace is ever seen
// from another.
//
//	m, err := papermem.Open(ctx, "papermem.db", nil)
//	...
//	m.StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/xyz", Title: "…", Text: "…"})
//	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "Does X reduce Y?", BudgetTokens: 2000})
//
// Text is split into sections, passages (Passage nodes) and the sentences
// that assert a finding (Claim nodes); a paper's title and abstract form
// its Paper node. Every node is stored in SQLite (with its vector from the
// Embedder) and searched through an in-process index per workspace: BM25
// with FTS5's terms and scoring, and vector similarity. Recall takes candidates from both, blends their normalised scores (the vector query is first moved
// toward the best full-text hits, Rocchio feedback), boosts spans carrying
// the requested keywords and scope signals, drops near-duplicates, and packs
// the best spans into the budget: TotalTokens equals the sum of the spans'
// tokens and never exceeds the budget, and spans come best first. Tokens are
// counted with the cl100k_base encoding.
//
// # Users
//
// Remember, RecallUser and Forget keep per-user notes (memories, as the
// wire calls them) inside a workspace: visible only to that user, never
// returned by Recall.
//
// # The account view
//
// Workspace.Account shows a workspace's account as the HTTP API's
// contract does — profile, notifications, plan, API keys (never their
// values), invoices and the bill of the current month — and
// Workspace.UpdateAccount edits it. What makes those records is the
// hosted service's machinery, package hosted: accounts and credentials,
// key issuing and checking, checkouts and payments, usage metering, rate
// limits and the founder console. Opening a Memory starts none of it, and
// a Memory that no hosted service serves meters nothing.
//
// # Errors
//
// Errors carry a code (EINVALID, ENOTFOUND, ECONFLICT, …) read with
// ErrorCode and a message safe to show a user, read with ErrorMessage.
// Each code has a sentinel that errors.Is matches with any error of that
// code:
//
//	_, err := ws.Paper(ctx, doi)
//	switch {
//	case errors.Is(err, papermem.ErrNotFound): // or papermem.ErrorCode(err) == papermem.ENOTFOUND
//		…
//	case errors.Is(err, papermem.ErrUnavailable): // retry shortly
//		…
//	}
//
// The codes are the HTTP API's, spelled the same (EINVALID is
// "invalid_input"), and package client returns the API's errors in these
// codes, so the same test holds for a Memory in process and for a server
// through the client. The API lacks only ECONFLICT: it sends a conflict as
// invalid_input, so through the client a conflict is EINVALID, except a
// taken email (ECONFLICT, with ErrDuplicateEmail). Package api holds the
// map. Besides the codes each method names, any method that writes may
// fail with EUNAVAILABLE (its turn did not come: retry shortly) or ENOSPACE
// (the disk is full); either way it changed nothing.
//
// # Concurrency
//
// A *Memory and its *Workspace handles are safe for concurrent use. Its
// write transactions run one at a time, in arrival order, on one
// connection (those waiting together share a commit: Options.WriteQueue,
// Options.WriteWait); reads use other connections and never wait for a
// write. Several processes may open the same file: SQLite's WAL mode and
// busy timeout serialise their writes, and each process's node index
// catches up with the others' writes before it searches. Several servers
// may open the same PostgreSQL database the same way: their writes run at
// once, and those that read before they write take turns per workspace.
// Backup copies a SQLite database while it serves (a PostgreSQL database is
// backed up with pg_dump: EUNSUPPORTED).
package papermem
