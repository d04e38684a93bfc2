package main

import (
	"context"
	"fmt"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/client"
)

// rawServerEnv makes this test binary serve the benchmark's tool directly
// on go-sdk (see TestMain), as the baseline for BenchmarkRoundTrip.
const rawServerEnv = "REPO_MCP_BENCH_RAW_SERVER"

// serveRaw serves echo registered directly on go-sdk with mcp.AddTool, over
// stdio: what a developer would write without this project's framework.
func serveRaw() error {
	s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "v0.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the message."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, textOut, error) {
			return nil, textOut{Text: in.Message}, nil
		})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// BenchmarkRoundTrip measures a tools/call round trip over stdio for a
// trivial tool (echo) served through server/ (validation, audit, the
// middleware chain, the frame guard) and the same tool registered directly
// on go-sdk, with the same client, in 2026-07-28. "ours-noaudit" is ours
// with the audit and operational logs discarded, to show what the audit
// line costs. bench/server.sh compares the medians of several runs.
func BenchmarkRoundTrip(b *testing.B) {
	servers := []struct {
		name string
		cmd  client.Command
	}{
		{"ours", client.Command{Path: testserver(b)}},
		{"ours-noaudit", client.Command{Path: testserver(b), Env: []string{"TESTSERVER_AUDIT_DISCARD=1"}}},
		{"gosdk", client.Command{Path: os.Args[0], Env: []string{rawServerEnv + "=1"}}},
	}
	ctx := context.Background()
	args := map[string]string{"message": "hello"}
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			c, err := client.Start(ctx, s.cmd, client.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if !c.Server().Modern {
				b.Fatalf("negotiated %s, want 2026-07-28", c.Server().ProtocolVersion)
			}
			benchlat.Measure(b, func(int) error {
				res, err := c.Call(ctx, "echo", args)
				if err == nil && res.IsError {
					err = fmt.Errorf("echo: %s", res.Text())
				}
				return err
			})
		})
	}
}
