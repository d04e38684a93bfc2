package readfile

import (
	"context"
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
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// fmtText is ListFilesOut.Text as it was written with fmt, one call per
// line: the reference the appending version must equal.
func fmtText(o ListFilesOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s: %d of %d entries", displayDir(o.Path), o.Revision, len(o.Entries), o.Total)
	if o.Omitted > 0 || o.Invalid > 0 {
		fmt.Fprintf(&b, " (%d withheld by policy, %d with unsafe names)", o.Omitted, o.Invalid)
	}
	b.WriteString("\n")
	for _, e := range o.Entries {
		switch e.Type {
		case "dir":
			fmt.Fprintf(&b, "%s/\n", e.Path)
		case "symlink":
			fmt.Fprintf(&b, "%s -> %s\n", e.Path, e.Target)
		case "submodule":
			fmt.Fprintf(&b, "%s (submodule)\n", e.Path)
		default:
			if e.Size != nil {
				fmt.Fprintf(&b, "%s\t%d\n", e.Path, *e.Size)
			} else {
				fmt.Fprintf(&b, "%s\n", e.Path)
			}
		}
	}
	if o.Truncated {
		fmt.Fprintf(&b, "[more entries: continue with cursor %s]", o.NextCursor)
	}
	return b.String()
}

// pages are list_files results of every shape the renderers meet: empty,
// counts, every entry type, hostile-looking text, a cursor, with sizes
// and without.
var pages = []ListFilesOut{
	{Revision: "worktree", Entries: []FileEntry{}},
	{Revision: strings.Repeat("ab", 20), Path: "src/pkg", Total: 5, Omitted: 2, Entries: []FileEntry{
		{Path: "src/pkg/a.go", Type: "file", Size: new(int64(1234)), Mode: "100644"},
	}},
	{Revision: "r", Invalid: 1, Entries: []FileEntry{{Path: "d", Type: "dir", Mode: "040000"}}},
	{Revision: "r", Total: 9, Truncated: true, NextCursor: "eyJyIjoiYSJ9", Entries: []FileEntry{
		{Path: "bin/run", Type: "file", Size: new(int64(0)), Mode: "100755"},
		{Path: "dir", Type: "dir", Mode: "040000"},
		{Path: "link", Type: "symlink", Size: new(int64(11)), Mode: "120000", Target: "../etc/passwd"},
		{Path: "vendor/mod", Type: "submodule", Mode: "160000"},
		{Path: "odd", Type: "other", Size: new(int64(-1)), Mode: "000000"},
		{Path: "quotes \"and\" \\ back\\slashes", Type: "file", Size: new(int64(1)), Mode: "100644"},
		{Path: "ctl\x01\x1f\x7f\tand\nnew\rline", Type: "symlink", Mode: "120000", Target: "<&>\u2028\u2029"},
		{Path: "invalid \xff\xfe utf-8", Type: "file", Size: new(int64(1 << 40)), Mode: "100644"},
		{Path: "unicode é ☃ 𝄞", Type: "symlink", Mode: "120000", Target: "\x00"},
	}},
	{Revision: "r", Total: 4, Entries: []FileEntry{
		{Path: "a.go", Type: "file", Mode: "100644"},
		{Path: "b", Type: "dir", Mode: "040000"},
		{Path: "bin/run", Type: "file", Mode: "100755"},
		{Path: "link", Type: "symlink", Mode: "120000", Target: "a.go"},
	}},
}

func TestListTextMatchesFmt(t *testing.T) {
	for i, o := range pages {
		if got, want := o.Text(), fmtText(o); got != want {
			t.Errorf("page %d: Text() =\n%q\nwant\n%q", i, got, want)
		}
	}
}

func TestModeText(t *testing.T) {
	for _, m := range []uint32{
		workspace.ModeFile, workspace.ModeExecutable, workspace.ModeSymlink, workspace.ModeDir,
		workspace.ModeSubmodule, 0, 0o100664, 0o644, 0o7777777,
	} {
		if got, want := modeText(m), fmt.Sprintf("%06o", m); got != want {
			t.Errorf("modeText(%o) = %q, want %q", m, got, want)
		}
	}
}

// benchRepo returns the repository the list_files benchmarks read:
// REPO_MCP_BENCH_REPO, or the Go source tree committed into a new one.
func benchRepo(b *testing.B) string {
	if dir := os.Getenv("REPO_MCP_BENCH_REPO"); dir != "" {
		return dir
	}
	dir := filepath.Join(b.TempDir(), "src")
	gitfixture.GoSource(b, dir)
	return dir
}

// BenchmarkListFilesInProcess lists the whole tree of the benchmark
// repository as BenchmarkListFiles of cmd/repo-mcp does (recursive, pages
// of 10 000), warm, one stage at a time: "page" builds both pages from a
// snapshot (walk, policies, entries); "text" and "json" render them as
// the server does; "call" is the whole tool call over an in-process MCP
// session.
func BenchmarkListFilesInProcess(b *testing.B) {
	dir := benchRepo(b)
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "go", Root: dir}}}, workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	acc := workspace.Access{Identity: "local", Action: workspace.ActionRead}
	listAll := func() []ListFilesOut {
		snap, err := reg.Snapshot(ctx, acc, "go", "")
		if err != nil {
			b.Fatal(err)
		}
		in := ListFilesIn{Target: toolkit.Target{Selector: toolkit.Selector{WorkspaceID: "go"}}, Recursive: true, Limit: workspace.MaxListLimit}
		var outs []ListFilesOut
		for {
			out, err := listPage(ctx, snap, in)
			if err != nil {
				b.Fatal(err)
			}
			outs = append(outs, out)
			if !out.Truncated {
				return outs
			}
			in.Cursor = out.NextCursor
		}
	}
	outs := listAll() // warm
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			listAll()
		}
	})
	b.Run("text", func(b *testing.B) {
		for b.Loop() {
			for _, o := range outs {
				_ = o.Text()
			}
		}
	})
	b.Run("text-fmt", func(b *testing.B) {
		for b.Loop() {
			for _, o := range outs {
				_ = fmtText(o)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			for _, o := range outs {
				if _, err := json.Marshal(o); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("call", func(b *testing.B) {
		s := server.New(server.Info{Name: "b"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg)})
		if err := Register(s, reg, Options{}); err != nil {
			b.Fatal(err)
		}
		c := servertest.Start(b, s)
		for b.Loop() {
			args := map[string]any{"workspace_id": "go", "recursive": true, "limit": workspace.MaxListLimit}
			for {
				res := c.Call("list_files", args)
				var page struct {
					NextCursor string `json:"next_cursor"`
				}
				if err := json.Unmarshal(res.Structured, &page); err != nil {
					b.Fatal(err)
				}
				if page.NextCursor == "" {
					break
				}
				args["cursor"] = page.NextCursor
			}
		}
	})
}
