package goindex_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/repo-mcp/repo-mcp/tools/searchsymbol/goindex"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// This example indexes the working tree of a repository, read through a
// workspace snapshot, and searches it. A snapshot of a commit is read the
// same way; search_symbol builds a commit's index from its Shared view.
func Example() {
	dir, err := os.MkdirTemp("", "goindex-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("rd/rd.go", `package rd

// Reader reads.
type Reader struct{}

// NewReader returns a new Reader.
func NewReader() *Reader { return &Reader{} }

// Read reads nothing.
func (r *Reader) Read(p []byte) (int, error) { return 0, nil }
`)

	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		log.Fatal(err)
	}
	reg, err := workspace.Open(workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "m", Root: dir, Worktree: true}},
	}, workspace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	acc := workspace.Access{Identity: "local", Action: workspace.ActionSearch}
	snap, err := reg.Snapshot(ctx, acc, "m", workspace.WorktreeRevision)
	if err != nil {
		log.Fatal(err)
	}

	ix := goindex.NewIndexer(goindex.IndexerOptions{})
	for _, q := range []string{"NewReader", "rd.Reader.Read", "NR"} {
		res, err := ix.Search(ctx, goindex.NewSnapshotSource(snap), goindex.Options{}, goindex.Query{Query: q})
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range res.Entries {
			fmt.Printf("%-15s %-7s %s:%d:%d  %s  (%s)\n", e.QualifiedName, e.Kind, e.File, e.Line, e.Column, e.Signature, e.Match)
		}
	}
	// Output:
	// rd.NewReader    func    rd/rd.go:7:6  func NewReader() *Reader  (exact)
	// rd.Reader.Read  method  rd/rd.go:10:18  func (r *Reader) Read(p []byte) (int, error)  (exact)
	// rd.NewReader    func    rd/rd.go:7:6  func NewReader() *Reader  (initials)
}
