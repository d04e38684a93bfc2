package client_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// These tests run the client against MCP servers nobody on this project
// wrote: the TypeScript reference servers (legacy era) and go-sdk's
// conformance server (both eras).

func nodeServer(t *testing.T, pkg string, args ...string) client.Command {
	t.Helper()
	dir := peers.Dir(t)
	node := peers.Node(t)
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("peer %s: %v", pkg, err)
	}
	return client.Command{Path: node, Args: append([]string{script}, args...)}
}

func goSDKServer(t testing.TB) client.Command {
	return client.Command{Path: build(t, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server")}
}

func startPeer(t *testing.T, cmd client.Command, opts client.Options) (*client.Conn, func()) {
	t.Helper()
	leaked := leakCheck(t)
	c, err := client.Start(context.Background(), cmd, opts)
	if err != nil {
		t.Fatalf("Start %s: %v", cmd.Path, err)
	}
	return c, func() {
		t.Helper()
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		leaked(c.PID())
	}
}

func TestPeerServerFilesystem(t *testing.T) {
	root := t.TempDir()
	readme := filepath.Join(root, "README.md")
	if err := os.WriteFile(readme, []byte("hello from the root\nline 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, done := startPeer(t, nodeServer(t, "server-filesystem", root), client.Options{})
	defer done()
	ctx := context.Background()
	if s := c.Server(); s.Modern || s.ProtocolVersion != client.LegacyVersion {
		t.Errorf("Server() = %+v; want legacy %s", s, client.LegacyVersion)
	}
	tools, err := c.Tools(ctx)
	if err != nil || !strings.Contains(" "+toolNames(tools)+" ", " read_text_file ") {
		t.Fatalf("Tools() = %s, %v; want read_text_file", toolNames(tools), err)
	}
	res, err := c.Call(ctx, "read_text_file", map[string]string{"path": readme})
	if err != nil || res.IsError || res.Text() != "hello from the root\nline 2\n" {
		t.Fatalf("read_text_file = %+v, %v", res, err)
	}
	// A failing tool is an answer, not a request failure.
	res, err = c.Call(ctx, "read_text_file", map[string]string{"path": filepath.Join(root, "missing")})
	if err != nil || !res.IsError {
		t.Fatalf("read_text_file(missing) = %+v, %v; want an isError result", res, err)
	}
	// The server asked for roots (with id 0) after notifications/initialized.
	if n := c.Stats().ServerRequests; n < 1 {
		t.Errorf("ServerRequests = %d; want the server's roots/list answered", n)
	}
}

func TestPeerServerEverything(t *testing.T) {
	c, done := startPeer(t, nodeServer(t, "server-everything", "stdio"), client.Options{})
	defer done()
	ctx := context.Background()
	if s := c.Server(); s.Modern || s.ProtocolVersion != client.LegacyVersion || s.Implementation.Name == "" {
		t.Errorf("Server() = %+v; want legacy with a name", s)
	}
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) < 10 {
		t.Fatalf("Tools() = %s, %v", toolNames(tools), err)
	}
	res, err := c.Call(ctx, "echo", map[string]string{"message": "hi"})
	if err != nil || res.Text() != "Echo: hi" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	res, err = c.Call(ctx, "get-tiny-image", nil)
	if err != nil || res.Unsupported() == 0 {
		t.Fatalf("get-tiny-image = %+v, %v; want an unsupported image block", res, err)
	}
	res, err = c.Call(ctx, "get-structured-content", map[string]string{"location": "Chicago"})
	if err != nil || !strings.Contains(string(res.StructuredContent), "temperature") {
		t.Fatalf("get-structured-content = %+v, %v", res, err)
	}
	// The server asks the client for its roots and reports what it got.
	res, err = c.Call(ctx, "get-roots-list", nil)
	if err != nil || res.IsError {
		t.Fatalf("get-roots-list = %+v, %v", res, err)
	}
	if !strings.Contains(res.Text(), "no roots are currently configured") {
		t.Errorf("get-roots-list = %q; want the server to have received the empty roots list", res.Text())
	}
	// Input validation failures are tool results in the TypeScript SDK.
	res, err = c.Call(ctx, "get-sum", map[string]string{"a": "x"})
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "-32602") {
		t.Fatalf("get-sum with bad input = %+v, %v; want an isError result", res, err)
	}
	// server-everything sends notifications before its initialize result.
	if s := c.Stats(); s.ToolListChanged < 1 || s.ServerRequests < 1 || s.UnknownID+s.WrongIDType+s.NonJSON+s.Malformed != 0 {
		t.Errorf("Stats = %+v; want list_changed notifications, the roots/list request, no anomalies", s)
	}
}

func TestPeerGoSDKEverythingServer(t *testing.T) {
	for _, tt := range []struct {
		era     client.Era
		modern  bool
		version string
	}{
		{client.EraAuto, true, client.ModernVersion},
		{client.EraLegacy, false, client.LegacyVersion},
	} {
		t.Run(tt.version, func(t *testing.T) {
			c, done := startPeer(t, goSDKServer(t), client.Options{Era: tt.era})
			defer done()
			ctx := context.Background()
			if s := c.Server(); s.Modern != tt.modern || s.ProtocolVersion != tt.version {
				t.Fatalf("Server() = %+v; want %s", s, tt.version)
			}
			tools, err := c.Tools(ctx)
			if err != nil || !strings.Contains(toolNames(tools), "test_simple_text") {
				t.Fatalf("Tools() = %s, %v", toolNames(tools), err)
			}
			res, err := c.Call(ctx, "test_simple_text", nil)
			if err != nil || res.Text() != "This is a simple text response for testing." {
				t.Fatalf("test_simple_text = %+v, %v", res, err)
			}
			res, err = c.Call(ctx, "test_image_content", nil)
			if err != nil || res.Unsupported() != 1 || res.Content[0].Type != "image" {
				t.Fatalf("test_image_content = %+v, %v", res, err)
			}
			res, err = c.Call(ctx, "test_error_handling", nil)
			if err != nil || !res.IsError {
				t.Fatalf("test_error_handling = %+v, %v; want isError", res, err)
			}
			if tt.modern {
				// 2026 multi-round results are not supported: reported, never guessed at.
				_, err = c.Call(ctx, "test_input_required_result_elicitation", nil)
				if ce := asCallError(t, err); ce.Outcome != client.BadResult || !strings.Contains(string(ce.Head), "input_required") {
					t.Fatalf("input_required result = %v; want bad_result keeping the raw result", err)
				}
				_, err = c.Call(ctx, "test_missing_capability", nil)
				if ce := asCallError(t, err); ce.Outcome != client.RPCError || ce.RPC.Code != -32021 {
					t.Fatalf("test_missing_capability = %v; want -32021", err)
				}
			} else {
				// The server asks the client to sample; the client refuses with -32601.
				res, err = c.Call(ctx, "test_sampling", map[string]string{"prompt": "x"})
				if err != nil || !strings.Contains(res.Text(), "method not supported by this client: sampling/createMessage") || c.Stats().ServerRequests != 1 {
					t.Fatalf("test_sampling = %+v, %v; want the refusal reported by the server", res, err)
				}
			}
			_, err = c.Call(ctx, "no_such_tool", nil)
			if ce := asCallError(t, err); ce.Outcome != client.RPCError || ce.RPC.Code != -32602 {
				t.Fatalf("unknown tool = %v; want a -32602 JSON-RPC error", err)
			}
		})
	}
}
