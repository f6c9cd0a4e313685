// Package api holds the JSON bodies of papermem's /v1 API that are not
// library types: the requests, the responses that wrap library values, and
// the error body with its codes. The server (package httpapi) and the Go
// client (package client) share them, so the two cannot drift apart.
//
// The struct tags doc and required describe each field; httpapi's OpenAPI
// document and the MCP tools' input schemas are generated from them.
package api
