package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
	"github.com/repo-mcp/repo-mcp/server"
)

type pingIn struct {
	Message string `json:"message"`
}

type pingOut struct {
	Message string `json:"message"`
}

// BenchmarkHTTPRoundTrip measures a 2026-07-28 tools/call over HTTP, in
// one process, for a trivial tool served through server/ (the HTTP guard,
// validation, audit, the middleware chain) and registered directly on
// go-sdk's stateless handler, with the same requests from the same
// client. "ours-bearer" adds a bearer token check. bench/http.sh compares
// the medians of several runs.
func BenchmarkHTTPRoundTrip(b *testing.B) {
	ping := func(_ context.Context, _ *server.Request, in pingIn) (pingOut, error) { return pingOut(in), nil }
	ours := func(opts server.HTTPOptions) http.Handler {
		s := server.New(server.Info{Name: "bench", Version: "0"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
		server.MustRegister(s, server.Tool{Name: "ping", Description: "Answers.", Effect: server.ReadOnly}, ping)
		return s.HTTPHandler(opts)
	}
	raw := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "0"}, nil)
	mcp.AddTool(raw, &mcp.Tool{Name: "ping", Description: "Answers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in pingIn) (*mcp.CallToolResult, pingOut, error) {
			return nil, pingOut(in), nil
		})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "bench-token" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "bench"}, nil
	}
	for _, v := range []struct {
		name    string
		handler http.Handler
	}{
		{"ours", ours(server.HTTPOptions{})},
		{"ours-bearer", ours(server.HTTPOptions{Auth: &server.BearerAuth{Verify: verify}})},
		{"gosdk", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return raw },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})},
	} {
		b.Run(v.name, func(b *testing.B) {
			ts := httptest.NewServer(v.handler)
			defer ts.Close()
			benchlat.Measure(b, func(i int) error { return postPing(ts.URL, i) })
		})
	}
}

func postPing(url string, i int) error {
	resp, out, err := mcphttp.Post(url, "Bearer bench-token", "ping", mcphttp.Call(i+1, "ping", `{"message":"hello"}`, ""))
	if err == nil && (resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"message":"hello"`)) || bytes.Contains(out, []byte(`"isError":true`))) {
		err = fmt.Errorf("%s: %s", resp.Status, out)
	}
	return err
}
