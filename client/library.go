package client

import (
	"context"
	"io"
	"net/url"
	"strconv"

	"github.com/papermem/papermem/api"
)

// Paper returns the stored paper (GET /v1/papers/{doi}): its metadata,
// whose Metadata says whether its origins' metadata is still pending, with
// its venue, tags, collections and source.
func (c *Client) Paper(ctx context.Context, doi string) (*api.PaperResponse, error) {
	return call[api.PaperResponse](ctx, c, get, pathf("/v1/papers/%s", doi), nil)
}

// Papers returns a page of the workspace's papers, newest first (GET
// /v1/papers): q.Tag and q.Collection filter, q.Cursor is the previous
// page's NextCursor, q.Limit 0 means the server's default.
func (c *Client) Papers(ctx context.Context, q api.PaperQuery) (*api.PapersResponse, error) {
	v := url.Values{"tag": {q.Tag}, "collection": {q.Collection}, "cursor": {q.Cursor}}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return call[api.PapersResponse](ctx, c, get, withQuery("/v1/papers", v), nil)
}

// DeleteDocument removes a document and its passages (DELETE
// /v1/documents/{id}); id is its doc_id ("doc:12").
func (c *Client) DeleteDocument(ctx context.Context, id string) (*api.DeletedResponse, error) {
	return call[api.DeletedResponse](ctx, c, del, pathf("/v1/documents/%s", id), nil)
}

// RecallPapersIn ranks the workspace's papers for req.Query within the
// scope of req.DOIs, req.Tags and req.Collections, up to req.Limit of them
// when req.Fill is set (GET /v1/papers/recall; fill=true).
func (c *Client) RecallPapersIn(ctx context.Context, req api.PaperRecallRequest) ([]api.Paper, error) {
	q := url.Values{"q": {req.Query}, "dois": req.DOIs, "tags": req.Tags, "collections": req.Collections}
	if req.Limit != 0 {
		q.Set("limit", strconv.Itoa(req.Limit))
	}
	if req.Fill {
		q.Set("fill", "true")
	}
	var papers []api.Paper
	if err := c.do(ctx, get, withQuery("/v1/papers/recall", q), nil, &papers); err != nil {
		return nil, err
	}
	return papers, nil
}

// StartImport starts importing a Zotero library (POST /v1/imports with
// req as JSON); ImportStatus follows it.
func (c *Client) StartImport(ctx context.Context, req api.ImportRequest) (*api.Import, error) {
	return call[api.Import](ctx, c, post, "/v1/imports", req)
}

// ImportFile starts importing an export file named name, read from r
// (POST /v1/imports, multipart): its entries become papers; the server
// reads no attached file. source "" means the format of name's extension.
func (c *Client) ImportFile(ctx context.Context, name string, r io.Reader, source string) (*api.Import, error) {
	return upload[api.Import](ctx, c, "/v1/imports", name, r, [][2]string{{"source", source}})
}

// ImportStatus returns an import's progress (GET /v1/imports/{id}).
func (c *Client) ImportStatus(ctx context.Context, id int64) (*api.Import, error) {
	return call[api.Import](ctx, c, get, "/v1/imports/"+strconv.FormatInt(id, 10), nil)
}

// Imports lists the workspace's imports, newest first (GET /v1/imports);
// limit 0 means the server's default.
func (c *Client) Imports(ctx context.Context, limit int) (*api.ImportsResponse, error) {
	return call[api.ImportsResponse](ctx, c, get, withQuery("/v1/imports", limitQuery(limit)), nil)
}
