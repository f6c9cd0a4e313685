package papermem

import (
	"context"

	"github.com/papermem/papermem/internal/hostlink"
	"github.com/papermem/papermem/internal/store"
)

// The hosted service's machinery — accounts, credentials, payments, usage
// metering, rate limits, founder admin — is package hosted, built over a
// Memory through internal/hostlink: it shares the memory's database, and
// meters what the memory reports (usage.go).
func init() {
	hostlink.Register(func(m any) *hostlink.Memory { return m.(*Memory).link() })
}

// link is what package hosted uses of m beyond its exported methods.
func (m *Memory) link() *hostlink.Memory {
	return &hostlink.Memory{DB: m.database.Read, Path: m.path, DBTimeout: m.dbTimeout, Now: m.now, Log: m.log,
		Timestamp: timestamp, Write: m.write, WriteError: writeError, DBError: dbError,
		EnsureWorkspace: func(ctx context.Context, tx *store.Tx, workspace string) error {
			return m.Workspace(workspace).ensureWorkspace(ctx, tx)
		},
		Meter: &m.meter}
}
