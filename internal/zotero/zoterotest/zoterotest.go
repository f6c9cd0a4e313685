// Package zoterotest is a stand-in for the Zotero web API v3, and for
// Zotero desktop's local API, for tests: one library served in the API's
// formats (item JSON with key, version, meta and data; paging with start,
// limit, Total-Results and Link; Last-Modified-Version,
// If-Modified-Since-Version and since; /deleted; file downloads by
// redirect), with a key check and injectable rate limits.
package zoterotest

import (
	"crypto/md5"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Library is one Zotero library. Its methods are safe for concurrent use.
type Library struct {
	// Path is the library's path: "users/4242" (users/0 for Local).
	Path string
	// Key is the API key it accepts; "" accepts requests without one
	// (the local API).
	Key string
	// Local answers a file's location as a file:// URL in FileDir, as
	// Zotero desktop does.
	Local   bool
	FileDir string
	// NoLinks pages lists with Total-Results and no Link header, as a
	// server that pages only when asked may.
	NoLinks bool

	mu       sync.Mutex
	version  int64
	items    map[string]*item
	deleted  map[string]int64 // key → the version it was deleted at
	files    map[string][]byte
	requests []string
	throttle int // the next requests answered 429
	inFlight int
	maxIn    int
	srv      *httptest.Server
}

type item struct {
	version int64
	data    map[string]any
}

// New returns an empty library at path with key.
func New(path, key string) *Library {
	return &Library{Path: path, Key: key, items: map[string]*item{}, deleted: map[string]int64{}, files: map[string][]byte{}}
}

// Put creates or edits item key with data (itemType, title, creators, …;
// parentItem for a child), at a new library version.
func (l *Library) Put(key string, data map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.version++
	d := map[string]any{"key": key}
	for k, v := range data {
		d[k] = v
	}
	d["version"] = l.version
	l.items[key] = &item{version: l.version, data: d}
	delete(l.deleted, key)
}

// PutFile stores the file of attachment key (its md5 changes with it).
func (l *Library) PutFile(key string, b []byte, data map[string]any) {
	d := map[string]any{"itemType": "attachment", "linkMode": "imported_file", "contentType": "application/pdf",
		"md5": fmt.Sprintf("%x", md5.Sum(b)), "filename": key + ".pdf"}
	for k, v := range data {
		d[k] = v
	}
	l.mu.Lock()
	l.files[key] = b
	l.mu.Unlock()
	l.Put(key, d)
}

// Delete deletes item key at a new library version.
func (l *Library) Delete(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.version++
	delete(l.items, key)
	l.deleted[key] = l.version
}

// Throttle answers the next n requests with 429 and Retry-After: 1.
func (l *Library) Throttle(n int) {
	l.mu.Lock()
	l.throttle = n
	l.mu.Unlock()
}

// Requests returns the requests served (path and query), and forgets them.
func (l *Library) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.requests
	l.requests = nil
	return r
}

// MaxInFlight returns the most requests that were served at once.
func (l *Library) MaxInFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.maxIn
}

// Start serves the library on a new local server, closed by the caller
// (tb.Cleanup(srv.Close)), and returns it: its URL is the API's base.
func (l *Library) Start() *httptest.Server {
	l.srv = httptest.NewServer(l)
	return l.srv
}

