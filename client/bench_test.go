package client_test

import (
	"context"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/client"
)

// BenchmarkCall measures a trivial tools/call (test_simple_text on go-sdk's
// conformance server, one process per sub-benchmark, 2026-07-28 for both)
// through this client and through the go-sdk client. bench/client.sh compares
// the two from the medians of several runs.
func BenchmarkCall(b *testing.B) {
	server := goSDKServer(b)
	ctx := context.Background()
	const tool = "test_simple_text"

	b.Run("ours", func(b *testing.B) {
		c, err := client.Start(ctx, server, client.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if !c.Server().Modern {
			b.Fatalf("negotiated %s; want 2026-07-28", c.Server().ProtocolVersion)
		}
		benchlat.Measure(b, func(int) error {
			_, err := c.Call(ctx, tool, nil)
			return err
		})
	})

	b.Run("gosdk", func(b *testing.B) {
		cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(server.Path)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		if v := cs.InitializeResult().ProtocolVersion; v != client.ModernVersion {
			b.Fatalf("negotiated %s; want 2026-07-28", v)
		}
		benchlat.Measure(b, func(int) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
			return err
		})
	})
}
