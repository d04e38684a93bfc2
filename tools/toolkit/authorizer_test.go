package toolkit_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// fileIn names a file: its path is part of its scope.
type fileIn struct {
	toolkit.Target
	Path string `json:"path"`
}

func (in fileIn) Scope() workspace.Scope { return in.Target.Scope().WithPaths(in.Path) }

// fileGlobIn has a field called path that is a filter, not a path: it is not
// in the scope, so it is never checked as one.
type fileGlobIn struct {
	toolkit.Target
	Path string `json:"path"`
}

type ranOut struct {
	Ran bool `json:"ran"`
}

func TestAuthorizerReadsTheScopeFromTheType(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "one", map[string]gitfixture.File{"a/x.go": gitfixture.Text("package a\n"), "b/y.go": gitfixture.Text("package b\n")})
	reg, err := workspace.Open(workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "ws", Root: repo.Dir}},
		Policies:   []workspace.PolicyConfig{{Identity: "bob", Workspaces: []string{"ws"}, Actions: []workspace.Action{workspace.ActionRead}, Allow: []string{"a/**"}}},
	}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	s := server.New(server.Info{Name: "t"}, server.Options{
		Caller: "bob", Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg),
	})
	ran := func(context.Context, *server.Request, fileIn) (ranOut, error) { return ranOut{Ran: true}, nil }
	ranGlob := func(context.Context, *server.Request, fileGlobIn) (ranOut, error) { return ranOut{Ran: true}, nil }
	server.MustRegister(s, server.Tool{Name: "file", Description: "Reads a file.", Effect: server.ReadOnly, Action: "read"}, ran)
	server.MustRegister(s, server.Tool{Name: "glob", Description: "Filters by a glob.", Effect: server.ReadOnly, Action: "read"}, ranGlob)
	c := servertest.Start(t, s)
	for _, tc := range []struct {
		tool, ws, path string
		want           string // error class, or "" when the tool runs
	}{
		{"file", "ws", "a/x.go", ""},
		{"file", "ws", "b/y.go", "permission_denied"},
		{"file", "ws", ".env", "permission_denied"},
		{"file", "ws", "../etc/passwd", "invalid_input"},
		{"file", "nope", "a/x.go", "not_found"},
		{"glob", "ws", "b/**", ""}, // not a path: the tool's snapshot filters what it selects
		{"glob", "nope", "a/x.go", "not_found"},
	} {
		res := c.Call(tc.tool, map[string]any{"workspace_id": tc.ws, "path": tc.path})
		if got := res.ErrorClass(); got != tc.want {
			t.Errorf("%s %s %q: class %q (%s), want %q", tc.tool, tc.ws, tc.path, got, res.Text, tc.want)
		}
	}
}
