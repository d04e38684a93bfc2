package readfile_test

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/readfile"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// BenchmarkReadFileInProcess reads files of REPO_MCP_BENCH_REPO through
// the real protocol path in one process, for profiling the tool and the
// framework without process boundaries.
func BenchmarkReadFileInProcess(b *testing.B) {
	dir := os.Getenv("REPO_MCP_BENCH_REPO")
	if dir == "" {
		b.Skip("set REPO_MCP_BENCH_REPO to a repository")
	}
	out, err := exec.Command("git", "-C", dir, "ls-tree", "-r", "--name-only", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	paths := strings.Fields(string(out))
	paths = paths[:min(len(paths), 2000)]
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "go", Root: dir}}}, workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	s := server.New(server.Info{Name: "b"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg)})
	readfile.Register(s, reg, readfile.Options{})
	c := servertest.Start(b, s)
	i := 0
	for b.Loop() {
		c.Call("read_file", map[string]any{"workspace_id": "go", "path": paths[i%len(paths)]})
		i++
	}
}
