package patch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// TestQuotas fills a caller's quotas of open proposals and of failed
// applies: the call over each is refused, names the quota, and writes
// nothing; applying a proposal frees its place, and prune frees the
// failures once they are stale.
func TestQuotas(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: patch.Options{MaxOpenProposals: 3, MaxFailedApplies: 2}})
	var open []generated
	for i := range 3 {
		open = append(open, generate(t, f, edit("write", fmt.Sprintf("new%d.txt", i), "content", "x\n")))
	}
	before := f.refs(t)
	msg := fails(t, f, "generate_patch", map[string]any{"edits": []any{edit("write", "new3.txt", "content", "x\n")}}, server.PermissionDenied)
	if !strings.Contains(msg, "3 open proposals") || !strings.Contains(msg, "quota") || f.refs(t) != before {
		t.Errorf("a proposal over the quota: %s\nrefs before:\n%s\nafter:\n%s", msg, before, f.refs(t))
	}
	// An applied proposal is no longer open.
	ok[applied](t, f, "apply_patch", map[string]any{"patch_id": open[0].PatchID, "diff_sha256": open[0].DiffSHA256})
	generate(t, f, edit("write", "new3.txt", "content", "x\n"))

	wrong := map[string]any{"patch_id": open[1].PatchID, "diff_sha256": open[2].DiffSHA256}
	for range 2 {
		fails(t, f, "apply_patch", wrong, server.PermissionDenied)
	}
	before = f.refs(t)
	history := f.history(t, open[1].PatchID)
	right := map[string]any{"patch_id": open[1].PatchID, "diff_sha256": open[1].DiffSHA256}
	msg = fails(t, f, "apply_patch", right, server.PermissionDenied)
	if !strings.Contains(msg, "2 failed applies") || f.refs(t) != before || f.history(t, open[1].PatchID) != history {
		t.Errorf("an apply over the quota: %s", msg)
	}
	ws, err := f.reg.Workspace(workspace.Access{Identity: "local", Action: workspace.ActionApply}, "repo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := patch.Prune(context.Background(), ws, patch.PruneOptions{OlderThan: time.Hour, Now: time.Now().Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.refs(t), "refs/repo-mcp/failed/") {
		t.Errorf("prune left the stale failures:\n%s", f.refs(t))
	}
	// Prune deleted the stale proposals as well; one generated again applies.
	g := generate(t, f, edit("write", "new1.txt", "content", "x\n"))
	ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256})
}

// refs lists the repository's refs with their values.
func (f *fixture) refs(t *testing.T) string {
	return gitfixture.Git(t, f.dir, "for-each-ref", "--format=%(refname) %(objectname)")
}
