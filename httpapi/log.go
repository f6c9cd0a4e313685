package httpapi

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Attribute keys of the request log.
const (
	keyMethod   = "method"
	keyPath     = "path"
	keyStatus   = "status"
	keyBytes    = "bytes"
	keyDuration = "duration_ms"
	keyOrg      = "org_id"
	keyCred     = "credential"
	keyRemote   = "remote"
	keyClient   = "client" // the client's address: remote's, or behind trusted proxies X-Forwarded-For's
	keyErr      = "err"
)

// requestInfo is the state of one request that its middleware shares: the
// principal, once authenticated, which scopes the handler's calls and
// names the workspace and kind of credential in the log line. It is the
// request's only context value, so that the request is copied once.
type requestInfo struct {
	p     *principal // nil on public routes and before authentication
	route string     // the template of the route serving it, once routed (observe.go)
}

type infoKey struct{}

// errPanic stands for a handler that panicked: an internal error.
var errPanic = errors.New("handler panicked")

// infoFrom returns the request's info, or nil outside logRequests.
func infoFrom(ctx context.Context) *requestInfo {
	i, _ := ctx.Value(infoKey{}).(*requestInfo)
	return i
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests logs one line per request: method, path, status, size,
// duration, workspace and kind of credential. Headers, query strings and
// bodies are never logged. A panic in a handler becomes a 500. It also
// gives the request its requestInfo.
func (s *server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{}
		sw := &statusWriter{ResponseWriter: w}
		ctx := r.Context()
		var observed func(route string, status int)
		if s.cfg.Observer != nil {
			ctx, observed = s.cfg.Observer.StartRequest(r)
		}
		r = r.WithContext(context.WithValue(ctx, infoKey{}, info))
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "handler panic", keyMethod, r.Method, keyPath, r.URL.EscapedPath(), "panic", v)
				if sw.status == 0 {
					s.writeError(sw, r, errPanic)
				}
			}
			if observed != nil {
				observed(info.route, cmp.Or(sw.status, http.StatusOK))
			}
			ctx := r.Context()
			if !s.log.Enabled(ctx, slog.LevelInfo) {
				return
			}
			var org, cred string
			if p := info.p; p != nil {
				org, cred = p.workspace, p.cred
			}
			s.log.LogAttrs(ctx, slog.LevelInfo, "request",
				slog.String(keyMethod, r.Method), slog.String(keyPath, r.URL.EscapedPath()),
				slog.Int(keyStatus, sw.status), slog.Int(keyBytes, sw.bytes),
				slog.Float64(keyDuration, float64(time.Since(start).Microseconds())/1000),
				slog.String(keyOrg, org), slog.String(keyCred, cred), slog.String(keyRemote, r.RemoteAddr), slog.String(keyClient, s.clientAddr(r)))
		}()
		next.ServeHTTP(sw, r)
	})
}
