// Package searchfixture builds the setup the search tools' tests share: a
// repository with one commit of the given files, the same files (and a
// few more) in its working tree, served as workspace "app" (working tree
// readable) to alice, who may search everything, and to bob, who may not
// search internal/secret; and clients calling the tools under test as
// either of them, through the real protocol path.
//
//	fx := searchfixture.New(t, files, map[string]string{"extra.go": "package main\n"})
//	svc := mytool.New(fx.Reg, ...)
//	alice := fx.Client(t, searchfixture.Alice, svc.Register)
package searchfixture

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// The identities the registry knows.
const (
	Alice = "alice" // may search everything but the secret patterns
	Bob   = "bob"   // may not search internal/secret
)

// WorkspaceID is the one workspace's id.
const WorkspaceID = "app"

// Fixture is a repository served by a registry.
type Fixture struct {
	Repo *gitfixture.Repo
	Head string // the commit of files
	Reg  *workspace.Registry
}

// New commits files, writes them and worktreeOnly to the working tree,
// and opens a registry serving the repository. The registry is closed
// when the test ends.
func New(t testing.TB, files map[string]gitfixture.File, worktreeOnly map[string]string) *Fixture {
	t.Helper()
	repo := gitfixture.New(t)
	head := repo.Commit(t, "first", files)
	write := func(p, content string) {
		full := filepath.Join(repo.Dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, f := range files {
		write(p, f.Content)
	}
	for p, content := range worktreeOnly {
		write(p, content)
	}
	cfg := workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: WorkspaceID, Root: repo.Dir, Worktree: true}},
		Policies: []workspace.PolicyConfig{
			{Identity: Alice, Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionSearch}, Allow: []string{"**"}},
			{Identity: Bob, Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionSearch}, Allow: []string{"**"}, Deny: []string{"internal/secret/**"}},
		},
	}
	reg, err := workspace.Open(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	return &Fixture{Repo: repo, Head: head, Reg: reg}
}

// Client returns a client calling, as identity, a server that register
// filled.
func (fx *Fixture) Client(t testing.TB, identity string, register func(*server.Server) error) *servertest.Client {
	t.Helper()
	s := server.New(server.Info{Name: "t"}, server.Options{
		Caller: identity, Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(fx.Reg),
	})
	if err := register(s); err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, s)
}
