package mcpgopeer

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// repoMCP builds the server binary from this checkout, in the product's
// own module (its dependencies, not this module's).
func repoMCP(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "repo-mcp")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/repo-mcp")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// start launches repo-mcp over stdio for a fresh repository and connects
// an mcp-go client to it with opts.
func start(t *testing.T, bin string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{"README.md": gitfixture.Text("# Fixture\n\nAn old line.\n")})
	c, err := client.NewStdioMCPClientWithOptions(bin, []string{"HOME=" + t.TempDir()},
		[]string{"serve", "--index-cache", "off", "--workspace", "fx=" + repo.Dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, o := range opts {
		o(c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-peer", Version: "1"}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

func call(t *testing.T, c *client.Client, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPGoClient runs mcp-go's client against repo-mcp over stdio in both
// eras: it lists the tools (each description naming its error classes),
// reads, and proposes a patch; the audit's request_id comes back in the
// structured result.
func TestMCPGoClient(t *testing.T) {
	bin := repoMCP(t)
	for _, tt := range []struct {
		era     string
		opts    []client.ClientOption
		version string
	}{
		{"modern", nil, "2026-07-28"},
		{"legacy", []client.ClientOption{client.WithLegacyProtocolOnly()}, "2025-11-25"},
	} {
		t.Run(tt.era, func(t *testing.T) {
			c := start(t, bin, tt.opts...)
			if got := c.ProtocolVersion(); got != tt.version {
				t.Errorf("negotiated %q; want %q", got, tt.version)
			}
			ctx := context.Background()
			tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil || len(tools.Tools) < 8 {
				t.Fatalf("ListTools = %d tools, %v", len(tools.Tools), err)
			}
			for _, tool := range tools.Tools {
				if !strings.Contains(tool.Description, "\n\nErrors: ") {
					t.Errorf("%s: the description names no error classes", tool.Name)
				}
			}
			res := call(t, c, "read_file", map[string]any{"workspace_id": "fx", "path": "README.md", "request_id": "mcpgo-1"})
			if res.IsError || !strings.Contains(text(res), "An old line.") {
				t.Errorf("read_file = %s", text(res))
			}
			if sc, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(sc), `"request_id":"mcpgo-1"`) {
				t.Errorf("read_file structured content %s does not echo the request_id", sc)
			}
			res = call(t, c, "read_file", map[string]any{"workspace_id": "fx", "path": "missing.txt"})
			if !res.IsError || !strings.HasPrefix(text(res), "not_found: ") {
				t.Errorf("read_file of a missing file = %v %s; want a not_found result", res.IsError, text(res))
			}
		})
	}
}

// TestMCPGoElicitationRefused is issue 11's finding 4 with the peer that
// showed it: an mcp-go client that declares elicitation without a handler
// answers the apply's question with -32601. The call ends as a tool result,
// precondition_failed, saying the person was not asked, and the branch
// does not move.
func TestMCPGoElicitationRefused(t *testing.T) {
	bin := repoMCP(t)
	c := start(t, bin, client.WithLegacyProtocolOnly(),
		client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
	gen := call(t, c, "generate_patch", map[string]any{"workspace_id": "fx",
		"edits": []any{map[string]any{"op": "replace", "path": "README.md", "old_text": "An old line.", "new_text": "A new line."}}})
	var p struct {
		PatchID    string `json:"patch_id"`
		DiffSHA256 string `json:"diff_sha256"`
	}
	raw, _ := json.Marshal(gen.StructuredContent)
	if err := json.Unmarshal(raw, &p); err != nil || p.PatchID == "" {
		t.Fatalf("generate_patch = %s (%v)", text(gen), err)
	}
	res := call(t, c, "apply_patch", map[string]any{"workspace_id": "fx", "patch_id": p.PatchID, "diff_sha256": p.DiffSHA256})
	if !res.IsError || !strings.HasPrefix(text(res), "precondition_failed: ") || !strings.Contains(text(res), "the person was not asked") {
		t.Errorf("apply_patch = %v %s; want precondition_failed, the person not asked", res.IsError, text(res))
	}
}

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("git"); err != nil {
		os.Stderr.WriteString("mcpgopeer: git is not installed\n")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestMCPGoResourceLink follows read_file's resource_link with mcp-go's
// client in both eras: a read cut at its byte budget links the whole file,
// resources/read of the link returns it, and a URI that leaves the
// repository is refused.
func TestMCPGoResourceLink(t *testing.T) {
	bin := repoMCP(t)
	for _, tt := range []struct {
		era  string
		opts []client.ClientOption
	}{
		{"modern", nil},
		{"legacy", []client.ClientOption{client.WithLegacyProtocolOnly()}},
	} {
		t.Run(tt.era, func(t *testing.T) {
			c := start(t, bin, tt.opts...)
			if caps := c.GetServerCapabilities(); caps.Resources == nil {
				t.Errorf("no resources capability: %+v", caps)
			}
			res := call(t, c, "read_file", map[string]any{"workspace_id": "fx", "path": "README.md", "max_bytes": 5})
			var link *mcp.ResourceLink
			for _, content := range res.Content {
				if l, ok := content.(mcp.ResourceLink); ok {
					link = &l
				}
			}
			if link == nil || !strings.HasPrefix(link.URI, "repo://fx/") || !strings.HasSuffix(link.URI, "/README.md") {
				t.Fatalf("read_file cut at 5 bytes links %+v; content %+v", link, res.Content)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			read, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: link.URI}})
			if err != nil {
				t.Fatalf("ReadResource(%s): %v", link.URI, err)
			}
			if text, ok := read.Contents[0].(mcp.TextResourceContents); !ok || text.Text != "# Fixture\n\nAn old line.\n" {
				t.Errorf("ReadResource(%s) = %+v", link.URI, read.Contents)
			}
			outside := strings.TrimSuffix(link.URI, "README.md") + "../../etc/passwd"
			if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: outside}}); err == nil || !strings.Contains(err.Error(), "leaves the workspace root") {
				t.Errorf("ReadResource(%s) = %v; want it refused", outside, err)
			}
		})
	}
}
