package searchtext_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/searchtext"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

var files = map[string]gitfixture.File{
	"main.go": gitfixture.Text("package main\n\n// TODO: handle errors\nfunc main() {\n\tprintln(\"hello, world\")\n}\n"),
	"lib/util.go": gitfixture.Text("package lib\n\nfunc Helper() error {\n\treturn fmt.Errorf(\"helper failed\")\n}\n\n" +
		"func helperTwo() {}\n"),
	"docs/guide.md":           gitfixture.Text("# Guide\n\nSay hello to the helper.\nTODO write more\n"),
	"config/app.yaml":         gitfixture.Text("server:\n  port: 8080\n  greeting: hello\n"),
	"internal/secret/keys.go": gitfixture.Text("package secret\n\n// hello from the secret package\nconst Key = \"hunter2\"\n"),
	".env":                    gitfixture.Text("API_TOKEN=hello-token\n"),
	"data.bin":                gitfixture.Text("hello\x00binary\n"),
	"utf8.txt":                gitfixture.Text("héllo wörld\nnaïve café\nbad \xff byte hello\n"),
	"long.txt":                gitfixture.Text(strings.Repeat("x", 1000) + "needle" + strings.Repeat("y", 1000) + "\n"),
}

type setup struct {
	repo  *gitfixture.Repo
	head  string
	svc   *searchtext.Service
	alice *servertest.Client // may read everything but the secret patterns
	bob   *servertest.Client // may not read internal/secret
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	repo := gitfixture.New(t)
	head := repo.Commit(t, "first", files)
	for p, f := range files {
		os.MkdirAll(filepath.Join(repo.Dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(repo.Dir, p), []byte(f.Content), 0o644)
	}
	os.WriteFile(filepath.Join(repo.Dir, "extra.go"), []byte("package main\n\n// hello from disk\n"), 0o644)
	cfg := workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "app", Root: repo.Dir, Worktree: true}},
		Policies: []workspace.PolicyConfig{
			{Identity: "alice", Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionSearch}, Allow: []string{"**"}},
			{Identity: "bob", Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionSearch}, Allow: []string{"**"}, Deny: []string{"internal/secret/**"}},
		},
	}
	reg, err := workspace.Open(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	svc, err := searchtext.New(reg, searchtext.Options{CacheDir: t.TempDir(), MaxFileBytes: 1500})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	client := func(identity string) *servertest.Client {
		s := server.New(server.Info{Name: "t"}, server.Options{
			Caller: identity, Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg),
		})
		if err := svc.Register(s); err != nil {
			t.Fatal(err)
		}
		return servertest.Start(t, s)
	}
	return &setup{repo: repo, head: head, svc: svc, alice: client("alice"), bob: client("bob")}
}

func search(t *testing.T, c *servertest.Client, args map[string]any) (searchtext.SearchTextOut, *servertest.Result) {
	t.Helper()
	args["workspace_id"] = "app"
	res := c.Call("search_text", args)
	var out searchtext.SearchTextOut
	if !res.IsError {
		if err := json.Unmarshal(res.Structured, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out, res
}

// hits renders matches as path:line:column, space-separated.
func hits(out searchtext.SearchTextOut) string {
	var s []string
	for _, m := range out.Matches {
		s = append(s, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
	}
	for _, f := range out.Files {
		s = append(s, fmt.Sprintf("%s=%d", f.Path, f.Matches))
	}
	return strings.Join(s, " ")
}

func TestSearchText(t *testing.T) {
	st := newSetup(t)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "hello"}, "config/app.yaml:3:13 docs/guide.md:3:5 internal/secret/keys.go:3:4 main.go:5:11 utf8.txt:3:12"},
		{map[string]any{"pattern": "Hello", "case": "insensitive"}, "config/app.yaml:3:13 docs/guide.md:3:5 internal/secret/keys.go:3:4 main.go:5:11 utf8.txt:3:12"},
		{map[string]any{"pattern": "Hello"}, ""},
		{map[string]any{"pattern": "Hello", "case": "smart"}, ""},
		{map[string]any{"pattern": "helper", "case": "smart"}, "docs/guide.md:3:18 lib/util.go:3:6 lib/util.go:4:21 lib/util.go:7:6"},
		{map[string]any{"pattern": "helper", "whole_word": true, "case": "smart"}, "docs/guide.md:3:18 lib/util.go:3:6 lib/util.go:4:21"},
		{map[string]any{"pattern": `^func \w+\(\)`, "mode": "regexp"}, "lib/util.go:3:1 lib/util.go:7:1 main.go:4:1"},
		{map[string]any{"pattern": `TODO|port:`, "mode": "regexp"}, "config/app.yaml:2:3 docs/guide.md:4:1 main.go:3:4"},
		{map[string]any{"pattern": "hello", "languages": []string{"go"}}, "internal/secret/keys.go:3:4 main.go:5:11"},
		{map[string]any{"pattern": "hello", "include": []string{"*.md", "config/**"}}, "config/app.yaml:3:13 docs/guide.md:3:5"},
		{map[string]any{"pattern": "hello", "exclude": []string{"internal/**", "*.txt"}}, "config/app.yaml:3:13 docs/guide.md:3:5 main.go:5:11"},
		{map[string]any{"pattern": "café"}, "utf8.txt:2:8"},
		{map[string]any{"pattern": "WÖRLD", "case": "insensitive"}, "utf8.txt:1:8"},
		{map[string]any{"pattern": "h.llo", "mode": "regexp", "output": "files"}, "config/app.yaml=1 docs/guide.md=1 internal/secret/keys.go=1 main.go=1 utf8.txt=2"},
		{map[string]any{"pattern": `[^a-z]$`, "mode": "regexp", "include": []string{"docs/*"}}, "docs/guide.md:3:24"},
		{map[string]any{"pattern": `\s+$`, "mode": "regexp"}, ""},
		{map[string]any{"pattern": "needle"}, ""}, // long.txt is over the size bound of this setup
	}
	for _, tt := range tests {
		out, res := search(t, st.alice, tt.args)
		if res.IsError || hits(out) != tt.want {
			t.Errorf("%v: got %q (%s), want %q", tt.args, hits(out), res.Text, tt.want)
		}
		if out.Revision != st.head || !out.Complete {
			t.Errorf("%v: revision %s, complete %v", tt.args, out.Revision, out.Complete)
		}
	}
}
