package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// op describes a route for the OpenAPI document. Request and response
// shapes come from Go types by reflection: a field's JSON name from its
// json tag, its description from a doc tag, its format from a format tag
// (binary for an uploaded file), required:"true" for required request
// fields; pointers are nullable.
type op struct {
	tag     string  // resource group
	summary string  // one line
	notes   string  // behaviour, and the choices the contract leaves open
	req     any     // JSON request body type (a zero value), or nil
	resp    any     // success response body type, or nil for reqType/respType below
	status  int     // success status; 0 means 200
	query   []param // query parameters
	errs    []int   // error statuses beyond those implied by access and input
	// respType is the success content type when not JSON, or several
	// separated by ", " (resp is then a plain string); reqType the request
	// content type when not JSON (req then lists the form fields).
	respType, reqType string
}

// param is a query parameter.
type param struct {
	name, typ, doc string // typ: string, integer, boolean
	required       bool
}

// apiDescription is the document's overview: the choices that hold for
// every route, with placeholders filled by describeAPI.
const apiDescription = `Workspace memory of papers, documents, analyses and per-user notes for research agents.

Conventions (choices where the contract is silent):
- Bodies are JSON objects (UTF-8). Unknown fields are ignored; malformed JSON, trailing data, wrong types and empty required strings are 400 invalid_input; so, over PostgreSQL, is text holding a NUL character (\u0000) or invalid UTF-8 anywhere in a request, which PostgreSQL cannot store (SQLite stores it). JSON bodies are capped (default 16 MiB) → 413 payload_too_large.
- Every error is {"error":{"code","message"}} with codes invalid_input, duplicate_email, invalid_workspace, unknown_plan, missing_user_id (400), unauthorized (401), forbidden (403), not_found (404), method_not_allowed (405), payload_too_large (413), unsupported_format (415), rate_limited (429), internal (500, no internals), upstream_failed (502), unavailable (503, with Retry-After), insufficient_storage (507). The Go library (package papermem) has the same codes, spelled the same (papermem.EINVALID is "invalid_input", papermem.ENOTFOUND "not_found"), each with a sentinel for errors.Is (papermem.ErrNotFound, …); the Go client returns the errors answered here in the library's codes, keeping the status and the code as sent. Three codes here refine one of the library's: duplicate_email its conflict (with papermem.ErrDuplicateEmail), invalid_workspace and missing_user_id its invalid_input (with papermem.ErrWorkspaceID, api.ErrMissingUser). The library's one code missing here, conflict, is sent as invalid_input, or as duplicate_email or invalid_workspace for a taken email or workspace id.
- Writes run one at a time in arrival order (those waiting together share a commit); reads never wait for them. A write that cannot get its turn (the queue of PAPERMEM_WRITE_QUEUE writes is full, or it waited PAPERMEM_WRITE_WAIT) is 503 unavailable with Retry-After: 1 and changed nothing; so is any request while the server shuts down (requests in flight finish), and any write, or any search once a vector of another dimension is stored, on a server whose embedder is no longer the workspace's (another server re-embedded the database with PAPERMEM_REINDEX=1; restart this one with the new embedder). A database that cannot be used for now (PostgreSQL restarting, failing over, unreachable, or out of time: a connection refused or broken, SQLSTATE 57P01-57P03, class 08, a lock or statement timeout; SQLite busy or an I/O error) is 503 unavailable with Retry-After: 1, never 500: a read or a write that failed so changed nothing, except a write whose connection broke during its commit, which says so in its message and may have been stored (check, for a paper with GET /v1/papers/{doi}/exists, before retrying; storing a paper under its DOI again updates it in place). GET /v1/health is 503 with components.database down meanwhile. A write the disk has no room for is 507 insufficient_storage and stored nothing; writes succeed again once there is room, without a restart. Every acknowledged write is durable against a crash of the process (PAPERMEM_SYNC=full: against power loss too).
- Credentials: Authorization: Bearer <API key or session token>. API keys start with "pm_"; session tokens are HS256 JWTs with claims user_id, org_id, name, email, exp, iat, jti and session_version, valid for the workspace's token TTL (default 24 h). Every call is scoped to the credential's workspace; another workspace's data is never visible (404 or empty).
- A session token stands only while its user does: on every route, a token naming no user, a user of another workspace or a disabled user, a token ended by logout, and a token from before the user's logout-all, password change or disabling are 401 unauthorized, at once on every server sharing the database. An API key created by a user stops (401) while that user is disabled.
- Per-user operations take the user from the session token, or from X-User-Id sent with an API key (the user must belong to the key's workspace, else 403). A session token naming another user in X-User-Id is 403.
- Developer headers X-Dev-Org-Id and X-Dev-User-Id are accepted on memory routes only, only when the server runs with PAPERMEM_DEV_AUTH=1, and only from loopback clients; the server refuses to start with them on a non-loopback address. A developer user id is not checked against the workspace's users.
- Rate limits: a token bucket per credential holding the plan's requests a minute ({plan_limits}; PAPERMEM_RATE_LIMIT overrides), and per client address on signup, login and password change ({auth_limit} a minute; PAPERMEM_AUTH_RATE_LIMIT overrides). Limited responses carry X-RateLimit-Limit and X-RateLimit-Remaining; a 429 also Retry-After (seconds). A bucket holds at most its limit and refills it evenly over a minute. Over SQLite each server keeps its buckets in memory by default, so each of several servers enforces the limit on the requests it serves; with PAPERMEM_SHARED_LIMITS=1 (Config.SharedLimits; the default over PostgreSQL) the buckets are kept in the database and every server spends from the same ones, so a limit of N a minute stays N across servers, at the cost of a database write per limited request (a 503 unavailable, with Retry-After, when that write cannot be made).
- Ids are a workspace's own: node ids (node_id of spans and notes, claim:<node_id> in the graph, a session's claims) and document ids (doc:<id>) count the workspace's nodes and documents from 1, never reused, so they tell nothing of other workspaces; ids shown before this numbering keep naming the same node or document. Export cursors name a record by its time and session id.
- DOIs are normalised (trimmed, "doi:" and "https://doi.org/" stripped, lower-cased) and accepted in paths with raw or %2F-encoded slashes.
- Times are RFC 3339 strings in UTC with milliseconds.`

