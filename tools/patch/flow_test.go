package patch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/patch"
)

func TestFlowBranch(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	before := f.state(t)
	g := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hello, world"`),
		edit("write", "new/file.txt", "content", "new\n"),
		edit("rename", "docs/a.txt", "new_path", "docs/b.txt"),
		edit("delete", "main.go"))
	if g.Base != f.head || len(g.PatchID) != 40 || len(g.DiffSHA256) != 64 {
		t.Fatalf("generate: %+v", g)
	}
	for _, want := range []string{"-\treturn \"hello\"", "+\treturn \"hello, world\"", "rename from docs/a.txt", "+new", "deleted file mode 100644"} {
		if !strings.Contains(g.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, g.Diff)
		}
	}
	if got := f.state(t); got != before {
		// Only the proposal's ref is new; files and other refs are untouched.
		if !strings.Contains(got, "refs/repo-mcp/patches/"+g.PatchID) || strings.Replace(got, "refs/repo-mcp/patches/"+g.PatchID+" "+g.PatchID+"\n", "", 1) != before {
			t.Fatalf("generate changed more than its proposal ref:\n%s\n---\n%s", before, got)
		}
	}
	// git itself accepts the canonical diff on the base.
	patchFile := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(patchFile, []byte(g.Diff), 0o644)
	gitfixture.Git(t, f.dir, "apply", "--check", patchFile)
	again := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hello, world"`),
		edit("write", "new/file.txt", "content", "new\n"),
		edit("rename", "docs/a.txt", "new_path", "docs/b.txt"),
		edit("delete", "main.go"))
	if again.PatchID != g.PatchID || again.DiffSHA256 != g.DiffSHA256 {
		t.Errorf("the same proposal twice got %s and %s", g.PatchID, again.PatchID)
	}

	p := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g.PatchID})
	if !p.Applies || p.Approval.DiffSHA256 != g.DiffSHA256 || p.Approval.Base != f.head || p.Diff != g.Diff {
		t.Fatalf("preview: %+v", p)
	}
	filtered := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g.PatchID, "paths": []string{"greet.go"}, "context_lines": 0})
	if strings.Contains(filtered.Diff, "docs/") || !strings.Contains(filtered.Diff, "hello, world") || filtered.DiffSHA256 != g.DiffSHA256 {
		t.Errorf("filtered preview:\n%s", filtered.Diff)
	}

	a := ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256})
	branch := "refs/heads/repo-mcp/" + g.PatchID[:12]
	if a.Branch != branch || a.Commit != g.PatchID || a.AlreadyApplied || a.RequestID == "" || a.Caller != "local" {
		t.Fatalf("apply: %+v", a)
	}
	if got := strings.TrimSpace(gitfixture.Git(t, f.dir, "rev-parse", branch)); got != g.PatchID {
		t.Errorf("branch at %s", got)
	}
	if got := strings.TrimSpace(gitfixture.Git(t, f.dir, "rev-parse", "HEAD")); got != f.head {
		t.Errorf("HEAD moved to %s", got)
	}
	if got := gitfixture.Git(t, f.dir, "show", branch+":greet.go"); !strings.Contains(got, "hello, world") {
		t.Errorf("branch content: %s", got)
	}
	if got := f.read(t, "greet.go"); strings.Contains(got, "hello, world") {
		t.Errorf("apply to a branch touched the working tree: %s", got)
	}
	a2 := ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256})
	if !a2.AlreadyApplied || a2.RequestID != a.RequestID {
		t.Errorf("second apply: %+v, first %+v", a2, a)
	}
	if !strings.Contains(f.log.String(), `"outcome":"already_applied"`) || !strings.Contains(f.log.String(), `"outcome":"applied"`) {
		t.Errorf("apply log:\n%s", f.log)
	}
}

func TestFlowWorktree(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	g := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hi"`),
		edit("write", "new/dir/file.txt", "content", "new\n"),
		edit("rename", "docs/a.txt", "new_path", "docs/b.txt"))
	p := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g.PatchID, "target": "worktree"})
	if !p.Applies {
		t.Fatalf("preview: %+v", p)
	}
	a := ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"})
	if a.Target != "worktree" {
		t.Fatalf("apply: %+v", a)
	}
	if got := f.read(t, "greet.go"); !strings.Contains(got, `"hi"`) {
		t.Errorf("greet.go: %s", got)
	}
	if got := f.read(t, "new/dir/file.txt"); got != "new\n" {
		t.Errorf("new file: %q", got)
	}
	if got := f.read(t, "docs/b.txt"); got != "alpha\nbeta\ngamma\n" {
		t.Errorf("renamed: %q", got)
	}
	status := gitfixture.Git(t, f.dir, "status", "--porcelain")
	for _, want := range []string{" M greet.go", " D docs/a.txt", "?? docs/b.txt", "?? new/"} {
		if !strings.Contains(status, want) {
			t.Errorf("git status lacks %q:\n%s", want, status)
		}
	}
	if got := strings.TrimSpace(gitfixture.Git(t, f.dir, "rev-parse", "HEAD")); got != f.head {
		t.Errorf("HEAD moved")
	}
	// Applying again writes nothing; a second patch on the same base no
	// longer applies, since greet.go changed, and is refused without a write.
	state := f.state(t)
	if a2 := ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"}); !a2.AlreadyApplied {
		t.Errorf("second apply: %+v", a2)
	}
	if f.state(t) != state {
		t.Errorf("applying again wrote something")
	}
	g2 := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hey"`))
	p2 := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g2.PatchID, "target": "worktree"})
	if p2.Applies || len(p2.Conflicts) != 1 || p2.Conflicts[0].Path != "greet.go" {
		t.Errorf("preview of a stale patch: %+v", p2)
	}
	state = f.state(t)
	fails(t, f, "apply_patch", map[string]any{"patch_id": g2.PatchID, "diff_sha256": g2.DiffSHA256, "target": "worktree"}, server.PreconditionFailed)
	if f.state(t) != state {
		t.Errorf("a refused apply wrote something")
	}
}

