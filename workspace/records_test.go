package workspace

import (
	"context"
	"errors"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

func TestRecordsStayUnderTheirPrefix(t *testing.T) {
	repo, commits := basicRepo(t)
	reg := openOne(t, repo.Dir, nil)
	ws := snapshot(t, reg, "HEAD").Workspace()
	rec := ws.Records()
	if err := rec.Update("patches/p1", commits[0], ""); err != nil {
		t.Fatal(err)
	}
	if got := gitfixture.Git(t, repo.Dir, "rev-parse", "refs/repo-mcp/patches/p1"); got != commits[0]+"\n" {
		t.Errorf("refs/repo-mcp/patches/p1 = %q", got)
	}
	if got, err := rec.Read("patches/p1"); got != commits[0] || err != nil {
		t.Errorf("Read = %q, %v", got, err)
	}
	refs, err := rec.List("patches/")
	if err != nil || len(refs) != 1 || refs[0].Name != "patches/p1" {
		t.Errorf("List = %+v, %v", refs, err)
	}
	var conflict *RefConflict
	if err := rec.Delete("patches/p1", commits[1]); !errors.As(err, &conflict) {
		t.Errorf("Delete with a wrong value: %v", err)
	}
	if err := rec.Delete("patches/p1", commits[0]); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "/heads/main", "../heads/main", "a/../../heads/main", "x..y", "a b", "-x"} {
		t.Run(name, func(t *testing.T) {
			wantClass(t, rec.Update(name, commits[0], ""), errclass.InvalidInput)
			_, err := rec.Read(name)
			wantClass(t, err, errclass.InvalidInput)
		})
	}
	if got := gitfixture.Git(t, repo.Dir, "rev-parse", "refs/heads/main"); got != commits[1]+"\n" {
		t.Errorf("main moved: %q", got)
	}
}

func TestMoveBranchChecksPolicy(t *testing.T) {
	repo, commits := basicRepo(t)
	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{
			{Identity: "local", Workspaces: []string{"*"}, Actions: []Action{ActionRead, ActionApply}},
			{Identity: "bob", Workspaces: []string{"ws"}, Actions: []Action{ActionApply}, Refs: []string{"refs/heads/bob/*", "commit"}},
		}
	})
	ctx := context.Background()
	snap := func(id string, act Action) *Snapshot {
		s, err := reg.Snapshot(ctx, Access{Identity: id, Action: act}, "ws", commits[1])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bob := snap("bob", ActionApply)
	wantClass(t, bob.MoveBranch("refs/heads/main", commits[0], commits[1]), errclass.PermissionDenied)
	if err := bob.MoveBranch("refs/heads/bob/x", commits[0], ""); err != nil {
		t.Fatalf("a branch bob's policy allows: %v", err)
	}
	if got, err := bob.ReadBranch("refs/heads/bob/x"); got != commits[0] || err != nil {
		t.Errorf("ReadBranch = %q, %v", got, err)
	}
	wantClass(t, snap("local", ActionRead).MoveBranch("refs/heads/main", commits[0], commits[1]), errclass.PermissionDenied)
	for _, name := range []string{"refs/repo-mcp/patches/x", "refs/tags/v9", "main", "refs/heads/../x"} {
		wantClass(t, snap("local", ActionApply).MoveBranch(name, commits[0], ""), errclass.InvalidInput)
	}
	if got := gitfixture.Git(t, repo.Dir, "rev-parse", "refs/heads/main"); got != commits[1]+"\n" {
		t.Errorf("main moved: %q", got)
	}
}