// pathVar matches a mux path variable with an optional pattern.
var pathVar = regexp.MustCompile(`\{(\w+)(:[^}]*)?\}`)

// openAPIPath turns a mux template into an OpenAPI path.
func openAPIPath(tpl string) string { return pathVar.ReplaceAllString(tpl, "{$1}") }

// pathParamDocs describe the path variables.
var pathParamDocs = map[string]string{
	"doi":     "the paper's DOI, slashes raw (10.1000/xyz) or %2F-encoded (10.1000%2Fxyz)",
	"key":     "the memory's key (percent-encoded when it holds reserved characters)",
	"key_id":  "the API key's key_id",
	"id":      "the document's doc_id (doc:12) or its number (12); for an import, its import_id",
	"org_id":  "the workspace's id",
	"user_id": "the user's user_id",
	"node_id": "session:<session_id>, paper:<doi> or claim:<node_id>",
}

// openAPI builds the OpenAPI 3.0 document of rts.
func openAPI(rts []route) map[string]any {
	g := &schemaGen{components: map[string]any{}, names: map[reflect.Type]string{}}
	errRef := map[string]any{"$ref": "#/components/responses/Error"}
	paths := map[string]map[string]any{}
	for _, rt := range rts {
		o := rt.op
		p := openAPIPath(rt.path)
		var params []any
		for _, m := range pathVar.FindAllStringSubmatch(rt.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
				"description": pathParamDocs[m[1]], "schema": map[string]any{"type": "string"}})
		}
		for _, q := range o.query {
			params = append(params, map[string]any{"name": q.name, "in": "query", "required": q.required,
				"description": q.doc, "schema": map[string]any{"type": q.typ}})
		}
		if rt.access == memory || rt.access == bearer {
			params = append(params, map[string]any{"name": headerUserID, "in": "header", "required": false,
				"description": "with an API key: the workspace user to act for; with a session token it must be the token's user",
				"schema":      map[string]any{"type": "string"}})
		}
		status := o.status
		if status == 0 {
			status = http.StatusOK
		}
		success := map[string]any{"description": http.StatusText(status)}
		switch {
		case o.respType != "":
			content := map[string]any{}
			for _, t := range strings.Split(o.respType, ", ") {
				content[t] = map[string]any{"schema": map[string]any{"type": "string"}}
			}
			success["content"] = content
		case o.resp != nil:
			success["content"] = map[string]any{"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(o.resp))}}
		}
		responses := map[string]any{strconv.Itoa(status): success}
		errs := append([]int{http.StatusInternalServerError}, o.errs...)
		if o.req != nil || len(o.query) > 0 || len(params) > 0 {
			errs = append(errs, http.StatusBadRequest)
		}
		if o.req != nil {
			errs = append(errs, http.StatusRequestEntityTooLarge)
		}
		switch rt.access {
		case bearer, session, memory, founder:
			errs = append(errs, http.StatusUnauthorized, http.StatusTooManyRequests)
		}
		if rt.access == memory || rt.access == bearer || rt.access == founder {
			errs = append(errs, http.StatusForbidden)
		}
		for _, e := range errs {
			responses[strconv.Itoa(e)] = errRef
		}
		operation := map[string]any{
			"operationId": operationID(rt.method, p),
			"tags":        []string{o.tag},
			"summary":     o.summary,
			"description": o.notes,
			"responses":   responses,
			"security":    security(rt.access),
		}
		if len(params) > 0 {
			operation["parameters"] = params
		}
		if o.req != nil {
			ctype := o.reqType
			if ctype == "" {
				ctype = "application/json"
			}
			operation["requestBody"] = map[string]any{"required": true,
				"content": map[string]any{ctype: map[string]any{"schema": g.schema(reflect.TypeOf(o.req))}}}
		}
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(rt.method)] = operation
	}
	g.components["Error"] = g.schema(reflect.TypeOf(api.ErrorBody{}))
	return map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": ServiceName, "version": "v1", "description": describeAPI()},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.components,
			"responses": map[string]any{"Error": map[string]any{
				"description": "an error, {\"error\":{\"code\",\"message\"}}",
				"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
			}},
			"securitySchemes": map[string]any{
				"bearer":  map[string]any{"type": "http", "scheme": "bearer", "description": "an API key (pm_…) or a session token (JWT)"},
				"devOrg":  map[string]any{"type": "apiKey", "in": "header", "name": headerDevOrg, "description": "developer header, when enabled; loopback only"},
				"devUser": map[string]any{"type": "apiKey", "in": "header", "name": headerDevUser, "description": "developer header naming the user, optional with X-Dev-Org-Id"},
			},
		},
	}
}

