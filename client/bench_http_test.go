package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// BenchmarkCallHTTP measures a trivial tools/call over Streamable HTTP
// (2026-07-28, stateless, JSON answers) against one in-process go-sdk
// server, through this client and through the go-sdk client, each over
// loopback TCP with its connections kept alive. bench/client-http.sh
// compares the two from the medians of several runs.
func BenchmarkCallHTTP(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Msg}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	args := map[string]string{"msg": "hi"}

	b.Run("ours", func(b *testing.B) {
		c, err := client.Dial(ctx, client.Endpoint{URL: srv.URL}, client.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if !c.Server().Modern {
			b.Fatalf("negotiated %s; want 2026-07-28", c.Server().ProtocolVersion)
		}
		benchlat.Measure(b, func(int) error {
			_, err := c.Call(ctx, "echo", args)
			return err
		})
	})

	b.Run("gosdk", func(b *testing.B) {
		cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		if v := cs.InitializeResult().ProtocolVersion; v != client.ModernVersion {
			b.Fatalf("negotiated %s; want 2026-07-28", v)
		}
		benchlat.Measure(b, func(int) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
			return err
		})
	})
}
