package readfile_test

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/readfile"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// TestReadLimit reads a file larger than the registry's read limit by
// line: a read that reaches the limit is truncated and names the next
// line, a line past the limit is refused as such (not as past the end of
// the file), and the partial line at the limit is never shown as a line.
func TestReadLimit(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "line %06d\n", i) // 12 bytes
	}
	repo := gitfixture.New(t)
	repo.Commit(t, "big", map[string]gitfixture.File{"big.txt": gitfixture.Text(b.String())})
	// 100 whole lines and half of the 101st fit.
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "repo", Root: repo.Dir}}},
		workspace.Options{MaxReadBytes: 100*12 + 6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	s := server.New(server.Info{Name: "t"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg)})
	if err := readfile.Register(s, reg, readfile.Options{}); err != nil {
		t.Fatal(err)
	}
	client := servertest.Start(t, s)
	for _, tc := range []struct {
		name       string
		args       map[string]any
		lines      [2]int
		truncated  bool
		next       int
		wantText   string
		wantError  string
		totalLines int
	}{
		{name: "from the start", args: map[string]any{}, lines: [2]int{1, 100}, truncated: true, next: 101,
			wantText: "truncated at the read limit", totalLines: -1},
		{name: "the last lines before the limit", args: map[string]any{"start_line": 95}, lines: [2]int{95, 100}, truncated: true, next: 101,
			wantText: "base64 from offset 1200", totalLines: -1},
		{name: "a range within the limit", args: map[string]any{"start_line": 10, "end_line": 20}, lines: [2]int{10, 20}, totalLines: -1},
		{name: "a range up to the limit", args: map[string]any{"start_line": 99, "end_line": 100}, lines: [2]int{99, 100}, totalLines: -1},
		{name: "a range across the limit", args: map[string]any{"start_line": 99, "end_line": 200}, lines: [2]int{99, 100}, truncated: true, next: 101, totalLines: -1},
		{name: "the budget before the limit", args: map[string]any{"max_bytes": 120}, lines: [2]int{1, 10}, truncated: true, next: 11,
			wantText: "continue with start_line 11", totalLines: -1},
		{name: "the line at the limit", args: map[string]any{"start_line": 101}, wantError: "invalid_input: start_line 101 is past the read limit"},
		{name: "far past the limit", args: map[string]any{"start_line": 500000}, wantError: "invalid_input: start_line 500000 is past the read limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["workspace_id"], tc.args["path"] = "repo", "big.txt"
			res := client.Call("read_file", tc.args)
			if tc.wantError != "" {
				if !res.IsError || !strings.HasPrefix(res.Text, tc.wantError) || !strings.Contains(res.Text, "offset 1200") {
					t.Errorf("got %s; want an error %q naming offset 1200", res.Text, tc.wantError)
				}
				return
			}
			if res.IsError {
				t.Fatalf("error: %s", res.Text)
			}
			out := structured[readfile.ReadFileOut](t, res)
			if out.StartLine != tc.lines[0] || out.EndLine != tc.lines[1] || out.Truncated != tc.truncated || out.NextStartLine != tc.next || out.TotalLines != tc.totalLines {
				t.Errorf("lines %d-%d truncated %v next %d total %d; want %v %v %d %d",
					out.StartLine, out.EndLine, out.Truncated, out.NextStartLine, out.TotalLines, tc.lines, tc.truncated, tc.next, tc.totalLines)
			}
			if !strings.Contains(res.Text, tc.wantText) || strings.Contains(res.Text, "line 000101") {
				t.Errorf("text lacks %q or shows line 101:\n%s", tc.wantText, res.Text)
			}
		})
	}
}
