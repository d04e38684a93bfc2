package patch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// TestPruneMeanwhile checks what Prune does when a patch's refs move
// between its reading them and its deleting them: the patch is kept
// whole. (The cases of a patch standing still are in cmd/repo-mcp's
// TestPrune, which makes them through the tools.)
func TestPruneMeanwhile(t *testing.T) {
	old := time.Now().Add(-48 * time.Hour)
	tests := []struct {
		name      string
		meanwhile func(t *testing.T, dir string, ws *workspace.Workspace, id string)
		events    int  // in the history after Prune
		proposal  bool // the proposal's ref is there after Prune
	}{
		{"proposed again", func(t *testing.T, _ string, ws *workspace.Workspace, id string) {
			must(t, appendEvent(ws, id, event{Event: eventProposed, Caller: "bob"}, time.Now()))
		}, 2, true},
		{"apply attempt", func(t *testing.T, _ string, ws *workspace.Workspace, id string) {
			must(t, appendEvent(ws, id, event{Event: eventApply, Outcome: "permission_denied"}, time.Now()))
		}, 2, true},
		{"history locked", func(t *testing.T, dir string, _ *workspace.Workspace, id string) {
			os.WriteFile(filepath.Join(dir, ".git", "refs", "repo-mcp", "history", id+".lock"), nil, 0o644)
		}, 1, true},
		{"proposal deleted", func(t *testing.T, _ string, ws *workspace.Workspace, id string) {
			must(t, ws.Records().Delete(patchRefPrefix+id, id))
		}, 1, false},
		{"pruned and proposed again", func(t *testing.T, _ string, ws *workspace.Workspace, id string) {
			h, _ := ws.Records().Read(historyRefPrefix + id)
			must(t, ws.Records().Delete(patchRefPrefix+id, id))
			must(t, ws.Records().Delete(historyRefPrefix+id, h))
			must(t, appendEvent(ws, id, event{Event: eventProposed, Caller: "bob"}, time.Now()))
			must(t, ws.Records().Update(patchRefPrefix+id, id, ""))
		}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, ws, id := proposed(t, old)
			candidates, err := listCandidates(ws)
			if err != nil || len(candidates) != 1 {
				t.Fatalf("candidates %v, %v", candidates, err)
			}
			tt.meanwhile(t, dir, ws, id)
			r := candidates[0].prune(ws, PruneOptions{OlderThan: time.Hour, Now: time.Now()})
			if r.Verdict != KeptChanged || r.Err != nil {
				t.Errorf("verdict %s, %v; want %s", r.Verdict, r.Err, KeptChanged)
			}
			if got, _ := ws.Records().Read(patchRefPrefix + id); (got == id) != tt.proposal {
				t.Errorf("the proposal's ref is %q", got)
			}
			if n := strings.Count(gitfixture.Git(t, dir, "log", "--format=%s", workspace.RecordPrefix+historyRefPrefix+id), "\n"); n != tt.events {
				t.Errorf("%d events in the history, want %d", n, tt.events)
			}
		})
	}
}

func TestPruneRefuses(t *testing.T) {
	dir, ws, id := proposed(t, time.Now().Add(-48*time.Hour))
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "ro", Root: dir, ReadOnly: true}}}, workspace.Options{})
	must(t, err)
	defer reg.Close()
	ro, err := reg.Workspace(workspace.Access{Identity: "local", Action: workspace.ActionRead}, "ro")
	must(t, err)
	if _, err := Prune(context.Background(), ro, PruneOptions{OlderThan: time.Hour}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a read-only workspace: %v", err)
	}
	if got, _ := ws.Records().Read(patchRefPrefix + id); got != id {
		t.Errorf("the read-only workspace's patch is gone")
	}
	if _, err := Prune(context.Background(), ws, PruneOptions{}); err == nil || !strings.Contains(err.Error(), "must be positive") {
		t.Errorf("no age: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Prune(ctx, ws, PruneOptions{OlderThan: time.Hour}); !errors.Is(err, context.Canceled) {
		t.Errorf("after its context ended: %v", err)
	}
}

// proposed returns a repository with one patch proposed at time at, made
// as generate_patch makes it.
func proposed(t *testing.T, at time.Time) (string, *workspace.Workspace, string) {
	t.Helper()
	repo := gitfixture.New(t)
	base := repo.Commit(t, "first", map[string]gitfixture.File{"a.txt": gitfixture.Text("a\n")})
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "fx", Root: repo.Dir}}}, workspace.Options{})
	must(t, err)
	t.Cleanup(func() { reg.Close() })
	ws, err := reg.Workspace(workspace.Access{Identity: "local", Action: workspace.ActionApply}, "fx")
	must(t, err)
	id := strings.TrimSpace(gitfixture.Git(t, repo.Dir, "commit-tree", "-p", base, "-m", "repo-mcp patch: x", base+"^{tree}"))
	must(t, appendEvent(ws, id, event{Event: eventProposed, Base: base, Caller: "alice"}, at))
	must(t, ws.Records().Update(patchRefPrefix+id, id, ""))
	return repo.Dir, ws, id
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