// ServeHTTP serves the API.
func (l *Library) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.requests = append(l.requests, r.URL.RequestURI())
	l.inFlight++
	l.maxIn = max(l.maxIn, l.inFlight)
	throttled := l.throttle > 0
	if throttled {
		l.throttle--
	}
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.inFlight--
		l.mu.Unlock()
	}()
	if throttled {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/download/") {
		l.mu.Lock()
		b, ok := l.files[strings.TrimPrefix(r.URL.Path, "/download/")]
		l.mu.Unlock()
		if !ok || r.Header.Get("Zotero-API-Key") != "" {
			http.Error(w, "Not found", http.StatusNotFound) // and the key never reaches the storage
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(b)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/"+l.Path+"/")
	if !ok {
		http.Error(w, "Not found", http.StatusNotFound)
		return
	}
	if l.Key != "" && r.Header.Get("Zotero-API-Key") != l.Key {
		http.Error(w, "Forbidden", http.StatusForbidden)
		return
	}
	if r.Header.Get("Zotero-API-Version") != "3" {
		http.Error(w, "Zotero-API-Version 3 expected", http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	w.Header().Set("Last-Modified-Version", strconv.FormatInt(l.version, 10))
	q := r.URL.Query()
	since, _ := strconv.ParseInt(q.Get("since"), 10, 64)
	parts := strings.Split(rest, "/")
	switch {
	case rest == "items":
		if v, err := strconv.ParseInt(r.Header.Get("If-Modified-Since-Version"), 10, 64); err == nil && v >= l.version {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		var list []*item
		keys := q.Get("itemKey")
		for _, it := range l.items {
			if it.version > since && (keys == "" || slices.Contains(strings.Split(keys, ","), it.data["key"].(string))) {
				list = append(list, it)
			}
		}
		l.page(w, r, withoutCollections(list), l.itemJSON)
	case len(parts) == 3 && parts[0] == "items" && parts[2] == "children":
		var list []*item
		for _, it := range l.items {
			if it.data["parentItem"] == parts[1] {
				list = append(list, it)
			}
		}
		l.page(w, r, withoutCollections(list), l.itemJSON)
	case len(parts) == 3 && parts[0] == "items" && parts[2] == "file":
		if _, ok := l.files[parts[1]]; !ok {
			http.Error(w, "Not found", http.StatusNotFound)
			return
		}
		if l.Local {
			p := filepath.Join(l.FileDir, parts[1]+".pdf")
			os.WriteFile(p, l.files[parts[1]], 0o644)
			w.Header().Set("Location", (&url.URL{Scheme: "file", Path: p}).String())
		} else {
			w.Header().Set("Location", "/download/"+parts[1]+"?signature=s3")
		}
		w.WriteHeader(http.StatusFound)
	case rest == "collections":
		var cols []*item
		for _, it := range l.items {
			if it.data["itemType"] == "collection" {
				cols = append(cols, it)
			}
		}
		l.page(w, r, cols, func(c *item) map[string]any {
			return map[string]any{"key": c.data["key"], "version": c.version, "data": map[string]any{"key": c.data["key"], "name": c.data["name"]}}
		})
	case rest == "deleted":
		var keys []string
		for k, v := range l.deleted {
			if v > since {
				keys = append(keys, k)
			}
		}
		writeJSON(w, map[string]any{"collections": []string{}, "items": keys, "searches": []string{}, "tags": []string{}, "settings": []string{}})
	default:
		http.Error(w, "Not found", http.StatusNotFound)
	}
}

// withoutCollections returns list without its collections, which are
// items of this stand-in but not of the API's item lists.
func withoutCollections(list []*item) []*item {
	return slices.DeleteFunc(list, func(it *item) bool { return it.data["itemType"] == "collection" })
}

// page answers one page of list, each entry as entry makes it, as the API
// does: start and limit, Total-Results, Link with rel="next" and
// "alternate" (none with NoLinks).
func (l *Library) page(w http.ResponseWriter, r *http.Request, list []*item, entry func(*item) map[string]any) {
	slices.SortFunc(list, func(a, b *item) int { return strings.Compare(a.data["key"].(string), b.data["key"].(string)) })
	q := r.URL.Query()
	start, _ := strconv.Atoi(q.Get("start"))
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 || limit > 100 {
		limit = 25
	}
	total := len(list)
	end := min(start+limit, total)
	start = min(start, total)
	w.Header().Set("Total-Results", strconv.Itoa(total))
	if end < total && !l.NoLinks {
		next := *r.URL
		nq := next.Query()
		nq.Set("start", strconv.Itoa(end))
		next.RawQuery = nq.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next", <%s%s>; rel="alternate"`, l.srv.URL, next.RequestURI(), l.srv.URL, "/"+l.Path))
	}
	out := make([]map[string]any, 0, end-start)
	for _, it := range list[start:end] {
		out = append(out, entry(it))
	}
	writeJSON(w, out)
}

// itemJSON is item it as the API answers it, with key, version, library,
// meta (numChildren for a parent item) and data.
func (l *Library) itemJSON(it *item) map[string]any {
	children := 0
	for _, c := range l.items {
		if c.data["parentItem"] == it.data["key"] {
			children++
		}
	}
	meta := map[string]any{}
	if it.data["itemType"] != "note" && it.data["itemType"] != "attachment" {
		meta["numChildren"] = children
	}
	return map[string]any{"key": it.data["key"], "version": it.version,
		"library": map[string]any{"type": "user", "id": 4242, "name": "ada"}, "meta": meta, "data": it.data}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
