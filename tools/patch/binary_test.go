package patch_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// The tests in this file run the tools in their own process
// (internal/patchserver: the server, workspace and tool packages, as
// cmd/repo-mcp wires them) and call them with the go-sdk client, a client
// this project did not write.

// binServer is a running patchserver and a connected client.
type binServer struct {
	cmd     *exec.Cmd
	session *mcp.ClientSession
	stderr  *syncBuffer
}

func startBinary(t *testing.T, dir string, extra ...string) *binServer {
	t.Helper()
	bin := bins.Build(t, "github.com/repo-mcp/repo-mcp/internal/patchserver")
	args := append([]string{"-workspace", "fx=" + dir, "-gocache", buildCache}, extra...)
	cmd := exec.Command(bin, args...)
	b := &binServer{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = b.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "patch-test", Version: "0"}, nil)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, b.stderr)
	}
	b.session = session
	t.Cleanup(func() { session.Close() })
	return b
}

// call calls a tool and decodes its structured result; a tool error fails
// the test unless wantErr.
func (b *binServer) call(t *testing.T, tool string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	args["workspace_id"] = "fx"
	res, err := b.session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, b.stderr)
	}
	if out != nil {
		if res.IsError {
			t.Fatalf("%s: %s", tool, res.Content[0].(*mcp.TextContent).Text)
		}
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

func binaryRepo(t *testing.T) (string, string) {
	dir := filepath.Join(t.TempDir(), "repo")
	os.Mkdir(dir, 0o755)
	head := gitfixture.Init(t, dir, false).Commit(t, "first", baseFiles)
	gitfixture.Git(t, dir, "reset", "-q", "--hard", "main")
	return dir, head
}

func TestBinaryFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and compiles Go code")
	}
	dir, head := binaryRepo(t)
	b := startBinary(t, dir)
	var g generated
	b.call(t, "generate_patch", map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hello, world"`),
		edit("replace", "greet_test.go", "old_text", `"hello"`, "new_text", `"hello, world"`)}}, &g)
	var p generated
	b.call(t, "preview_diff", map[string]any{"patch_id": g.PatchID}, &p)
	if !p.Applies || p.Approval.DiffSHA256 != g.DiffSHA256 || p.Approval.Base != head {
		t.Fatalf("preview: %+v", p)
	}
	var v verified
	sandboxed := canSandbox()
	if sandboxed {
		b.call(t, "verify_patch", map[string]any{"patch_id": g.PatchID}, &v)
		if !v.Passed {
			t.Errorf("verify of passing code: %+v", v)
		}
	} else {
		t.Log("verify_patch is not tried: its sandbox needs bubblewrap and a server run as root")
	}
	var a applied
	b.call(t, "apply_patch", map[string]any{"patch_id": p.Approval.PatchID, "diff_sha256": p.Approval.DiffSHA256}, &a)
	if got := strings.TrimSpace(gitfixture.Git(t, dir, "rev-parse", a.Branch)); got != g.PatchID {
		t.Errorf("branch %s at %s", a.Branch, got)
	}
	b.call(t, "apply_patch", map[string]any{"patch_id": p.Approval.PatchID, "diff_sha256": p.Approval.DiffSHA256, "target": "worktree"}, &a)
	if data, _ := os.ReadFile(filepath.Join(dir, "greet.go")); !strings.Contains(string(data), "hello, world") {
		t.Errorf("worktree greet.go: %s", data)
	}
	var bad generated
	b.call(t, "generate_patch", map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"bye"`)}}, &bad)
	if sandboxed {
		b.call(t, "verify_patch", map[string]any{"patch_id": bad.PatchID}, &v)
		if v.Passed {
			t.Errorf("verify of failing code passed: %+v", v)
		}
	}
	res := b.call(t, "apply_patch", map[string]any{"patch_id": bad.PatchID, "diff_sha256": strings.Repeat("0", 64)}, nil)
	if !res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "permission_denied") {
		t.Errorf("wrong digest: %+v", res)
	}
}

// TestCrashMidApply kills the server in the middle of a worktree apply, at
// every point between staging and the last rename. The next start reports
// the partial apply and rolls it back: the files then equal the base, all
// of them; a retry applies all of them.
func TestCrashMidApply(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	edits := []any{
		edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hi"`),
		edit("write", "newdir/sub/new.txt", "content", "new\n"),
		edit("delete", "main.go"),
		edit("rename", "docs/a.txt", "new_path", "docs/b.txt"),
	}
	for crashAfter := 0; crashAfter < 5; crashAfter++ { // 5 files: the rename is two
		t.Run("after "+string(rune('0'+crashAfter)), func(t *testing.T) {
			dir, _ := binaryRepo(t)
			base := snapshotTree(t, dir)
			b := startBinary(t, dir, "-crash-after", string(rune('0'+crashAfter)))
			var g generated
			b.call(t, "generate_patch", map[string]any{"edits": edits}, &g)
			done := make(chan struct{})
			go func() {
				defer close(done)
				b.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch", Arguments: map[string]any{
					"workspace_id": "fx", "patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"}})
			}()
			for !strings.Contains(b.stderr.String(), "crash point") {
				time.Sleep(10 * time.Millisecond) // a poll, not a deadline
			}
			b.cmd.Process.Signal(syscall.SIGKILL)
			<-done // the call ends when the connection is lost
			b.session.Close()
			if _, err := os.Stat(filepath.Join(dir, ".git", "repo-mcp-apply.json")); err != nil {
				t.Fatalf("no journal after the crash: %v", err)
			}
			if snapshotTree(t, dir) == base && crashAfter > 0 {
				t.Fatalf("the crash left nothing to roll back")
			}

			b2 := startBinary(t, dir)
			b2.call(t, "preview_diff", map[string]any{"patch_id": g.PatchID}, &generated{}) // serving: recovery ran
			if log := b2.stderr.String(); !strings.Contains(log, "rolled back an interrupted worktree apply") || !strings.Contains(log, g.PatchID) {
				t.Errorf("the restart did not report the rollback:\n%s", log)
			}
			if got := snapshotTree(t, dir); got != base {
				t.Errorf("after recovery the files are not the base:\n%s\nwant\n%s", got, base)
			}
			var a applied
			b2.call(t, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"}, &a)
			if data, _ := os.ReadFile(filepath.Join(dir, "newdir/sub/new.txt")); string(data) != "new\n" {
				t.Errorf("the retry did not apply: %q", data)
			}
			if _, err := os.Stat(filepath.Join(dir, "main.go")); err == nil {
				t.Errorf("the retry did not delete main.go")
			}
		})
	}
}

