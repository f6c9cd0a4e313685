package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A mutation is one small breaking change to one file: the bytes at
// Offset, Old, become New. Pkgs are the packages whose tests should catch
// it, run in this order until one fails.
type mutation struct {
	File   string // slash path from the module root
	Offset int
	Old    string
	New    string
	Why    string
	Pkgs   []string
	line   int
}

// Name is the mutation's place, file:line, which -run matches.
func (m *mutation) Name() string { return fmt.Sprintf("%s:%d", m.File, m.line) }

// Packages whose tests guard each kind of code.
var (
	storePkgs  = []string{"./internal/store", "./internal/nodeindex", ".", "./hosted", "./httpapi"}
	fetchPkgs  = []string{"./internal/fetch", ".", "./httpapi"}
	hostedPkgs = []string{"./hosted", "./httpapi"}
	httpPkgs   = []string{"./httpapi"}
)

// predicate matches a tenancy predicate in an SQL string: a column org_id
// or user_id, optionally qualified, compared to a bound parameter (?, ?N)
// or to the same column of another table in a join (the upsert
// pseudo-table "excluded" included). Comparisons to literals and CASE
// expressions are not tenancy predicates, nor are assignments (see
// assignment).
var predicate = regexp.MustCompile(`\b(?:[a-z_]+\.)?(org_id|user_id) = (?:\?\d*|[a-z_]+\.(?:org_id|user_id))`)

// storeMutations finds every tenancy predicate in internal/store's
// non-test Go files and makes it always true.
func storeMutations(root string) ([]mutation, error) {
	files, err := filepath.Glob(filepath.Join(root, "internal", "store", "*.go"))
	if err != nil {
		return nil, err
	}
	var ms []mutation
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator)))
		for _, loc := range predicate.FindAllIndex(src, -1) {
			if assignment(src[:loc[0]]) {
				continue
			}
			old := string(src[loc[0]:loc[1]])
			ms = append(ms, mutation{File: rel, Offset: loc[0], Old: old, New: "(" + old + " OR 1=1)",
				Why: "tenancy predicate always true", Pkgs: storePkgs})
		}
	}
	return ms, nil
}

// assignment reports whether a match after before is the assignment of
// an UPDATE's SET list rather than a predicate.
func assignment(before []byte) bool {
	b := strings.TrimRight(string(before), " \t\n")
	return strings.HasSuffix(b, ",") || strings.HasSuffix(b, "SET")
}

// guard is a hand-written mutation: Old must occur exactly once in File.
type guard struct {
	File, Old, New, Why string
	Pkgs                []string
}

