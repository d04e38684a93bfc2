package patch_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// TestGenerateRefuses sends hostile and broken proposals: each must fail
// with its class, and write nothing (no ref, no file).
func TestGenerateRefuses(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: patch.Options{MaxFiles: 3}})
	tests := []struct {
		name  string
		args  map[string]any
		class server.Class
		want  string // in the error text
	}{
		{"diff names ../", map[string]any{"diff": "--- /dev/null\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n"}, server.InvalidInput, ".."},
		{"diff names .git/config", map[string]any{"diff": "--- a/.git/config\n+++ b/.git/config\n@@ -0,0 +1 @@\n+[core]\n"}, server.InvalidInput, ".git"},
		{"diff renames to ../x", map[string]any{"diff": "diff --git a/docs/a.txt b/../x\nsimilarity index 100%\nrename from docs/a.txt\nrename to ../x\n"}, server.InvalidInput, ".."},
		{"diff new symlink", map[string]any{"diff": "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"}, server.InvalidInput, "120000"},
		{"diff new gitlink", map[string]any{"diff": "diff --git a/g b/g\nnew file mode 160000\n--- /dev/null\n+++ b/g\n@@ -0,0 +1 @@\n+Subproject commit 0123456789abcdef0123456789abcdef01234567\n"}, server.InvalidInput, "160000"},
		{"diff binary", map[string]any{"diff": "diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 3\nKcmZ>9\n\nliteral 0\nHcmV?d00001\n\n"}, server.InvalidInput, "binary"},
		{"diff does not apply", map[string]any{"diff": "--- a/docs/a.txt\n+++ b/docs/a.txt\n@@ -1,2 +1,2 @@\n alpha\n-BETA\n+beta2\n"}, server.InvalidInput, "match nowhere"},
		{"empty diff", map[string]any{"diff": "  \n"}, server.InvalidInput, "empty"},
		{"edits and diff", map[string]any{"diff": "x", "edits": []any{edit("delete", "main.go")}}, server.InvalidInput, "not several"},
		{"nothing", map[string]any{}, server.InvalidInput, "edits, a diff or a patch"},
		{"rename to ../x", map[string]any{"edits": []any{edit("rename", "docs/a.txt", "new_path", "../x")}}, server.InvalidInput, ".."},
		{"write absolute", map[string]any{"edits": []any{edit("write", "/etc/passwd", "content", "x")}}, server.InvalidInput, ""},
		{"write .git/hooks", map[string]any{"edits": []any{edit("write", ".git/hooks/pre-commit", "content", "x")}}, server.InvalidInput, ".git"},
		{"write .GIT", map[string]any{"edits": []any{edit("write", "a/.GIT/config", "content", "x")}}, server.InvalidInput, ""},
		{"ambiguous old_text", map[string]any{"edits": []any{edit("replace", "README.md", "old_text", "x = 1", "new_text", "x = 2")}}, server.InvalidInput, "lines 3, 5"},
		{"old_text not found", map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", "return \"helo\"", "new_text", "x")}}, server.InvalidInput, `closest line is 4: "\treturn \"hello\""`},
		{"whitespace differs", map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", "return  \"hello\"", "new_text", "x")}}, server.InvalidInput, "different whitespace"},
		{"edit a symlink", map[string]any{"edits": []any{edit("write", "link", "content", "x")}}, server.InvalidInput, "symlink"},
		{"edit a gitlink", map[string]any{"edits": []any{edit("delete", "sub")}}, server.InvalidInput, "submodule"},
		{"write through a symlink", map[string]any{"edits": []any{edit("write", "link/x", "content", "x")}}, server.InvalidInput, "symlink"},
		{"write a path ending in /", map[string]any{"edits": []any{edit("write", "greet.go/", "content", "x")}}, server.InvalidInput, "names a directory"},
		{"write a new path ending in /", map[string]any{"edits": []any{edit("write", "newdir/", "content", "x")}}, server.InvalidInput, "names a directory"},
		{"rename to a path ending in /", map[string]any{"edits": []any{edit("rename", "docs/a.txt", "new_path", "docs/b/")}}, server.InvalidInput, "names a directory"},
		{"write over a directory", map[string]any{"edits": []any{edit("write", "docs", "content", "x")}}, server.InvalidInput, "dir"},
		{"case collision", map[string]any{"edits": []any{edit("write", "readme.md", "content", "x")}}, server.InvalidInput, "only in case"},
		{"binary content", map[string]any{"edits": []any{edit("write", "x.bin", "content", "a\x00b")}}, server.InvalidInput, "binary"},
		{"secret", map[string]any{"edits": []any{edit("write", ".env", "content", "x")}}, server.PermissionDenied, "secret"},
		{"no change", map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", "hello", "new_text", "hello")}}, server.InvalidInput, "changes nothing"},
		{"delete missing", map[string]any{"edits": []any{edit("delete", "nope.txt")}}, server.InvalidInput, "does not exist"},
		{"too many files", map[string]any{"edits": []any{edit("write", "1", "content", "x"), edit("write", "2", "content", "x"), edit("write", "3", "content", "x"), edit("write", "4", "content", "x")}}, server.InvalidInput, "more than the 3"},
		{"base is the worktree", map[string]any{"revision": "worktree", "edits": []any{edit("delete", "main.go")}}, server.InvalidInput, ""},
		{"base revision -x", map[string]any{"revision": "--output=/tmp/x", "edits": []any{edit("delete", "main.go")}}, server.InvalidInput, ""},
	}
	before := f.state(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := fails(t, f, "generate_patch", tt.args, tt.class)
			if !strings.Contains(text, tt.want) {
				t.Errorf("error %q lacks %q", text, tt.want)
			}
			if got := f.state(t); got != before {
				t.Errorf("a refused proposal wrote something")
			}
		})
	}
}

