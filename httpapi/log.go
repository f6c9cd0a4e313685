package httpapi

import (
	"context"
	"errors"
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
	keyErr      = "err"
)

// requestInfo collects, while a request is served, what its log line
// tells beyond the request itself.
type requestInfo struct {
	org  string
	cred string // session, api_key or dev; never the credential itself
}

type infoKey struct{}

// errPanic stands for a handler that panicked: an internal error.
var errPanic = errors.New("handler panicked")

// infoFrom returns the request's log info (a throwaway one outside
// logRequests).
func infoFrom(ctx context.Context) *requestInfo {
	if i, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		return i
	}
	return &requestInfo{}
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
// bodies are never logged. A panic in a handler becomes a 500.
func (s *server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{}
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
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
			s.log.InfoContext(r.Context(), "request",
				keyMethod, r.Method, keyPath, r.URL.EscapedPath(), keyStatus, sw.status, keyBytes, sw.bytes,
				keyDuration, float64(time.Since(start).Microseconds())/1000, keyOrg, info.org, keyCred, info.cred,
				keyRemote, r.RemoteAddr)
		}()
		next.ServeHTTP(sw, r)
	})
}
