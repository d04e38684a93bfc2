package patch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// TestWorktreeCheckoutForms applies patches to working trees that git
// checked out with conversions: CRLF line ends from gitattributes or
// core.autocrlf, and files under a filter (Git LFS). A file git converts
// is neither stale nor rewritten with LF: after the apply it holds exactly
// what git itself checks out for the new blob (git cat-file --filters).
// What cannot be reproduced is refused, naming the attribute.
func TestWorktreeCheckoutForms(t *testing.T) {
	const lfsPointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	tests := []struct {
		name       string
		attributes string            // .gitattributes at the base
		config     map[string]string // git config of the repository
		file       string            // the file the patch changes
		content    string            // its content at the base
		refused    string            // in the conflict when the apply must be refused
	}{
		{name: "eol=crlf", attributes: "*.txt text eol=crlf\n", file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "text=auto eol=crlf", attributes: "* text=auto eol=crlf\n", file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "core.autocrlf", config: map[string]string{"core.autocrlf": "true"}, file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "text with core.eol", attributes: "*.txt text\n", config: map[string]string{"core.eol": "crlf"}, file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "legacy crlf attribute", attributes: "*.txt crlf\n", config: map[string]string{"core.autocrlf": "true"}, file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "-text wins over core.autocrlf", attributes: "*.txt -text\n", config: map[string]string{"core.autocrlf": "true"}, file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "binary", attributes: "*.txt binary\n", config: map[string]string{"core.autocrlf": "true"}, file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "eol=lf", attributes: "*.txt eol=lf\n", config: map[string]string{"core.autocrlf": "true"}, file: "a.txt", content: "one\ntwo\nthree\n"},
		{name: "deeper file wins", attributes: "*.txt eol=crlf\n", file: "sub/a.txt", content: "one\ntwo\nthree\n"},
		{name: "LFS pointer without filter", file: "big.bin", content: lfsPointer},
		{name: "filter=lfs", attributes: "*.bin filter=lfs diff=lfs merge=lfs -text\n", file: "big.bin", content: lfsPointer, refused: "filter=lfs"},
		{name: "ident", attributes: "*.txt ident\n", file: "a.txt", content: "one\ntwo\nthree\n", refused: "ident"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]gitfixture.File{tt.file: gitfixture.Text(tt.content), "other.txt": gitfixture.Text("x\n")}
			if tt.attributes != "" {
				files[".gitattributes"] = gitfixture.Text(tt.attributes)
			}
			if tt.name == "deeper file wins" {
				files["sub/.gitattributes"] = gitfixture.Text("*.txt -text\n*.txt eol=crlf text\n")
				files[".gitattributes"] = gitfixture.Text("*.txt -text\n")
			}
			f := checkoutFixture(t, files, tt.config)
			g := generate(t, f, edit("replace", tt.file, "old_text", strings.SplitAfter(tt.content, "\n")[1], "new_text", "TWO\n"))
			p := ok[generated](t, f, "preview_diff", map[string]any{"patch_id": g.PatchID, "target": "worktree"})
			if tt.refused != "" {
				if p.Applies || len(p.Conflicts) != 1 || !strings.Contains(p.Conflicts[0].Reason, tt.refused) {
					t.Fatalf("preview: applies=%v conflicts=%+v; want a refusal naming %s", p.Applies, p.Conflicts, tt.refused)
				}
				before := f.state(t)
				text := fails(t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"}, server.PreconditionFailed)
				if !strings.Contains(text, tt.refused) {
					t.Errorf("the refusal does not name %s: %s", tt.refused, text)
				}
				if f.state(t) != before {
					t.Errorf("a refused apply wrote something")
				}
				return
			}
			if !p.Applies {
				t.Fatalf("preview: the worktree as git checked it out is stale: %+v", p.Conflicts)
			}
			ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "target": "worktree"})
			want := gitfixture.Git(t, f.dir, "cat-file", "--filters", g.PatchID+":"+tt.file)
			if got := f.read(t, tt.file); got != want {
				t.Errorf("after the apply the file holds %q; git checks out %q", got, want)
			}
			if status := gitfixture.Git(t, f.dir, "status", "--porcelain"); status != " M "+tt.file+"\n" {
				t.Errorf("git status after the apply:\n%s", status)
			}
		})
	}
}

// checkoutFixture commits files, sets config, and lets git check them out.
func checkoutFixture(t *testing.T, files map[string]gitfixture.File, config map[string]string) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	os.Mkdir(dir, 0o755)
	head := gitfixture.Init(t, dir, false).Commit(t, "first", files)
	for k, v := range config {
		gitfixture.Git(t, dir, "config", k, v)
	}
	gitfixture.Git(t, dir, "reset", "-q", "--hard", "main")
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "repo", Root: dir, Worktree: true}}}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	f := &fixture{dir: dir, head: head, reg: reg, log: &syncBuffer{}}
	f.client = f.start(t, fixtureOptions{})
	return f
}