func TestUnifiedDiffInput(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	diff := "diff --git a/docs/a.txt b/docs/a.txt\n--- a/docs/a.txt\n+++ b/docs/a.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n" +
		"diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n"
	g := ok[generated](t, f, "generate_patch", map[string]any{"diff": diff})
	got := gitfixture.Git(t, f.dir, "show", g.PatchID+":docs/a.txt") + "|" + gitfixture.Git(t, f.dir, "show", g.PatchID+":n.txt")
	if got != "alpha\nBETA\ngamma\n|one\ntwo" {
		t.Errorf("patched content %q", got)
	}
	// The canonical diff git understands: git apply accepts it on the base.
	if out := gitfixture.Git(t, f.dir, "diff", f.head, g.PatchID, "--stat"); !strings.Contains(out, "2 files changed") {
		t.Errorf("git diff --stat: %s", out)
	}
}

func TestConfirmHook(t *testing.T) {
	var got patch.Confirmation
	refuse := true
	f := newFixture(t, fixtureOptions{opts: patch.Options{Confirm: func(_ context.Context, _ *server.Request, c patch.Confirmation) error {
		got = c
		if refuse {
			return server.Errorf(server.PermissionDenied, "the person declined")
		}
		return nil
	}}})
	g := generate(t, f, edit("write", "docs/a.txt", "content", "x\n"))
	before := f.state(t)
	fails(t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256}, server.PermissionDenied)
	if f.state(t) != before {
		t.Errorf("a declined apply wrote something")
	}
	if got.DiffSHA256 != g.DiffSHA256 || got.PatchID != g.PatchID || len(got.Files) != 1 || got.Files[0].Additions != 1 {
		t.Errorf("confirmation: %+v", got)
	}
	refuse = false
	ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256})
}

func TestDiffBound(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: patch.Options{MaxDiffBytes: 2000}})
	big := strings.Repeat("a line of \"quoted\"\ttext\n", 200)
	g := generate(t, f, edit("write", "a.txt", "content", big), edit("write", "b.txt", "content", "small\n"))
	if !g.Truncated || len(g.Diff) > 2000 || !strings.HasSuffix(g.Diff, "\n") {
		t.Fatalf("truncated %v, %d bytes", g.Truncated, len(g.Diff))
	}
	p := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g.PatchID, "paths": []string{"b.txt"}})
	if p.Truncated || !strings.Contains(p.Diff, "+small") || p.DiffSHA256 != g.DiffSHA256 {
		t.Errorf("the rest by path: %+v", p)
	}
	res := f.call(t, "generate_patch", map[string]any{"edits": []any{edit("write", "a.txt", "content", big)}})
	if !strings.Contains(res.Text, "cut at") {
		t.Errorf("the text does not say the diff was cut:\n%s", res.Text)
	}
}

// TestAskPerson: a client that can ask its user gets a question naming
// the digest and the files before anything is written, in both protocol
// eras; a declined question writes nothing.
func TestAskPerson(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		for _, action := range []string{"accept", "decline"} {
			t.Run(version+" "+action, func(t *testing.T) {
				var asked []string
				f := newFixture(t, fixtureOptions{client: servertest.Options{ProtocolVersion: version,
					Answer: func(message string) (string, map[string]any) {
						asked = append(asked, message)
						return action, nil
					}}})
				g := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hi"`))
				before := f.state(t)
				res := f.call(t, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"})
				if len(asked) != 1 || !strings.Contains(asked[0], g.DiffSHA256) || !strings.Contains(asked[0], "modified greet.go (+1 -1)") {
					t.Fatalf("questions: %q", asked)
				}
				if log := f.log.String(); !strings.Contains(log, `"outcome":"input_required"`) || strings.Contains(log, `"outcome":"internal"`) {
					t.Errorf("the question round is not logged as such:\n%s", log)
				}
				switch action {
				case "accept":
					if res.IsError || !strings.Contains(f.read(t, "greet.go"), `"hi"`) {
						t.Errorf("accepted, but: %s", res.Text)
					}
				default:
					if !res.IsError || res.ErrorClass() != string(server.PermissionDenied) || f.state(t) != before {
						t.Errorf("declined, but: %s", res.Text)
					}
				}
			})
		}
	}
}
