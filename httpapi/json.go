package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/papermem/papermem"
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
	return decodeJSON(body, v)
}

// decodeJSON decodes one JSON object from body into v.
func decodeJSON(body []byte, v any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return papermem.Errorf(papermem.EINVALID, "The request body must be a JSON object.")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return papermem.Errorf(papermem.EINVALID, "The request body must hold exactly one JSON object.")
	}
	return nil
}

// jsonError turns a decoding error into an EINVALID that names the field.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return papermem.Errorf(papermem.EINVALID, "Field %s must be %s, not %s.", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return papermem.Errorf(papermem.EINVALID, "Malformed JSON at byte %d.", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return papermem.Errorf(papermem.EINVALID, "Malformed JSON: the body ends too early.")
	}
	return papermem.Errorf(papermem.EINVALID, "Malformed JSON: %s.", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonKind names a Go kind as a JSON type.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "float32", "float64":
		return "a number"
	}
	if strings.HasPrefix(kind, "int") || strings.HasPrefix(kind, "uint") {
		return "an integer"
	}
	return fmt.Sprintf("of type %s", kind)
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
