// Command server serves papermem's /v1 HTTP API, with MCP at /mcp and the
// dashboard at /dashboard/; the same as `papermem serve`.
//
//	server [-addr 127.0.0.1:8080] [-db ./papermem.db | -db postgres://…]
//	server [-db ./papermem.db] grant-founder EMAIL
//	server [-db ./papermem.db] backup DEST
//
// See package internal/serve for the configuration.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/papermem/papermem/internal/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve.Run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "papermem:", err)
		os.Exit(1)
	}
}
