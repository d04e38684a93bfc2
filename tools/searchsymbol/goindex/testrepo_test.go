package goindex

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// testRepo is a repository the tests index, opened as the one workspace of
// a registry: the way search_symbol reads it.
type testRepo struct{ reg *workspace.Registry }

func openTestRepo(dir string) (*testRepo, error) {
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "t", Root: dir, Worktree: true}}}, workspace.Options{})
	if err != nil {
		return nil, err
	}
	return &testRepo{reg: reg}, nil
}

func (r *testRepo) Close() error { return r.reg.Close() }

// testSource is the source over commit, seen with the workspace's own
// rules.
func testSource(r *testRepo, commit plumbing.Hash) (*SnapshotSource, error) {
	acc := workspace.Access{Identity: "local", Action: workspace.ActionSearch}
	snap, err := r.reg.Snapshot(context.Background(), acc, "t", commit.String())
	if err != nil {
		return nil, err
	}
	return NewSnapshotSource(snap.Shared()), nil
}

// worktreeSource is the source over the working tree, as search_symbol
// reads it: through a caller's snapshot. Sources of one testRepo share its
// workspace, and so the indexer's memo of file stats.
func worktreeSource(r *testRepo) (*SnapshotSource, error) {
	acc := workspace.Access{Identity: "local", Action: workspace.ActionSearch}
	snap, err := r.reg.Snapshot(context.Background(), acc, "t", workspace.WorktreeRevision)
	if err != nil {
		return nil, err
	}
	return NewSnapshotSource(snap), nil
}