// snapshotTree renders the working tree (without .git) as text.
func snapshotTree(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			b.WriteString(rel + "/\n")
			return nil
		}
		data, _ := os.ReadFile(p)
		fi, _ := os.Lstat(p)
		b.WriteString(rel + " " + fi.Mode().String() + " " + string(data) + "\n")
		return nil
	})
	return b.String()
}

// TestBinaryBranchApplyKilledAfterMove kills a server (SIGKILL, from
// inside, at the one point that matters) after a branch apply moved the
// branch and before it recorded the apply. Another server sharing the
// repository records it on its next read of that branch, and a restarted
// server at its start, without any client retrying the apply.
func TestBinaryBranchApplyKilledAfterMove(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir, _ := binaryRepo(t)
	replica := startBinary(t, dir)
	apply := func(b *binServer, g generated) {
		res, err := b.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch", Arguments: map[string]any{
			"workspace_id": "fx", "patch_id": g.PatchID, "diff_sha256": g.DiffSHA256}})
		if err == nil {
			t.Fatalf("the apply was answered, the kill did not happen: %+v", res)
		}
		b.session.Close() // waits for the process
		branch := "refs/heads/repo-mcp/" + g.PatchID[:12]
		if got := strings.TrimSpace(gitfixture.Git(t, dir, "rev-parse", branch)); got != g.PatchID {
			t.Fatalf("the killed apply did not move %s: %s", branch, got)
		}
		if got := appliedRefs(t, dir, g.PatchID); got != "" {
			t.Fatalf("the killed apply recorded itself: %s", got)
		}
	}
	settled := func(g generated, when string) {
		if appliedRefs(t, dir, g.PatchID) == "" {
			t.Errorf("%s: the apply of %s is not recorded", when, g.PatchID)
		}
		if got := gitfixture.Git(t, dir, "for-each-ref", "refs/repo-mcp/intents/"); got != "" {
			t.Errorf("%s: intents are left: %s", when, got)
		}
	}

	var g1 generated
	replica.call(t, "generate_patch", map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hi"`)}}, &g1)
	apply(startBinary(t, dir, "-kill-after-move"), g1)
	replica.call(t, "preview_diff", map[string]any{"patch_id": g1.PatchID}, &generated{})
	settled(g1, "after another server's read")
	var again applied
	replica.call(t, "apply_patch", map[string]any{"patch_id": g1.PatchID, "diff_sha256": g1.DiffSHA256}, &again)
	if !again.AlreadyApplied || again.Commit != g1.PatchID {
		t.Errorf("apply after the settle: %+v", again)
	}

	var g2 generated
	replica.call(t, "generate_patch", map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hey"`)}}, &g2)
	apply(startBinary(t, dir, "-kill-after-move"), g2)
	restarted := startBinary(t, dir)
	settled(g2, "after a restart, before any call")
	if log := restarted.stderr.String(); !strings.Contains(log, "settled an interrupted branch apply") {
		t.Errorf("the restart did not report the settle:\n%s", log)
	}
}

// appliedRefs lists the apply records of patch id.
func appliedRefs(t *testing.T, dir, id string) string {
	return gitfixture.Git(t, dir, "for-each-ref", "refs/repo-mcp/applied/"+id+"/")
}
