package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DecodeJSON decodes the one JSON object in body into v, as the server
// decodes request bodies: unknown fields are ignored; anything but one
// object, malformed JSON or a value of the wrong type is EINVALID with a
// message naming the field.
func DecodeJSON(body []byte, v any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Errorf(EINVALID, "The request body must be a JSON object.")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return Errorf(EINVALID, "The request body must hold exactly one JSON object.")
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
		return Errorf(EINVALID, "Field %s must be %s, not %s.", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return Errorf(EINVALID, "Malformed JSON at byte %d.", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(EINVALID, "Malformed JSON: the body ends too early.")
	}
	return Errorf(EINVALID, "Malformed JSON: %s.", strings.TrimPrefix(err.Error(), "json: "))
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
