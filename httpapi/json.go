package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// decode reads the JSON object in r's body into v. The body is capped at
// Config.MaxBodyBytes (413 beyond); unknown fields are ignored; an empty
// or malformed body, trailing data or a value of the wrong type is
// EINVALID.
func (s *server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	return s.decodeBody(w, r, v, false)
}

// decodeOptional is decode for routes whose every field is optional: an
// empty body means the zero request.
func (s *server) decodeOptional(w http.ResponseWriter, r *http.Request, v any) error {
	return s.decodeBody(w, r, v, true)
}

func (s *server) decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return papermem.Errorf(papermem.EINVALID, "The request body could not be read.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return papermem.Errorf(papermem.EINVALID, "The request body must be a JSON object.")
	}
	return api.DecodeJSON(body, v)
}

// Header values of every JSON response, set by assigning to the header
// map: the keys are canonical already, and the one-element value slices
// can be shared because net/http only reads them (an append copies).
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	noSniff         = []string{"nosniff"}
	noStore         = []string{"no-store"}
)

// bufs recycles response buffers; one that grew past maxPooledBuf is
// dropped rather than kept.
var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuf = 1 << 20

// writeJSON writes v as JSON with the status. Responses are never cached:
// they carry workspace data, tokens and key values.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	buf := bufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuf {
			buf.Reset()
			bufs.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf) // ends with a newline
	enc.SetEscapeHTML(false)    // a JSON API: "<" stays "<"
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = noSniff
	h["Cache-Control"] = noStore
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// limitOf reads the query parameter limit: absent means 0 (the library's
// default), else an integer in 1..most (EINVALID otherwise).
func limitOf(r *http.Request, most int) (int, error) { return intOf(r, "limit", most) }

// intOf reads the integer query parameter name: absent means 0 (the
// library's default), else an integer in 1..most (EINVALID otherwise).
func intOf(r *http.Request, name string, most int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		return 0, papermem.Errorf(papermem.EINVALID, "%s must be an integer between 1 and %d.", name, most)
	}
	return n, nil
}

// boolOf reads the boolean query parameter name: absent means false, else
// true or false as strconv.ParseBool reads it (EINVALID otherwise).
func boolOf(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, papermem.Errorf(papermem.EINVALID, "%s must be true or false.", name)
	}
	return b, nil
}
