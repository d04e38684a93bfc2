package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestVerifyOwnRepository verifies this repository's HEAD with its own
// verify_patch, through the built binary: go test of server/
// (its HTTP tests serve on loopback with httptest) must pass in the
// sandbox, and the result must claim every isolation property. The whole
// module's tests take too long for one test; server/ is the package
// whose tests need the network namespace's loopback.
func TestVerifyOwnRepository(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil || os.Getuid() != 0 {
		t.Skip("verify's sandbox needs bubblewrap and a server run as root (to switch to an unprivileged uid)")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	// A clone of HEAD: the checkout may be a linked worktree, or be
	// changed while the test runs.
	clone := filepath.Join(t.TempDir(), "self")
	if out, err := exec.Command("git", "clone", "-q", "--no-local", strings.TrimSpace(string(top)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	config := filepath.Join(t.TempDir(), "repo-mcp.yaml")
	os.WriteFile(config, []byte("workspaces:\n  - id: self\n    root: "+clone+"\n"), 0o644)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "verify-self", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(repoMCP(t),
		"serve", "--index-cache", "off", "--config", config, "--verify-timeout", "10m")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "verify_patch", Arguments: map[string]any{
		"workspace_id": "self", "checks": []any{
			map[string]any{"name": "go_test", "packages": []string{"./server"}},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var out struct {
		Passed    bool `json:"passed"`
		Isolation struct {
			UID, Filesystem, PID, Network, Limits bool
		} `json:"isolation"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(data, &out)
	if res.IsError || !out.Passed {
		t.Fatalf("this repository does not verify green in its own sandbox:\n%s", text)
	}
	if iso := out.Isolation; !iso.UID || !iso.Filesystem || !iso.PID || !iso.Network || !iso.Limits {
		t.Errorf("isolation %+v:\n%s", iso, text)
	}
}
