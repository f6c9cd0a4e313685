// Package api is papermem's contract: the JSON bodies of the /v1 API and
// the error vocabulary, shared by the library (package papermem), the
// hosted service (package hosted), the server (package httpapi) and the Go
// client (package client), so that none can drift from another. It
// imports the standard library only: a program that calls a remote
// papermem through the client links neither the library nor a database
// driver, and builds without cgo.
//
// It defines the requests' bodies (RecallRequest, PaperRequest, …), the
// library's values as the API returns them (Paper, RecallResult, Span,
// Provenance, Account, …) and the hosted service's (User, Usage,
// Overview, …); package papermem and package hosted keep their names as
// aliases (papermem.Paper is api.Paper). The library's own inputs whose
// names the wire bodies take are RecallInput and UserRecallInput
// (papermem.RecallRequest, papermem.UserRecallRequest).
//
// The error vocabulary is the codes (EINVALID, ENOTFOUND, …), *Error,
// one sentinel per code for errors.Is (ErrNotFound, …), ErrorCode and
// ErrorMessage, and the API's own codes with the map between the two
// (Code, ErrorOf).
//
// The struct tags doc and required describe each field; httpapi's OpenAPI
// document and the MCP tools' input schemas are generated from them.
package api
