package patch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// The benchmarks run on the Go standard library's source committed into a
// bare repository of their own (gitfixture.GoSource, or a clone of
// REPO_MCP_BENCH_REPO), side by side with git doing the same work.
// bench/patch.sh prints the ratios.

var benchCorpus struct {
	once  sync.Once
	temp  string // removed by TestMain
	dir   string
	files []string // 10 Go files spread over the tree
	first []string // their first lines
}

func corpus(b *testing.B) (string, []string, []string) {
	benchCorpus.once.Do(func() {
		temp, err := os.MkdirTemp("", "repo-mcp-patch-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchCorpus.temp = temp
		src := os.Getenv("REPO_MCP_BENCH_REPO")
		if src == "" {
			src = filepath.Join(temp, "src")
			gitfixture.GoSource(b, src)
		}
		dir := filepath.Join(temp, "bare.git")
		gitfixture.Git(b, temp, "clone", "-q", "--bare", src, dir) // proposals land in this copy only
		all := strings.Fields(gitfixture.Git(b, dir, "ls-tree", "-r", "--name-only", "HEAD"))
		var goFiles []string
		for _, p := range all {
			if strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
				goFiles = append(goFiles, p)
			}
		}
		step := len(goFiles) / 10
		for i := 0; len(benchCorpus.files) < 10; i += step {
			p := goFiles[i]
			content := gitfixture.Git(b, dir, "show", "HEAD:"+p)
			first, _, _ := strings.Cut(content, "\n")
			if first == "" || strings.Count(content, first+"\n") != 1 {
				i++ // pick the next file: the first line must be unique
				continue
			}
			benchCorpus.files = append(benchCorpus.files, p)
			benchCorpus.first = append(benchCorpus.first, first)
		}
		benchCorpus.dir = dir
	})
	return benchCorpus.dir, benchCorpus.files, benchCorpus.first
}

// BenchmarkPropose: one op proposes a 10-file patch (one line inserted at
// the top of each file), previews it and applies it to a new branch. ours:
// generate_patch from edits, preview_diff and apply_patch through the
// protocol path; diff: the same from the exact diff git applies; lenient:
// the same from a diff as models write it (no a/ b/ prefixes, every
// header 40 lines off with wrong counts), so every hunk is searched for;
// git: git apply --cached on a copy of an index at the base, git
// write-tree, git commit-tree, git update-ref.
func BenchmarkPropose(b *testing.B) {
	dir, files, first := corpus(b)
	b.Run("ours", func(b *testing.B) {
		benchPropose(b, dir, func(run string, i int) map[string]any {
			var edits []any
			for k, p := range files {
				edits = append(edits, edit("replace", p, "old_text", first[k]+"\n", "new_text", fmt.Sprintf("// bench %s %d\n", run, i)+first[k]+"\n"))
			}
			return map[string]any{"edits": edits}
		})
	})
	b.Run("diff", func(b *testing.B) {
		benchPropose(b, dir, func(run string, i int) map[string]any {
			var diff strings.Builder
			for k, p := range files {
				fmt.Fprintf(&diff, "--- a/%s\n+++ b/%s\n@@ -1 +1,2 @@\n+// bench %s %d\n %s\n", p, p, run, i, first[k])
			}
			return map[string]any{"diff": diff.String()}
		})
	})
	b.Run("lenient", func(b *testing.B) {
		benchPropose(b, dir, func(run string, i int) map[string]any {
			var diff strings.Builder
			for k, p := range files {
				fmt.Fprintf(&diff, "--- %s\n+++ %s\n@@ -41,5 +41,7 @@\n+// bench %s %d\n %s\n", p, p, run, i, first[k])
			}
			return map[string]any{"diff": diff.String()}
		})
	})
	b.Run("git", func(b *testing.B) {
		tmp := b.TempDir()
		index := filepath.Join(tmp, "index")
		git := func(env []string, stdin string, args ...string) (string, error) {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
			cmd.Stdin = strings.NewReader(stdin)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				err = fmt.Errorf("%w: %s", err, stderr.String())
			}
			return strings.TrimSpace(string(out)), err
		}
		if _, err := git([]string{"GIT_INDEX_FILE=" + index}, "", "read-tree", "HEAD"); err != nil {
			b.Fatal(err)
		}
		baseIndex, _ := os.ReadFile(index)
		head, _ := git(nil, "", "rev-parse", "HEAD")
		run := benchRun()
		benchlat.Measure(b, func(i int) error {
			var diff strings.Builder
			for k, p := range files {
				fmt.Fprintf(&diff, "--- a/%s\n+++ b/%s\n@@ -1 +1,2 @@\n+// bench %s %d\n %s\n", p, p, run, i, first[k])
			}
			if err := os.WriteFile(index, baseIndex, 0o644); err != nil {
				return err
			}
			env := []string{"GIT_INDEX_FILE=" + index, "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b"}
			if _, err := git(env, diff.String(), "apply", "--cached"); err != nil {
				return fmt.Errorf("git apply: %w", err)
			}
			tree, err := git(env, "", "write-tree")
			if err != nil {
				return err
			}
			commit, err := git(env, "", "commit-tree", "-p", head, "-m", "bench", tree)
			if err != nil {
				return err
			}
			_, err = git(env, "", "update-ref", fmt.Sprintf("refs/heads/git-bench/%s-%d", run, i), commit, "")
			return err
		})
	})
}

