package searchtext

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// newTestService serves the repository at dir as workspace "w" to one
// identity that may read everything, with the index in cacheDir ("" for
// memory only). REPO_MCP_TEST_LOG=1 shows the service's log.
func newTestService(t testing.TB, dir, cacheDir string) (*Service, *workspace.Registry) {
	t.Helper()
	cfg := workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "w", Root: dir}},
		Policies: []workspace.PolicyConfig{
			{Identity: "op", Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionSearch}, Allow: []string{"**"}},
		},
	}
	reg, err := workspace.Open(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	logger := slog.New(slog.DiscardHandler)
	if os.Getenv("REPO_MCP_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	sv, err := New(reg, Options{CacheDir: cacheDir, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sv.Close() })
	return sv, reg
}

func testSnapshot(t testing.TB, reg *workspace.Registry, rev string) *workspace.Snapshot {
	t.Helper()
	snap, err := reg.Snapshot(context.Background(), workspace.Access{Identity: "op", Action: workspace.ActionSearch}, "w", rev)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// collect runs a search and returns every matching (path, line), as
// "path:line", in order: what all its pages would hold.
func collect(t testing.TB, sv *Service, snap *workspace.Snapshot, in SearchTextIn) ([]string, *SearchTextOut) {
	t.Helper()
	ctx := context.Background()
	r, out, err := sv.execute(ctx, &server.Request{ID: "t"}, snap, in)
	if err != nil {
		t.Fatalf("%+v: %v", in, err)
	}
	var got []string
	for i, f := range r.files {
		if r.verdicts[i].lines == 0 {
			continue
		}
		data, err := r.read(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		r.m.eachLine(data, func(line, _, _, _ int) bool {
			got = append(got, fmt.Sprintf("%s:%d", f.path, line))
			return true
		})
	}
	switch {
	case out.Complete && len(got) != out.TotalMatches:
		t.Errorf("%+v: %d lines collected, total says %d", in, len(got), out.TotalMatches)
	case !out.Complete && len(got) < out.TotalMatches:
		// Cut by the time budget (a loaded machine): the total is a lower
		// bound, over the files before the cut only.
		t.Errorf("%+v: %d lines collected, the total's lower bound says %d", in, len(got), out.TotalMatches)
	}
	return got, out
}

// discard is an io.Writer for loggers in benchmarks.
var _ = io.Discard
