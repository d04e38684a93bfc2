package workspace

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
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
		wantClass(t, err, errclass.NotFound)
		if !strings.Contains(err.Error(), "shallow clone") {
			t.Errorf("%s: %v does not name the shallow clone", rev, err)
		}
	}
}

// TestParentAtShallowBoundary steps to parents in a clone of depth 2: from
// the tip to the boundary commit, and from the boundary commit, whose parent
// was never fetched, to a typed not_found.
func TestParentAtShallowBoundary(t *testing.T) {
	repo := gitfixture.New(t)
	var commits []string
	for _, msg := range []string{"one", "two", "three"} {
		commits = append(commits, repo.Commit(t, msg, map[string]gitfixture.File{"f.txt": gitfixture.Text(msg + "\n")}))
	}
	reg := openOne(t, repo.ShallowClone(t, 2), nil)
	tip := snapshot(t, reg, "HEAD")
	boundary, err := tip.Parent(1)
	if err != nil || boundary == nil || boundary.Revision().SHA != commits[1] {
		t.Fatalf("Parent(1) of the tip = %v, %v; want the boundary commit %s", boundary, err, commits[1])
	}
	if p, err := tip.Parent(2); p != nil || err != nil {
		t.Errorf("Parent(2) of a commit with one parent = %v, %v; want nil, nil", p, err)
	}
	p, err := boundary.Parent(1)
	if p != nil {
		t.Errorf("Parent(1) of the boundary commit = %s, want none", p.Revision().SHA)
	}
	wantClass(t, err, errclass.NotFound)
	var be *BoundaryError
	if !errors.As(err, &be) || be.Commit != commits[1] || be.Workspace != "ws" {
		t.Errorf("error %v: wraps %+v, want a *BoundaryError naming commit %s of ws", err, be, commits[1])
	}
	// A revision that steps past the boundary carries the same type.
	_, err = reg.Snapshot(context.Background(), reader, "ws", "HEAD~2")
	if !errors.As(err, &be) || be.Commit != commits[1] {
		t.Errorf("HEAD~2: %v does not wrap a *BoundaryError naming %s", err, commits[1])
	}
}
