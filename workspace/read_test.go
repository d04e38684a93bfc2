package workspace

import (
	"context"
	"io/fs"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// restricted opens the basic repository for identity "bob", who may read
// only a/ and only the refs under refs/heads/.
func restricted(t *testing.T) (*Registry, []string) {
	t.Helper()
	repo, commits := basicRepo(t)
	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{
			{Identity: "local", Workspaces: []string{"*"}, Actions: []Action{ActionRead}},
			{Identity: "bob", Workspaces: []string{"ws"}, Actions: []Action{ActionRead}, Allow: []string{"a/**"}, Refs: []string{"refs/heads/*"}},
		}
	})
	return reg, commits
}

func TestReadBlob(t *testing.T) {
	reg, _ := restricted(t)
	ctx := context.Background()
	snap := snapshot(t, reg, "HEAD")
	x, err := snap.Stat(ctx, "a/x.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := snap.Stat(ctx, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	env := blobSHA([]byte("TOKEN=secret\n"))
	bob, err := reg.Snapshot(ctx, Access{Identity: "bob", Action: ActionRead}, "ws", "main")
	if err != nil {
		t.Fatal(err)
	}
	f, err := snap.ReadBlob(ctx, "a/x.go", x.SHA, ReadOptions{Offset: 2, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Data) != "cka" || !f.Truncated || f.Size != int64(len("package a\n")) {
		t.Errorf("ReadBlob = %q truncated %v size %d, want \"cka\", truncated, size 10", f.Data, f.Truncated, f.Size)
	}
	for _, tc := range []struct {
		name     string
		snap     *Snapshot
		path, id string
		class    errclass.Class
	}{
		{"another path's blob", snap, "a/x.go", readme.SHA, errclass.NotFound},
		{"a secret, by its id", snap, ".env", env, errclass.PermissionDenied},
		{"a secret's id under an allowed path", snap, "a/x.go", env, errclass.NotFound},
		{"a path the policy denies", bob, "README.md", readme.SHA, errclass.PermissionDenied},
		{"a directory", snap, "a", x.SHA, errclass.NotFound},
		{"not an id", snap, "a/x.go", "abc", errclass.InvalidInput},
		{"an escape", snap, "../x", x.SHA, errclass.InvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.snap.ReadBlob(ctx, tc.path, tc.id, ReadOptions{})
			wantClass(t, err, tc.class)
		})
	}
}

func TestDiff(t *testing.T) {
	reg, commits := restricted(t)
	ctx := context.Background()
	first, second := snapshot(t, reg, commits[0]), snapshot(t, reg, commits[1])
	changes, stats, err := second.Diff(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	// .env and config/prod.pem changed too, but the secret patterns hide them.
	want := []string{"README.md", "a.c", "a/b/y.go", "a/x.go", "bin/run", "docs/abs", "docs/link", "docs/out", "vendor/mod"}
	if d := diffStrings(want, paths); d != "" {
		t.Error(d)
	}
	if stats.Omitted != 2 {
		t.Errorf("Omitted = %d, want 2", stats.Omitted)
	}
	if c := changes[0]; c.OldSHA == "" || c.NewSHA == "" || c.OldSHA == c.NewSHA {
		t.Errorf("README.md change %+v: want both sides, different", c)
	}

	bob := Access{Identity: "bob", Action: ActionRead}
	bobHead, err := reg.Snapshot(ctx, bob, "ws", "main")
	if err != nil {
		t.Fatal(err)
	}
	bobFirst, err := bobHead.At(ctx, commits[0])
	if err != nil {
		t.Fatalf("At(first parent) for bob: %v", err)
	}
	changes, stats, err = bobHead.Diff(ctx, bobFirst)
	if err != nil {
		t.Fatal(err)
	}
	paths = paths[:0]
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	// Hidden directories count once, their content unread: README.md,
	// a.c, .env, bin/, config/, docs/ and vendor/.
	if d := diffStrings([]string{"a/b/y.go", "a/x.go"}, paths); d != "" || stats.Omitted != 7 {
		t.Errorf("bob's diff: %s, omitted %d (want 7)", d, stats.Omitted)
	}

	if _, _, err := second.Diff(ctx, snapshotWorktree(t, reg)); err == nil {
		t.Error("a diff against the working tree: no error")
	}
}

func snapshotWorktree(t *testing.T, reg *Registry) *Snapshot {
	t.Helper()
	s, err := reg.Snapshot(context.Background(), reader, "ws", WorktreeRevision)
	if err != nil {
		t.Skipf("no working tree snapshot: %v", err)
	}
	return s
}

func TestCommitsAndAt(t *testing.T) {
	reg, commits := restricted(t)
	ctx := context.Background()
	head := snapshot(t, reg, "HEAD")
	var got []Commit
	if err := head.Commits(ctx, func(c Commit) error { got = append(got, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].SHA != commits[1] || got[1].SHA != commits[0] {
		t.Fatalf("Commits = %+v, want second then first", got)
	}
	if len(got[0].Parents) != 1 || got[0].Parents[0] != commits[0] || len(got[1].Parents) != 0 {
		t.Errorf("parents: %v and %v", got[0].Parents, got[1].Parents)
	}
	n := 0
	if err := head.Commits(ctx, func(Commit) error { n++; return fs.SkipAll }); err != nil || n != 1 {
		t.Errorf("SkipAll: %d calls, error %v", n, err)
	}

	old, err := head.At(ctx, commits[0])
	if err != nil {
		t.Fatal(err)
	}
	if old.Revision().SHA != commits[0] {
		t.Errorf("At: revision %s", old.Revision().SHA)
	}
	if _, err := old.ReadFile(ctx, "README.md", ReadOptions{}); err != nil {
		t.Errorf("reading the old commit: %v", err)
	}
	if _, err := old.Stat(ctx, "a.c"); err == nil {
		t.Error("a.c exists in the first commit")
	}
	_, err = head.At(ctx, "0123456789012345678901234567890123456789")
	wantClass(t, err, errclass.NotFound)
	_, err = head.At(ctx, commits[0][:12])
	wantClass(t, err, errclass.InvalidInput)

	// bob may not name commits by SHA: only those main's history reaches.
	bob := Access{Identity: "bob", Action: ActionRead}
	dev, err := reg.Snapshot(ctx, bob, "ws", "dev")
	if err != nil {
		t.Fatal(err)
	}
	_, err = dev.At(ctx, commits[1])
	wantClass(t, err, errclass.PermissionDenied)
}

func TestShared(t *testing.T) {
	reg, _ := restricted(t)
	ctx := context.Background()
	bob, err := reg.Snapshot(ctx, Access{Identity: "bob", Action: ActionRead}, "ws", "main")
	if err != nil {
		t.Fatal(err)
	}
	shared := bob.Shared()
	if _, err := shared.ReadFile(ctx, "README.md", ReadOptions{}); err != nil {
		t.Errorf("the shared view hides README.md: %v", err)
	}
	_, err = shared.ReadFile(ctx, ".env", ReadOptions{})
	wantClass(t, err, errclass.PermissionDenied)
	_, err = bob.ReadFile(ctx, "README.md", ReadOptions{})
	wantClass(t, err, errclass.PermissionDenied)
}
