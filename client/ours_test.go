package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestOwnServer runs the client against a server built with this project's
// framework (internal/testserver), in both eras: the two halves of the
// project must understand each other.
func TestOwnServer(t *testing.T) {
	for _, tt := range []struct {
		era     client.Era
		version string
	}{
		{client.EraAuto, client.ModernVersion},
		{client.EraLegacy, client.LegacyVersion},
	} {
		t.Run(tt.version, func(t *testing.T) {
			cmd := client.Command{Path: build(t, "github.com/repo-mcp/repo-mcp/internal/testserver")}
			c, done := startPeer(t, cmd, client.Options{Era: tt.era, Limits: client.Limits{FrameBytes: 1 << 20}})
			defer done()
			ctx := context.Background()
			if s := c.Server(); s.ProtocolVersion != tt.version {
				t.Fatalf("Server() = %+v; want %s", s, tt.version)
			}
			tools, err := c.Tools(ctx)
			if err != nil || !strings.Contains(toolNames(tools), "echo") {
				t.Fatalf("Tools() = %s, %v", toolNames(tools), err)
			}
			res, err := c.Call(ctx, "echo", map[string]string{"message": "both halves"})
			if err != nil || res.IsError || !strings.Contains(res.Text(), "both halves") || res.StructuredContent == nil {
				t.Fatalf("echo = %+v, %v", res, err)
			}
			res, err = c.Call(ctx, "echo", map[string]any{"message": 7})
			if err != nil || !res.IsError || !strings.HasPrefix(res.Text(), "invalid_input: ") {
				t.Fatalf("invalid echo = %+v, %v; want an invalid_input result", res, err)
			}
			// An answer over the client's frame bound ends Oversized; the
			// connection goes on.
			_, err = c.Call(ctx, "big", map[string]int{"bytes": 2 << 20})
			if ce := asCallError(t, err); ce.Outcome != client.Oversized {
				t.Fatalf("big = %v; want oversized", err)
			}
			if res, err := c.Call(ctx, "echo", map[string]string{"message": "after"}); err != nil || res.IsError {
				t.Fatalf("echo after oversized = %+v, %v", res, err)
			}
		})
	}
}

// TestRepoMCP runs the client against the product itself, serving a
// fixture repository, in both eras.
func TestRepoMCP(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md": gitfixture.Text("# Fixture\nsummarize me\n"),
		".env":      gitfixture.Text("TOKEN=x\n"),
	})
	bin := build(t, "github.com/repo-mcp/repo-mcp/cmd/repo-mcp")
	for _, era := range []client.Era{client.EraAuto, client.EraLegacy} {
		c, done := startPeer(t, client.Command{Path: bin, Args: []string{"serve", "--workspace", "fx=" + repo.Dir}}, client.Options{Era: era})
		ctx := context.Background()
		tools, err := c.Tools(ctx)
		if err != nil || !strings.Contains(toolNames(tools), "read_file") || !strings.Contains(toolNames(tools), "list_files") {
			t.Fatalf("%v: Tools() = %s, %v", era, toolNames(tools), err)
		}
		res, err := c.Call(ctx, "read_file", map[string]string{"workspace_id": "fx", "path": "README.md"})
		if err != nil || res.IsError || !strings.Contains(res.Text(), "summarize me") {
			t.Errorf("%v: read_file = %+v, %v", era, res, err)
		}
		res, err = c.Call(ctx, "read_file", map[string]string{"workspace_id": "fx", "path": ".env"})
		if err != nil || !res.IsError || !strings.HasPrefix(res.Text(), "permission_denied: ") {
			t.Errorf("%v: a secret = %+v, %v", era, res, err)
		}
		done()
	}
}
