package repoinfo_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/repoinfo"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

func TestRepoInfo(t *testing.T) {
	repo := gitfixture.New(t)
	first := repo.Commit(t, "first commit", map[string]gitfixture.File{
		"go.mod":    gitfixture.Text("module example.com/app\n\ngo 1.26\n"),
		"main.go":   gitfixture.Text("package main\n"),
		"a/b.go":    gitfixture.Text("package a\n"),
		"README.md": gitfixture.Text("hi\n"),
		".env":      gitfixture.Text("SECRET=1\n"),
	})
	repo.Tag(t, "v1.0.0", first, true)
	second := repo.Commit(t, "second commit", map[string]gitfixture.File{
		"go.mod":  gitfixture.Text("module example.com/app\n\ngo 1.26\n"),
		"main.go": gitfixture.Text("package main\n\nfunc main() {}\n"),
	})
	repo.SetRef(t, "refs/heads/dev", first)
	// The working tree matches the commit: a clean checkout.
	os.WriteFile(repo.Dir+"/go.mod", []byte("module example.com/app\n\ngo 1.26\n"), 0o644)

	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "app", Root: repo.Dir, Worktree: true}}}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	s := server.New(server.Info{Name: "t"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg)})
	if err := repoinfo.Register(s, reg, repoinfo.Options{}); err != nil {
		t.Fatal(err)
	}
	c := servertest.Start(t, s)

	res := c.Call("repo_info", map[string]any{"workspace_id": "app"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	var out repoinfo.RepoInfoOut
	if err := json.Unmarshal(res.Structured, &out); err != nil {
		t.Fatal(err)
	}
	if out.Revision != second || out.Head.SHA != second || out.Head.Ref != "refs/heads/main" || out.DefaultBranch == "" {
		t.Errorf("revision %s head %+v default %q", out.Revision, out.Head, out.DefaultBranch)
	}
	if out.TotalBranches != 2 || out.TotalTags != 1 || out.Tags[0].SHA != first || out.RefsTruncated {
		t.Errorf("refs: %+v %+v", out.Branches, out.Tags)
	}
	if len(out.RecentCommits) != 2 || out.RecentCommits[0].Subject != "second commit" || out.RecentCommits[0].SHA != second {
		t.Errorf("commits: %+v", out.RecentCommits)
	}
	if out.GoModule != "example.com/app" || out.FileCount != 2 || out.Languages[0].Extension != ".go" || !out.Worktree.Readable {
		t.Errorf("module %q, files %d, languages %+v, worktree %+v", out.GoModule, out.FileCount, out.Languages, out.Worktree)
	}
	res = c.Call("repo_info", map[string]any{"workspace_id": "app", "revision": "v1.0.0"})
	json.Unmarshal(res.Structured, &out)
	if out.Revision != first || out.FileCount != 4 || len(out.RecentCommits) != 1 {
		t.Errorf("at v1.0.0: revision %s, %d files (the secret is not counted), %d commits", out.Revision, out.FileCount, len(out.RecentCommits))
	}
	if strings.Contains(res.Text+string(res.Structured), repo.Dir) {
		t.Errorf("repo_info reveals the root path")
	}
}