func TestProtectedPaths(t *testing.T) {
	f := newFixture(t, fixtureOptions{policies: []workspace.PolicyConfig{
		{Identity: "local", Workspaces: []string{"*"}, Actions: []workspace.Action{"read", "propose"}},
	}})
	for _, args := range []map[string]any{
		{"edits": []any{edit("write", ".github/workflows/ci.yml", "content", "on: pull_request_target\n")}},
		{"diff": "--- .github/workflows/ci.yml\n+++ .github/workflows/ci.yml\n@@ -9 +9 @@\n-on: push\n+on: pull_request_target\n"},
		{"patch": "*** Begin Patch\n*** Update File: .github/workflows/ci.yml\n-on: push\n+on: pull_request_target\n*** End Patch\n"},
	} {
		text := fails(t, f, "generate_patch", args, server.PermissionDenied)
		if !strings.Contains(text, "protected") {
			t.Errorf("error: %s", text)
		}
	}
	g := generate(t, f, edit("write", "docs/a.txt", "content", "x\n"))
	fails(t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256}, server.PermissionDenied)
}

func TestApplyRefuses(t *testing.T) {
	f := newFixture(t, fixtureOptions{second: true})
	g := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"bye"`))
	other := ok[generated](t, f, "generate_patch", map[string]any{"workspace_id": "other", "edits": []any{edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"other"`)}})
	otherDigest := digestOf(t, f, "docs/a.txt")

	gitfixture.Git(t, f.dir, "update-ref", "refs/heads/feature", f.head)
	moved := strings.TrimSpace(gitfixture.Git(t, f.dir, "commit-tree", "-p", f.head, "-m", "elsewhere", f.head+"^{tree}"))
	gitfixture.Git(t, f.dir, "update-ref", "refs/heads/moved", moved)

	before := f.state(t)
	tests := []struct {
		name  string
		args  map[string]any
		class server.Class
		want  string
	}{
		{"wrong digest", map[string]any{"patch_id": g.PatchID, "diff_sha256": strings.Repeat("0", 64)}, server.PermissionDenied, "does not match"},
		{"digest of another patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": otherDigest}, server.PermissionDenied, "does not match"},
		{"digest from another workspace", map[string]any{"patch_id": g.PatchID, "diff_sha256": other.DiffSHA256}, server.PermissionDenied, "does not match"},
		{"patch of another workspace", map[string]any{"patch_id": other.PatchID, "diff_sha256": other.DiffSHA256}, server.NotFound, "no patch"},
		{"unknown patch", map[string]any{"patch_id": strings.Repeat("a", 40), "diff_sha256": g.DiffSHA256}, server.NotFound, "no patch"},
		{"branch moved", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "moved"}, server.PreconditionFailed, moved},
		{"checked-out branch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "main"}, server.PreconditionFailed, "checked out"},
		{"bad branch name", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "a..b"}, server.InvalidInput, "not allowed"},
		{"branch -x", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "-x"}, server.InvalidInput, "not allowed"},
		{"branch HEAD", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "HEAD"}, server.InvalidInput, "not allowed"},
		{"branch refs/heads/HEAD", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "refs/heads/HEAD"}, server.InvalidInput, "not allowed"},
		{"branch FETCH_HEAD", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "FETCH_HEAD"}, server.InvalidInput, "not allowed"},
		{"expect_base", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "expect_base": moved}, server.PreconditionFailed, "expect_base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := fails(t, f, "apply_patch", tt.args, tt.class)
			if !strings.Contains(text, tt.want) {
				t.Errorf("error %q lacks %q", text, tt.want)
			}
			if got := f.state(t); got != before {
				t.Errorf("a refused apply wrote something")
			}
		})
	}
	// The existing branch at the base moves; the patch then applies nowhere else by accident.
	a := ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "branch": "feature"})
	if a.Branch != "refs/heads/feature" || strings.TrimSpace(gitfixture.Git(t, f.dir, "rev-parse", "feature")) != g.PatchID {
		t.Errorf("apply to feature: %+v", a)
	}
}