// guards are the SSRF guard of internal/fetch and the authentication and
// authorization checks, each switched off in turn.
var guards = []guard{
	// internal/fetch: what an origin URL may reach.
	{"internal/fetch/fetch.go", "if len(via) >= DefaultMaxRedirects {", "if false {", "no redirect cap", fetchPkgs},
	{"internal/fetch/fetch.go", "return checkURL(req.URL)", "return nil", "no scheme check on a redirect", fetchPkgs},
	{"internal/fetch/fetch.go", "if err := checkURL(u); err != nil {", "if err := checkURL(u); err != nil && false {", "no scheme check on the URL", fetchPkgs},
	{"internal/fetch/fetch.go", "if ip == nil || !Public(ip) {", "if ip == nil {", "no address check on dial", fetchPkgs},
	{"internal/fetch/fetch.go", "	if o.AllowPrivate {\n		return newFetcher(o, nil)", "	if true {\n		return newFetcher(o, nil)", "guard never installed", fetchPkgs},
	{"internal/fetch/fetch.go", "v4[0] == 100 && v4[1]&0xc0 == 64", "false", "shared address space public", fetchPkgs},
	{"internal/fetch/fetch.go", "if v4[0] == 0 {", "if false {", `"this network" public`, fetchPkgs},
	{"internal/fetch/fetch.go", "ip.IsLoopback() || ip.IsPrivate()", "ip.IsPrivate()", "loopback public", fetchPkgs},
	{"internal/fetch/fetch.go", "ip.IsLoopback() || ip.IsPrivate() ||", "ip.IsLoopback() ||", "private ranges public", fetchPkgs},
	{"internal/fetch/fetch.go", "ip.IsLinkLocalUnicast() ||", "", "link-local public", fetchPkgs},
	{"internal/fetch/fetch.go", "|| ip.IsUnspecified()", "", "unspecified public", fetchPkgs},
	{"internal/fetch/fetch.go", "if trusted[strings.ToLower(addr)] {", "if true {", "every host trusted", fetchPkgs},

	// hosted: credentials.
	{"hosted/auth.go", "if subtle.ConstantTimeCompare(rows[i].Hash, sum[:]) == 1 {", "if true {", "any key with a known prefix", hostedPkgs},
	{"hosted/auth.go", "if subtle.ConstantTimeCompare(e.hash[:], sum[:]) == 1 {", "if true {", "cached key matched by prefix only", hostedPkgs},
	{"hosted/auth.go", "if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {", "if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil && false {", "any password", hostedPkgs},
	{"hosted/auth.go", "	if r.Disabled {\n		return nil, errDisabled", "	if false {\n		return nil, errDisabled", "disabled account logs in", hostedPkgs},

	// httpapi: who a request acts for and what it may reach.
	{"httpapi/auth.go", "jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),", "", "JWT algorithm not pinned", httpPkgs},
	{"httpapi/auth.go", "jwt.WithExpirationRequired(), ", "", "JWT without expiry accepted", httpPkgs},
	{"httpapi/auth.go", "if err != nil || c.UserID == \"\" || c.ID == \"\" || !papermem.ValidWorkspaceID(c.OrgID) {", "if err != nil {", "JWT without user, id or workspace accepted", httpPkgs},
	{"httpapi/auth.go", "if rt.access == founder && !s.isFounder(r.Context(), p) {", "if false {", "founder routes open to any credential", httpPkgs},
	{"httpapi/auth.go", "if err != nil || u.WorkspaceID != p.workspace {", "if err != nil {", "founder of another workspace", httpPkgs},
	{"httpapi/auth.go", "if p == nil || p.user == \"\" || p.cred == credDev {", "if p == nil || p.user == \"\" {", "developer headers as founder", httpPkgs},
	{"httpapi/auth.go", "if named != \"\" && named != sess.UserID {", "if false {", "session token acts for another user", httpPkgs},
	{"httpapi/auth.go", "			if u.Disabled {\n				return nil, papermem.Errorf(papermem.EFORBIDDEN, \"User %q is disabled.\", named)", "			if u.Disabled && false {\n				return nil, papermem.Errorf(papermem.EFORBIDDEN, \"User %q is disabled.\", named)", "API key acts for a disabled user", httpPkgs},
	{"httpapi/auth.go", "		if a == session {\n			return nil, errNeedSession", "		if false {\n			return nil, errNeedSession", "API key on a session-only route", httpPkgs},
	{"httpapi/auth.go", "if a == memory && s.cfg.DevAuth && r.Header.Get(headerDevOrg) != \"\" {", "if s.cfg.DevAuth && r.Header.Get(headerDevOrg) != \"\" {", "developer headers on account routes", httpPkgs},
	{"httpapi/auth.go", "if ip := net.ParseIP(s.clientAddr(r)); ip == nil || !ip.IsLoopback() {", "if ip := net.ParseIP(s.clientAddr(r)); false && (ip == nil || !ip.IsLoopback()) {", "developer headers from any address", httpPkgs},
}

// guardMutations places the guards in the current source.
func guardMutations(root string) ([]mutation, error) {
	var ms []mutation
	for _, g := range guards {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(g.File)))
		if err != nil {
			return nil, err
		}
		if n := strings.Count(string(src), g.Old); n != 1 {
			return nil, fmt.Errorf("%s: %q occurs %d times, want once (%s)", g.File, g.Old, n, g.Why)
		}
		ms = append(ms, mutation{File: g.File, Offset: strings.Index(string(src), g.Old), Old: g.Old, New: g.New,
			Why: g.Why, Pkgs: g.Pkgs})
	}
	return ms, nil
}

// mutations lists every mutation under the module root, each with the
// line it starts on.
func mutations(root string) ([]mutation, error) {
	store, err := storeMutations(root)
	if err != nil {
		return nil, err
	}
	gs, err := guardMutations(root)
	if err != nil {
		return nil, err
	}
	ms := slices.Concat(store, gs)
	for i := range ms {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ms[i].File)))
		if err != nil {
			return nil, err
		}
		ms[i].line = 1 + strings.Count(string(src[:ms[i].Offset]), "\n")
	}
	return ms, nil
}

// apply returns src with the mutation made.
func (m *mutation) apply(src []byte) ([]byte, error) {
	if m.Offset+len(m.Old) > len(src) || string(src[m.Offset:m.Offset+len(m.Old)]) != m.Old {
		return nil, fmt.Errorf("%s: source changed", m.Name())
	}
	return slices.Concat(src[:m.Offset], []byte(m.New), src[m.Offset+len(m.Old):]), nil
}