// benchPropose measures generate_patch with args(run, i), preview_diff
// and apply_patch to a new branch.
func benchPropose(b *testing.B, dir string, args func(run string, i int) map[string]any) {
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "go", Root: dir}}}, workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	s := server.New(server.Info{Name: "bench"}, server.Options{
		Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg),
	})
	if err := patch.Register(s, reg, patch.Options{}); err != nil {
		b.Fatal(err)
	}
	c := servertest.Start(b, s)
	run := benchRun()
	benchlat.Measure(b, func(i int) error {
		in := args(run, i)
		in["workspace_id"] = "go"
		res := c.Call("generate_patch", in)
		g, err := decode[generated](res)
		if err != nil {
			return err
		}
		res = c.Call("preview_diff", map[string]any{"workspace_id": "go", "patch_id": g.PatchID})
		p, err := decode[generated](res)
		if err != nil {
			return err
		}
		res = c.Call("apply_patch", map[string]any{"workspace_id": "go", "patch_id": p.Approval.PatchID, "diff_sha256": p.Approval.DiffSHA256})
		_, err = decode[applied](res)
		return err
	})
}

// BenchmarkExport: one op writes the tree of HEAD into an empty directory:
// verify_patch's export (Snapshot.Export), or git archive | tar -x.
func BenchmarkExport(b *testing.B) {
	dir, _, _ := corpus(b)
	b.Run("ours", func(b *testing.B) {
		reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "go", Root: dir}}}, workspace.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer reg.Close()
		snap, err := reg.Snapshot(context.Background(), workspace.Access{Identity: "local", Action: workspace.ActionVerify}, "go", "HEAD")
		if err != nil {
			b.Fatal(err)
		}
		measureDir(b, func(out string) error {
			_, err := snap.Export(context.Background(), out, workspace.ExportOptions{SecretFixtures: true})
			return err
		})
	})
	b.Run("git", func(b *testing.B) {
		measureDir(b, func(out string) error {
			cmd := exec.Command("sh", "-c", "git archive HEAD | tar -x -C \"$1\"", "sh", out)
			cmd.Dir = dir
			return cmd.Run()
		})
	})
}

// measureDir runs op on a fresh empty directory b.N times; removing the
// directory is not measured.
func measureDir(b *testing.B, op func(dir string) error) {
	parent := b.TempDir()
	n := 0
	var lat []time.Duration
	for b.Loop() {
		b.StopTimer()
		out := filepath.Join(parent, fmt.Sprint(n))
		n++
		os.Mkdir(out, 0o755)
		b.StartTimer()
		start := time.Now()
		if err := op(out); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		b.StopTimer()
		os.RemoveAll(out)
		b.StartTimer()
	}
	benchlat.Report(b, lat)
}

// benchRun tells this run's patches from those of earlier runs on the same
// repository.
func benchRun() string { return fmt.Sprint(time.Now().UnixNano()) }

func decode[T any](res *servertest.Result) (T, error) {
	var v T
	if res.IsError {
		return v, fmt.Errorf("%s", res.Text)
	}
	err := json.Unmarshal(res.Structured, &v)
	return v, err
}
