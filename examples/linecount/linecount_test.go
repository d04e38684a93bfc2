package linecount_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/repo-mcp/repo-mcp/examples/linecount"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// start serves count_lines over one repository to caller, through the real
// protocol path.
func start(t *testing.T, caller string) (*servertest.Client, string) {
	t.Helper()
	repo := gitfixture.New(t)
	head := repo.Commit(t, "one", map[string]gitfixture.File{
		"main.go":     gitfixture.Text("package main\n\nfunc main() {}\n"),
		"lib/lib.go":  gitfixture.Text("package lib\n"),
		"lib/.env.go": gitfixture.Text("secret\nsecret\n"), // a secret pattern (.env*) hides it
		"README.md":   gitfixture.Text("not go\n"),
	})
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard") // the working tree, for revision "worktree"
	reg, err := workspace.Open(workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "app", Root: repo.Dir, Worktree: true}},
		Policies: []workspace.PolicyConfig{
			{Identity: "local", Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionRead}},
			{Identity: "bob", Workspaces: []string{"app"}, Actions: []workspace.Action{workspace.ActionRead}, Allow: []string{"lib/**"}},
		},
	}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	s := server.New(server.Info{Name: "example"}, server.Options{
		Caller: caller, Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg),
	})
	if err := linecount.Register(s, reg); err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, s), head
}

func TestCountLines(t *testing.T) {
	for _, tc := range []struct {
		name, caller, revision string
		want                   linecount.Out // Revision "" means HEAD's
		class                  string
	}{
		{name: "everything the caller may see", caller: "local", want: linecount.Out{Files: 2, Lines: 4, Omitted: 1}},
		{name: "the working tree", caller: "local", revision: "worktree", want: linecount.Out{Revision: "worktree", Files: 2, Lines: 4, Omitted: 1}},
		{name: "a policy hides main.go", caller: "bob", want: linecount.Out{Files: 1, Lines: 1, Omitted: 3}},
		{name: "no such revision", caller: "local", revision: "nope", class: "not_found"},
		{name: "a caller with no access", caller: "eve", class: "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, head := start(t, tc.caller)
			res := c.Call("count_lines", map[string]any{"workspace_id": "app", "revision": tc.revision, "pattern": "**/*.go"})
			if got := res.ErrorClass(); got != tc.class {
				t.Fatalf("class %q (%s), want %q", got, res.Text, tc.class)
			}
			if tc.class != "" {
				return
			}
			var got linecount.Out
			if err := json.Unmarshal(res.Structured, &got); err != nil {
				t.Fatal(err)
			}
			if tc.want.Revision == "" {
				tc.want.Revision = head
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestDescriptionsComeFromDocComments lists the tool and finds the doc
// comments of In and Out (through comments_gen.go) and of toolkit.Target
// (through toolkit.Comments) as the schema's descriptions.
func TestDescriptionsComeFromDocComments(t *testing.T) {
	c, _ := start(t, "local")
	tools := c.Tools()
	if len(tools) != 1 {
		t.Fatalf("listed %d tools, want count_lines only", len(tools))
	}
	type schema struct {
		Properties map[string]struct{ Description string } `json:"properties"`
	}
	read := func(v any) schema {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var s schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	in, out := read(tools[0].InputSchema), read(tools[0].OutputSchema)
	for _, tc := range []struct {
		where, field string
		got, want    string
	}{
		{"input", "pattern", in.Properties["pattern"].Description, "Files to count: a glob such as **/*.go."},
		{"output", "files", out.Properties["files"].Description, "How many files were counted."},
	} {
		if tc.got != tc.want {
			t.Errorf("%s %s: description %q, want %q", tc.where, tc.field, tc.got, tc.want)
		}
	}
	if in.Properties["workspace_id"].Description == "" {
		t.Error("input workspace_id has no description: toolkit.Comments did not reach the schema")
	}
}