// describeAPI fills apiDescription with the limits in force by default.
func describeAPI() string {
	var plans []string
	for _, p := range papermem.Plans {
		plans = append(plans, fmt.Sprintf("%s %d", p.Name, p.RequestsPerMinute))
	}
	return strings.NewReplacer("{plan_limits}", strings.Join(plans, ", "),
		"{auth_limit}", strconv.Itoa(DefaultAuthRateLimit)).Replace(apiDescription)
}

// security is the OpenAPI security requirement of an access class.
func security(a access) []map[string][]string {
	none := map[string][]string{}
	bearer := map[string][]string{"bearer": {}}
	switch a {
	case public:
		return []map[string][]string{}
	case optional:
		return []map[string][]string{none, bearer}
	case memory:
		return []map[string][]string{bearer, {"devOrg": {}}, {"devOrg": {}, "devUser": {}}}
	}
	return []map[string][]string{bearer}
}

// operationID derives an id such as getV1PapersDoiExists.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	up := true
	for _, r := range path {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// schemaGen turns Go types into JSON schemas, naming structs as
// components.
type schemaGen struct {
	components map[string]any
	names      map[reflect.Type]string
}

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	if t == reflect.TypeFor[json.RawMessage]() {
		return map[string]any{} // any JSON value, kept verbatim
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := g.schema(t.Elem())
		if _, ok := s["$ref"]; ok {
			return map[string]any{"allOf": []any{s}, "nullable": true}
		}
		s["nullable"] = true
		return s
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		name, ok := g.names[t]
		if !ok {
			name = componentName(t)
			for _, taken := g.components[name]; taken; _, taken = g.components[name] {
				name += "_"
			}
			g.names[t] = name
			g.components[name] = map[string]any{} // reserve, for recursive types
			g.components[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{} // interface: any JSON value
}

// componentName is t's name with its first letter upper-cased.
func componentName(t reflect.Type) string {
	n := []rune(t.Name())
	n[0] = unicode.ToUpper(n[0])
	return string(n)
}

// object is the schema of struct t, embedded structs flattened as
// encoding/json does.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			s := g.schema(f.Type)
			if fm := f.Tag.Get("format"); fm != "" {
				s["format"] = fm // e.g. binary: a file part of a multipart body
			}
			if d := f.Tag.Get("doc"); d != "" {
				if _, ok := s["$ref"]; ok {
					s = map[string]any{"allOf": []any{s}}
				}
				s["description"] = d
			}
			props[name] = s
			if f.Tag.Get("required") == "true" {
				required = append(required, name)
			}
		}
	}
	walk(t)
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Strings(required)
		s["required"] = required
	}
	return s
}

// handleOpenAPI serves the document, built once.
func (s *server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	s.openAPIOnce.Do(func() {
		s.openAPIDoc, s.openAPIErr = json.Marshal(openAPI(s.routes()))
	})
	if s.openAPIErr != nil {
		return s.openAPIErr
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, err := w.Write(s.openAPIDoc)
	return err
}

var openAPIOp = op{tag: "health", summary: "The OpenAPI 3 document of every route",
	notes: "Generated from the server's route table and the Go types of requests and responses.",
	resp:  map[string]any{}}
