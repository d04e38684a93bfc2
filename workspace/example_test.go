package workspace_test

import (
	"context"
	"fmt"
	"os"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// exampleT lets the fixture builder run outside a test.
type exampleT struct{ dir string }

func (exampleT) Helper()                        {}
func (exampleT) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (exampleT) Skip(a ...any)                  { panic(fmt.Sprint(a...)) }
func (t exampleT) TempDir() string              { return t.dir }

// A tool's life: open the registry once, then per call resolve a snapshot
// for the caller and read through it.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	repo := gitfixture.New(exampleT{dir})
	repo.Commit(exampleT{dir}, "first", map[string]gitfixture.File{
		"README.md": gitfixture.Text("hello\n"),
		"src/a.go":  gitfixture.Text("package a\n"),
		".env":      gitfixture.Text("TOKEN=secret\n"),
	})

	// At start: workspaces from flags or a config file.
	spec, _ := workspace.ParseWorkspaceFlag("demo=" + repo.Dir)
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{spec}}, workspace.Options{})
	if err != nil {
		panic(err)
	}
	defer reg.Close()

	// Per call: who is asking, for what, in which workspace, at which revision.
	ctx := context.Background()
	acc := workspace.Access{Identity: "local", Action: workspace.ActionRead}
	snap, err := reg.Snapshot(ctx, acc, "demo", "HEAD")
	if err != nil {
		panic(err)
	}
	f, _ := snap.ReadFile(ctx, "README.md", workspace.ReadOptions{Limit: 1024})
	fmt.Printf("%q from %s\n", f.Data, snap.Revision().SHA[:7])

	stats, _ := snap.Walk(ctx, "", workspace.WalkOptions{Recursive: true}, func(e workspace.Entry) error {
		fmt.Println(e.Type, e.Path)
		return nil
	})
	fmt.Println("omitted:", stats.Omitted)

	_, err = snap.ReadFile(ctx, ".env", workspace.ReadOptions{})
	fmt.Println(errclass.ClassOf(err))
	_, err = snap.ReadFile(ctx, "../other/x", workspace.ReadOptions{})
	fmt.Println(err)
	_, err = reg.Snapshot(ctx, acc, "demo", "--output=x")
	fmt.Println(err)

	// Output:
	// "hello\n" from ae9c676
	// file README.md
	// dir src
	// file src/a.go
	// omitted: 1
	// permission_denied
	// invalid_input: path "../other/x" leaves the workspace root
	// invalid_input: revision "--output=x" starts with '-'
}
