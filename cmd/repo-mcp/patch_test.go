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
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestPatchFlow runs the reviewed write path through the built binary with
// the go-sdk client: generate, preview, apply to a branch, apply to the
// working tree, verify; and a wrong digest and a second apply on the way.
func TestPatchFlow(t *testing.T) {
	repo := gitfixture.New(t)
	base := repo.Commit(t, "first", map[string]gitfixture.File{
		"go.mod":  gitfixture.Text("module example.com/fx\n\ngo 1.26\n"),
		"main.go": gitfixture.Text("package main\n\nfunc main() { println(\"hello\") }\n"),
	})
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard", "main")
	config := filepath.Join(t.TempDir(), "repo-mcp.yaml")
	os.WriteFile(config, []byte("workspaces:\n  - id: fx\n    root: "+repo.Dir+"\n    worktree: true\n"), 0o644)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "patch-flow", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(repoMCP(t),
		// The flow, not the sandbox, is tested here (TestVerifyOwnRepository
		// tests it): where no sandbox can be had, gofmt runs without one.
		"serve", "--index-cache", "off", "--config", config, "--verify-checks", "gofmt", "--verify-unconfined", "all")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any, out any) *mcp.CallToolResult {
		t.Helper()
		args["workspace_id"] = "fx"
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if out != nil {
			if res.IsError {
				t.Fatalf("%s: %s", tool, res.Content[0].(*mcp.TextContent).Text)
			}
			data, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(data, out)
		}
		return res
	}

	var gen struct {
		PatchID    string `json:"patch_id"`
		Base       string `json:"base"`
		DiffSHA256 string `json:"diff_sha256"`
	}
	call("generate_patch", map[string]any{"edits": []map[string]any{
		{"op": "replace", "path": "main.go", "old_text": `"hello"`, "new_text": `"hello, reviewer"`},
	}}, &gen)
	if gen.Base != base || len(gen.PatchID) != 40 {
		t.Fatalf("generate_patch: %+v", gen)
	}
	var preview struct {
		Diff     string `json:"diff"`
		Approval struct {
			DiffSHA256 string `json:"diff_sha256"`
		} `json:"approval"`
	}
	call("preview_diff", map[string]any{"patch_id": gen.PatchID}, &preview)
	if !strings.Contains(preview.Diff, `+func main() { println("hello, reviewer") }`) || preview.Approval.DiffSHA256 != gen.DiffSHA256 {
		t.Fatalf("preview_diff: %+v", preview)
	}
	wrong := call("apply_patch", map[string]any{"patch_id": gen.PatchID, "diff_sha256": strings.Repeat("0", 64)}, nil)
	if !wrong.IsError || !strings.HasPrefix(wrong.Content[0].(*mcp.TextContent).Text, "permission_denied: ") {
		t.Errorf("a wrong digest: %+v", wrong.Content[0])
	}
	var applied struct {
		Branch         string `json:"branch"`
		AlreadyApplied bool   `json:"already_applied"`
	}
	call("apply_patch", map[string]any{"patch_id": gen.PatchID, "diff_sha256": gen.DiffSHA256}, &applied)
	if head := strings.TrimSpace(gitfixture.Git(t, repo.Dir, "rev-parse", applied.Branch)); head != gen.PatchID {
		t.Errorf("branch %s is at %s, want the patch %s", applied.Branch, head, gen.PatchID)
	}
	call("apply_patch", map[string]any{"patch_id": gen.PatchID, "diff_sha256": gen.DiffSHA256}, &applied)
	if !applied.AlreadyApplied {
		t.Errorf("a second apply did not say already_applied")
	}
	call("apply_patch", map[string]any{"patch_id": gen.PatchID, "diff_sha256": gen.DiffSHA256, "target": "worktree"}, &applied)
	if data, _ := os.ReadFile(filepath.Join(repo.Dir, "main.go")); !strings.Contains(string(data), "hello, reviewer") {
		t.Errorf("the working tree holds %q", data)
	}
	var verified struct {
		Passed bool `json:"passed"`
	}
	call("verify_patch", map[string]any{"patch_id": gen.PatchID}, &verified)
	if !verified.Passed {
		t.Errorf("verify_patch (gofmt) failed on a formatted change")
	}
}

// TestReadOnlyHasNoPatchTools: --read-only serves nothing that writes.
func TestReadOnlyHasNoPatchTools(t *testing.T) {
	out, err := exec.Command(repoMCP(t), "tools").Output()
	if err != nil || !strings.Contains(string(out), "apply_patch") {
		t.Fatalf("tools: %v\n%s", err, out)
	}
	root, _ := fixtureRepo(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "ro", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(repoMCP(t), "serve", "--read-only", "--index-cache", "off", "--workspace", "fx="+root)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("--read-only serves %s", tool.Name)
		}
	}
}
