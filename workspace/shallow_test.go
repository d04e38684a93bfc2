package workspace

import (
	"context"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
)

// TestShallowClone reads a clone of depth 2: its history ends at the
// boundary, as git log's does, and revisions beyond it are not_found
// naming the shallowness, never internal.
func TestShallowClone(t *testing.T) {
	repo := gitfixture.New(t)
	var commits []string
	for _, msg := range []string{"one", "two", "three", "four"} {
		commits = append(commits, repo.Commit(t, msg, map[string]gitfixture.File{"f.txt": gitfixture.Text(msg + "\n")}))
	}
	full := openOne(t, repo.Dir, nil)
	if shallow, err := snapshot(t, full, "HEAD").Workspace().Shallow(); err != nil || shallow {
		t.Errorf("the full repository: Shallow() = %v, %v", shallow, err)
	}
	reg := openOne(t, repo.ShallowClone(t, 2), nil)
	ws := snapshot(t, reg, "HEAD").Workspace()
	if shallow, err := ws.Shallow(); err != nil || !shallow {
		t.Fatalf("the clone: Shallow() = %v, %v", shallow, err)
	}
	log, err := snapshot(t, reg, "HEAD").Log(20)
	if err != nil {
		t.Fatalf("Log: %v", err)
	}
	if len(log) != 2 || log[0].SHA != commits[3] || log[1].SHA != commits[2] {
		t.Errorf("Log = %+v, want the two commits of the clone", log)
	}
	if got := snapshot(t, reg, "HEAD~1").Revision().SHA; got != commits[2] {
		t.Errorf("HEAD~1 = %s, want %s", got, commits[2])
	}
	for _, rev := range []string{"HEAD~2", "HEAD~3", "HEAD~1^", commits[1]} {
		_, err := reg.Snapshot(context.Background(), reader, "ws", rev)
		wantClass(t, err, server.NotFound)
		if !strings.Contains(err.Error(), "shallow clone") {
			t.Errorf("%s: %v does not name the shallow clone", rev, err)
		}
	}
}
