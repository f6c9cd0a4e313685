package client

import (
	"context"
	"net/url"
	"strconv"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// Paper returns a paper's metadata, with its tags, collections and source
// (GET /v1/papers/{doi}).
func (c *Client) Paper(ctx context.Context, doi string) (*api.PaperResponse, error) {
	return call[api.PaperResponse](ctx, c, get, pathf("/v1/papers/%s", doi), nil)
}

// Papers returns a page of the workspace's papers, newest first (GET
// /v1/papers): q.Tag and q.Collection filter, q.Cursor is the previous
// page's NextCursor, q.Limit 0 means the server's default.
func (c *Client) Papers(ctx context.Context, q papermem.PaperQuery) (*api.PapersResponse, error) {
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
// scope of req.DOIs, req.Tags and req.Collections (GET /v1/papers/recall).
func (c *Client) RecallPapersIn(ctx context.Context, req papermem.PaperRecallRequest) ([]papermem.Paper, error) {
	q := url.Values{"q": {req.Query}, "dois": req.DOIs, "tags": req.Tags, "collections": req.Collections}
	if req.Limit != 0 {
		q.Set("limit", strconv.Itoa(req.Limit))
	}
	var papers []papermem.Paper
	if err := c.do(ctx, get, withQuery("/v1/papers/recall", q), nil, &papers); err != nil {
		return nil, err
	}
	return papers, nil
}