// digestOf is the digest of some other patch.
func digestOf(t *testing.T, f *fixture, path string) string {
	return generate(t, f, edit("write", path, "content", "other\n")).DiffSHA256
}

func TestApplyWorktreeStale(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, f *fixture)
		want   string
	}{
		{"file edited after preview", func(t *testing.T, f *fixture) {
			os.WriteFile(filepath.Join(f.dir, "greet.go"), []byte("edited by a person\n"), 0o644)
		}, "greet.go"},
		{"file deleted", func(t *testing.T, f *fixture) { os.Remove(filepath.Join(f.dir, "greet.go")) }, "missing"},
		{"new file exists", func(t *testing.T, f *fixture) {
			os.WriteFile(filepath.Join(f.dir, "new.txt"), []byte("mine\n"), 0o644)
		}, "new.txt"},
		{"symlinked directory", func(t *testing.T, f *fixture) {
			os.RemoveAll(filepath.Join(f.dir, "docs"))
			os.Symlink(".git", filepath.Join(f.dir, "docs"))
		}, "docs"},
		{"HEAD moved", func(t *testing.T, f *fixture) {
			gitfixture.Git(t, f.dir, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "moved")
		}, "HEAD is at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			g := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"bye"`),
				edit("write", "new.txt", "content", "new\n"), edit("write", "docs/c.txt", "content", "c\n"))
			if p := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g.PatchID, "target": "worktree"}); !p.Applies {
				t.Fatalf("preview before the change: %+v", p)
			}
			tc.change(t, f)
			before := f.state(t)
			if p := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g.PatchID, "target": "worktree"}); p.Applies {
				t.Errorf("preview after the change still applies")
			}
			text := fails(t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"}, server.PreconditionFailed)
			if !strings.Contains(text, tc.want) {
				t.Errorf("error %q lacks %q", text, tc.want)
			}
			if f.state(t) != before {
				t.Errorf("a refused worktree apply wrote something")
			}
			if _, err := os.Stat(filepath.Join(f.dir, ".git", "c.txt")); err == nil {
				t.Errorf("the apply wrote through the symlink into .git")
			}
		})
	}
}

// TestConcurrentApplies races applies in one workspace: exactly one of
// each race wins, the others are precondition_failed.
func TestConcurrentApplies(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	for round := range 5 {
		var patches []generated
		for i := range 4 {
			patches = append(patches, generate(t, f, edit("write", "greet.go", "content", strings.Repeat("x", round*10+i+1)+"\n")))
		}
		branch := "race" + string(rune('a'+round))
		gitfixture.Git(t, f.dir, "update-ref", "refs/heads/"+branch, f.head)
		for _, target := range []string{"branch", "worktree"} {
			var wg sync.WaitGroup
			results := make([]string, len(patches))
			for i, p := range patches {
				wg.Go(func() {
					args := map[string]any{"workspace_id": "repo", "patch_id": p.PatchID, "diff_sha256": p.DiffSHA256, "target": target, "branch": branch}
					if target == "worktree" {
						delete(args, "branch")
					}
					res := f.client.Call("apply_patch", args)
					results[i] = res.ErrorClass()
					if !res.IsError {
						results[i] = "ok"
					}
				})
			}
			wg.Wait()
			wins := 0
			for _, r := range results {
				switch r {
				case "ok":
					wins++
				case string(server.PreconditionFailed):
				default:
					t.Errorf("round %d %s: a result %q", round, target, r)
				}
			}
			if wins != 1 {
				t.Errorf("round %d %s: %d applies won: %v", round, target, wins, results)
			}
		}
		gitfixture.Git(t, f.dir, "checkout", "-q", "--", "greet.go")
	}
}

func TestReadOnlyWorkspace(t *testing.T) {
	f := newFixture(t, fixtureOptions{readOnly: true})
	g := generate(t, f, edit("write", "docs/a.txt", "content", "x\n")) // proposing changes nothing anyone sees
	before := f.state(t)
	for _, target := range []string{"branch", "worktree"} {
		text := fails(t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": target}, server.PermissionDenied)
		if !strings.Contains(text, "read-only") {
			t.Errorf("%s: %s", target, text)
		}
	}
	if f.state(t) != before {
		t.Errorf("an apply to a read-only workspace wrote something")
	}
	if h := f.history(t, g.PatchID); h != "proposed by local\n" {
		t.Errorf("an apply to a read-only workspace recorded an attempt:\n%s", h)
	}
}
