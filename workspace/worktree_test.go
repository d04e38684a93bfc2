package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

func TestWorktreeReads(t *testing.T) {
	repo, _ := basicRepo(t)
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard")
	writeFile(t, filepath.Join(repo.Dir, "a", "new.go"), "package a // new\n")
	reg := openOne(t, repo.Dir, func(c *Config) { c.Workspaces[0].Worktree = true })
	ctx := context.Background()
	s := snapshot(t, reg, "worktree")
	if got := s.Revision(); got.SHA != "worktree" || got.Ref != "worktree" {
		t.Errorf("Revision() = %+v", got)
	}
	got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true})
	want := []string{
		"README.md", "a.c", "a/", "a/b/", "a/b/y.go", "a/new.go", "a/x.go", "bin/", "bin/run",
		"config/", "docs/", "docs/abs", "docs/link", "docs/out", "vendor/", "vendor/mod/",
	}
	if diff := diffStrings(want, got); diff != "" {
		t.Errorf("walk: %s", diff)
	}
	if stats.Omitted != 2 {
		t.Errorf("stats = %+v, want 2 omitted", stats)
	}
	f, err := s.ReadFile(ctx, "a/new.go", ReadOptions{})
	if err != nil || string(f.Data) != "package a // new\n" || f.Size != 17 {
		t.Fatalf("ReadFile = %+v, %v", f, err)
	}
	head := snapshot(t, reg, "HEAD")
	fh, _ := head.ReadFile(ctx, "a/x.go", ReadOptions{})
	fw, _ := s.ReadFile(ctx, "a/x.go", ReadOptions{})
	if fh.SHA != fw.SHA {
		t.Errorf("worktree blob SHA %s != committed %s", fw.SHA, fh.SHA)
	}
	e, err := s.Stat(ctx, "bin/run")
	if err != nil || e.Mode != ModeExecutable {
		t.Errorf("Stat(bin/run) = %+v, %v", e, err)
	}
	e, err = s.Stat(ctx, "docs/link")
	if lp, ok := e.LinkPath(); err != nil || !ok || lp != "README.md" {
		t.Errorf("Stat(docs/link) = %+v, %v", e, err)
	}
	_, err = s.ReadFile(ctx, "docs/link", ReadOptions{})
	if err != nil {
		t.Error(err)
	}
	_, err = s.ReadFile(ctx, "nope/x", ReadOptions{})
	wantClass(t, err, errclass.NotFound, repo.Dir)
	// A file that changes between commits is read from disk, not HEAD.
	writeFile(t, filepath.Join(repo.Dir, "README.md"), "edited\n")
	if f, _ := s.ReadFile(ctx, "README.md", ReadOptions{}); string(f.Data) != "edited\n" {
		t.Errorf("README.md = %q", f.Data)
	}
	if err := os.Remove(filepath.Join(repo.Dir, "README.md")); err != nil {
		t.Fatal(err)
	}
	_, err = s.ReadFile(ctx, "README.md", ReadOptions{})
	wantClass(t, err, errclass.NotFound, repo.Dir)
}

// TestUnsortedTree: a tree written out of order (git would not) is still
// walked in order and every entry can be found.
func TestUnsortedTree(t *testing.T) {
	repo := gitfixture.New(t)
	blob := repo.Blob(t, "x")
	sub := repo.Tree(t, []gitfixture.TreeEntry{{Name: "f", Mode: filemode.Regular, SHA: blob}})
	tree := repo.Tree(t, []gitfixture.TreeEntry{
		{Name: "z", Mode: filemode.Regular, SHA: blob},
		{Name: "a", Mode: filemode.Dir, SHA: sub},
		{Name: "a.c", Mode: filemode.Regular, SHA: blob},
		{Name: "m", Mode: filemode.Regular, SHA: blob},
	})
	repo.SetRef(t, "refs/heads/main", repo.CommitTree(t, "unsorted", tree))
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	got, _ := walkPaths(t, s, "", WalkOptions{Recursive: true})
	if diff := diffStrings([]string{"a.c", "a/", "a/f", "m", "z"}, got); diff != "" {
		t.Errorf("walk: %s", diff)
	}
	for _, p := range []string{"z", "a", "a/f", "a.c", "m"} {
		if _, err := s.Stat(context.Background(), p); err != nil {
			t.Errorf("Stat(%q): %v", p, err)
		}
	}
}

// TestFixtureIsValidGit checks the fixture builder against git fsck.
func TestFixtureIsValidGit(t *testing.T) {
	repo, _ := basicRepo(t)
	gitfixture.Git(t, repo.Dir, "fsck", "--strict", "--no-dangling")
}
