package client_test

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

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
		measure(b, func() error {
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
		measure(b, func() error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
			return err
		})
	})
}

// measure runs call b.N times and reports calls/s and the median latency.
func measure(b *testing.B, call func() error) {
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
}
