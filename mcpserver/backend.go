package mcpserver

import (
	"context"
	"io"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
)

// Backend is the memory the tools act on, with the signatures of the /v1
// routes they mirror: *client.Client is one (a running server), Local
// another (an in-process workspace).
type Backend interface {
	Recall(ctx context.Context, req api.RecallRequest) (*papermem.RecallResult, error)
	RecallPapersIn(ctx context.Context, req papermem.PaperRecallRequest) ([]papermem.Paper, error)
	StorePaper(ctx context.Context, req api.PaperRequest) (*api.StorePaperResponse, error)
	PaperExists(ctx context.Context, doi string) (bool, error)
	Cite(ctx context.Context, doi, format string) (string, error)
	FetchPaper(ctx context.Context, doi string) (*papermem.FetchResult, error)
	Ingest(ctx context.Context, name string, r io.Reader, opts papermem.IngestOptions) (*papermem.IngestReport, error)
	StoreAnalysis(ctx context.Context, req api.AnalysisRequest) (*api.StoredAnalysis, error)
	Analysis(ctx context.Context, doi string) (*papermem.Analysis, error)
	Remember(ctx context.Context, req api.RememberRequest) (*papermem.Remembered, error)
	RecallUser(ctx context.Context, req api.UserRecallRequest) (*papermem.RecallResult, error)
	Forget(ctx context.Context, key string) (*api.DeletedResponse, error)
	LinkSession(ctx context.Context, req api.LinkRequest) (*papermem.SessionLinks, error)
	ExportSession(ctx context.Context, req api.ExportRequest) (*papermem.Exported, error)
	Graph(ctx context.Context, seedSession string, hops int) (*papermem.Subgraph, error)
	References(ctx context.Context, doi string, refresh bool) (*papermem.CitationList, error)
	Citations(ctx context.Context, doi string, refresh bool) (*papermem.CitationList, error)
	Related(ctx context.Context, doi string, limit int) ([]papermem.CitationRelated, error)
	Gaps(ctx context.Context, limit int) ([]papermem.CitationGap, error)
	Paper(ctx context.Context, doi string) (*api.PaperResponse, error)
	Papers(ctx context.Context, q papermem.PaperQuery) (*api.PapersResponse, error)
	DeletePaper(ctx context.Context, doi string) (*api.DeletedResponse, error)
	DeleteDocument(ctx context.Context, id string) (*api.DeletedResponse, error)
	StartImport(ctx context.Context, req api.ImportRequest) (*papermem.Import, error)
	ImportFile(ctx context.Context, name string, r io.Reader, source string) (*papermem.Import, error)
	ImportStatus(ctx context.Context, id int64) (*papermem.Import, error)
	Imports(ctx context.Context, limit int) (*api.ImportsResponse, error)
}

// Local returns the Backend of workspace ws acting for user ("" means no
// user: per-user memory then fails with api.ErrMissingUser).
func Local(ws *papermem.Workspace, user string) Backend {
	return &local{ws: ws, user: user}
}

type local struct {
	ws   *papermem.Workspace
	user string
}

func (l *local) Recall(ctx context.Context, req api.RecallRequest) (*papermem.RecallResult, error) {
	in, err := req.Input()
	if err != nil {
		return nil, err
	}
	return l.ws.Recall(ctx, in)
}

func (l *local) RecallPapersIn(ctx context.Context, req papermem.PaperRecallRequest) ([]papermem.Paper, error) {
	return l.ws.RecallPapers(ctx, req)
}

func (l *local) StorePaper(ctx context.Context, req api.PaperRequest) (*api.StorePaperResponse, error) {
	p, rep, err := l.ws.StorePaper(ctx, req.Input())
	if err != nil {
		return nil, err
	}
	return &api.StorePaperResponse{Paper: *p, Report: rep}, nil
}

func (l *local) PaperExists(ctx context.Context, doi string) (bool, error) {
	return l.ws.PaperExists(ctx, doi)
}

func (l *local) Cite(ctx context.Context, doi, format string) (string, error) {
	c, err := l.ws.Cite(ctx, doi, format)
	if err != nil {
		return "", err
	}
	return c.Text, nil
}

func (l *local) FetchPaper(ctx context.Context, doi string) (*papermem.FetchResult, error) {
	return l.ws.FetchPaper(ctx, doi)
}

func (l *local) Ingest(ctx context.Context, name string, r io.Reader, opts papermem.IngestOptions) (*papermem.IngestReport, error) {
	return l.ws.IngestFile(ctx, name, r, opts)
}

func (l *local) StoreAnalysis(ctx context.Context, req api.AnalysisRequest) (*api.StoredAnalysis, error) {
	a, err := l.ws.StoreAnalysis(ctx, req.Input())
	if err != nil {
		return nil, err
	}
	return api.NewStoredAnalysis(a), nil
}

func (l *local) Analysis(ctx context.Context, doi string) (*papermem.Analysis, error) {
	return l.ws.Analysis(ctx, doi)
}

func (l *local) Remember(ctx context.Context, req api.RememberRequest) (*papermem.Remembered, error) {
	if l.user == "" {
		return nil, api.ErrMissingUser
	}
	return l.ws.Remember(ctx, l.user, req.Input())
}

func (l *local) RecallUser(ctx context.Context, req api.UserRecallRequest) (*papermem.RecallResult, error) {
	if l.user == "" {
		return nil, api.ErrMissingUser
	}
	in, err := req.Input()
	if err != nil {
		return nil, err
	}
	return l.ws.RecallUser(ctx, l.user, in)
}

func (l *local) Forget(ctx context.Context, key string) (*api.DeletedResponse, error) {
	if l.user == "" {
		return nil, api.ErrMissingUser
	}
	if err := l.ws.Forget(ctx, l.user, key); err != nil {
		return nil, err
	}
	return &api.DeletedResponse{Deleted: key}, nil
}

func (l *local) LinkSession(ctx context.Context, req api.LinkRequest) (*papermem.SessionLinks, error) {
	return l.ws.LinkSession(ctx, papermem.SessionLink{SessionID: req.SessionID, UserID: l.user,
		Papers: req.Papers, Claims: req.Claims})
}

func (l *local) ExportSession(ctx context.Context, req api.ExportRequest) (*papermem.Exported, error) {
	rec, err := req.Record(l.user)
	if err != nil {
		return nil, err
	}
	return l.ws.ExportSession(ctx, rec)
}

func (l *local) Graph(ctx context.Context, seedSession string, hops int) (*papermem.Subgraph, error) {
	return l.ws.Graph(ctx, seedSession, hops)
}
