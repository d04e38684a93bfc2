package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// hostileFixture is a repository next to a prefix sibling ("repo-evil")
// that holds a secret; the repository's trees and working tree try every
// way out.
type hostileFixture struct {
	reg       *Registry
	root      string // the workspace root
	parent    string // its parent directory
	forbidden []string
}

const outsideSecret = "OUTSIDE-SECRET-4f1c"

func newHostileFixture(t *testing.T) *hostileFixture {
	t.Helper()
	parent := t.TempDir()
	root := filepath.Join(parent, "repo")
	evil := filepath.Join(parent, "repo-evil")
	for _, dir := range []string{root, evil} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(evil, "secret"), outsideSecret)

	repo := gitfixture.Init(t, root, false)
	good := repo.Blob(t, "fine\n")
	sub := repo.Tree(t, []gitfixture.TreeEntry{{Name: "config", Mode: filemode.Regular, SHA: repo.Blob(t, "[core]\n")}})
	hostileTree := repo.Tree(t, []gitfixture.TreeEntry{
		{Name: ".GIT", Mode: filemode.Dir, SHA: sub},
		{Name: "..", Mode: filemode.Dir, SHA: sub},
		{Name: ".git", Mode: filemode.Dir, SHA: sub},
		{Name: "a\\b", Mode: filemode.Regular, SHA: good},
		{Name: "esc", Mode: filemode.Symlink, SHA: repo.Blob(t, "../../etc/passwd")},
		{Name: "evil", Mode: filemode.Symlink, SHA: repo.Blob(t, "../repo-evil/secret")},
		{Name: "gitdir", Mode: filemode.Symlink, SHA: repo.Blob(t, ".git")},
		{Name: "ok.txt", Mode: filemode.Regular, SHA: good},
		{Name: "rootlink", Mode: filemode.Symlink, SHA: repo.Blob(t, "/")},
		{Name: "sub\x01x", Mode: filemode.Regular, SHA: good},
		{Name: "x/y", Mode: filemode.Regular, SHA: good},
		{Name: "\u200c.git", Mode: filemode.Dir, SHA: sub},
	})
	head := repo.CommitTree(t, "hostile", hostileTree)
	repo.SetRef(t, "refs/heads/main", head)

	// The working tree: links out of the root, into .git, a FIFO.
	writeFile(t, filepath.Join(root, "ok.txt"), "fine\n")
	writeFile(t, filepath.Join(root, ".env"), "TOKEN=x\n")
	for name, target := range map[string]string{
		"evil": "../repo-evil", "esc": "../../../../../../etc/passwd", "rootlink": "/",
		"gitdir": ".git", "abs": evil,
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	makeFIFO(t, filepath.Join(root, "fifo"))

	reg := openOne(t, root, func(c *Config) { c.Workspaces[0].Worktree = true })
	return &hostileFixture{
		reg: reg, root: root, parent: parent,
		forbidden: []string{parent, root, evil, outsideSecret, "root:x:0:0"},
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHostilePaths sends every refused path form to every read, at a
// commit and in the working tree.
func TestHostilePaths(t *testing.T) {
	fx := newHostileFixture(t)
	ctx := context.Background()
	for _, rev := range []string{"HEAD", "worktree"} {
		s := snapshot(t, fx.reg, rev)
		for _, p := range hostilePaths {
			_, err := s.ReadFile(ctx, p, ReadOptions{})
			wantClass(t, err, errclass.InvalidInput, fx.forbidden...)
			_, err = s.Stat(ctx, p)
			wantClass(t, err, errclass.InvalidInput, fx.forbidden...)
			_, err = s.Walk(ctx, p, WalkOptions{}, func(Entry) error { return nil })
			wantClass(t, err, errclass.InvalidInput, fx.forbidden...)
			wantClass(t, fx.reg.Authorize("local", "ws", ActionRead, p), errclass.InvalidInput, fx.forbidden...)
		}
	}
}

// TestHostileTreeEntries checks a commit whose tree holds names git
// refuses and symlinks pointing out of the tree.
func TestHostileTreeEntries(t *testing.T) {
	fx := newHostileFixture(t)
	ctx := context.Background()
	s := snapshot(t, fx.reg, "HEAD")
	got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true})
	checkEntriesClean(t, s, fx.forbidden)
	want := []string{"esc", "evil", "gitdir", "ok.txt", "rootlink"}
	if diff := diffStrings(want, got); diff != "" {
		t.Errorf("walk: %s", diff)
	}
	if stats.Invalid != 7 {
		t.Errorf("invalid = %d, want 7 (.GIT, .., .git, a\\b, sub\\x01x, x/y, zwnj.git)", stats.Invalid)
	}
	for _, link := range []string{"esc", "evil", "gitdir", "rootlink"} {
		f, err := s.ReadFile(ctx, link, ReadOptions{})
		if err != nil {
			t.Fatalf("ReadFile(%q): %v", link, err)
		}
		if f.Type != TypeSymlink || f.Data != nil {
			t.Errorf("ReadFile(%q) = %+v, want a symlink without data", link, f)
		}
		if lp, ok := f.LinkPath(); ok {
			t.Errorf("%q: LinkPath() = %q, want none (it leaves the tree or names .git)", link, lp)
		}
		for _, through := range []string{link + "/x", link + "/secret", link + "/config"} {
			_, err := s.ReadFile(ctx, through, ReadOptions{})
			wantClass(t, err, errclass.NotFound, fx.forbidden...)
		}
	}
}

// TestHostileWorktree checks the working tree: symlinks out of the root
// and into .git are reported and never followed; FIFOs are refused.
func TestHostileWorktree(t *testing.T) {
	fx := newHostileFixture(t)
	ctx := context.Background()
	s := snapshot(t, fx.reg, "worktree")
	got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true})
	checkEntriesClean(t, s, fx.forbidden)
	want := []string{"abs", "esc", "evil", "gitdir", "ok.txt", "rootlink"}
	if diff := diffStrings(want, got); diff != "" {
		t.Errorf("walk: %s", diff)
	}
	if stats.Omitted != 1 || stats.Invalid != 1 {
		t.Errorf("stats = %+v, want 1 omitted (.env) and 1 invalid (fifo)", stats)
	}
	f, err := s.ReadFile(ctx, "ok.txt", ReadOptions{})
	if err != nil || string(f.Data) != "fine\n" || f.SHA == "" {
		t.Fatalf("ReadFile(ok.txt) = %+v, %v", f, err)
	}
	for _, link := range []string{"abs", "esc", "evil", "gitdir", "rootlink"} {
		f, err := s.ReadFile(ctx, link, ReadOptions{})
		if err != nil || f.Type != TypeSymlink || f.Data != nil {
			t.Fatalf("ReadFile(%q) = %+v, %v", link, f, err)
		}
		for _, through := range []string{link + "/secret", link + "/config", link + "/HEAD", link + "/etc/passwd"} {
			_, err := s.ReadFile(ctx, through, ReadOptions{})
			wantClass(t, err, errclass.NotFound, fx.forbidden...)
		}
	}
	_, err = s.ReadFile(ctx, "fifo", ReadOptions{})
	wantClass(t, err, errclass.InvalidInput, fx.forbidden...)
	_, err = s.ReadFile(ctx, ".env", ReadOptions{})
	wantClass(t, err, errclass.PermissionDenied, fx.forbidden...)
}

var hostileRevisions = []struct {
	rev   string
	class errclass.Class
}{
	{"--output=x", errclass.InvalidInput},
	{"-n", errclass.InvalidInput},
	{"-", errclass.InvalidInput},
	{"HEAD@{1}", errclass.InvalidInput},
	{"@{-1}", errclass.InvalidInput},
	{"main@{yesterday}", errclass.InvalidInput},
	{":/fix the bug", errclass.InvalidInput},
	{":/x", errclass.InvalidInput},
	{"HEAD:ok.txt", errclass.InvalidInput},
	{":ok.txt", errclass.InvalidInput},
	{"HEAD^{/regex}", errclass.InvalidInput},
	{"HEAD^{tree}", errclass.InvalidInput},
	{"main..dev", errclass.InvalidInput},
	{"main...dev", errclass.InvalidInput},
	{"HEAD~99999999", errclass.InvalidInput},
	{"HEAD" + strings.Repeat("~5000", 3), errclass.InvalidInput},
	{"HEAD^65", errclass.InvalidInput},
	{"HEAD junk", errclass.InvalidInput},
	{"HEAD\n", errclass.InvalidInput},
	{"\tHEAD", errclass.InvalidInput},
	{"HEAD\x00", errclass.InvalidInput},
	{"ma\u2028in", errclass.InvalidInput},
	{strings.Repeat("a", MaxRevisionBytes+1), errclass.InvalidInput},
	{"refs/heads/../../config", errclass.InvalidInput},
	{"../../../etc/passwd", errclass.InvalidInput},
	{"heads/.hidden", errclass.InvalidInput},
	{"main.lock", errclass.InvalidInput},
	{"ma*n", errclass.InvalidInput},
	{`ma\in`, errclass.InvalidInput},
	{"~1", errclass.InvalidInput},
	{"worktree~1", errclass.InvalidInput},
	{"HEAD~1x", errclass.InvalidInput},
	{"nonexistent", errclass.NotFound},
	{"refs/heads/nonexistent", errclass.NotFound},
	{"deadbeef00", errclass.NotFound},
	{"0000000000000000000000000000000000000000", errclass.NotFound},
	{"HEAD~5", errclass.NotFound},
	{"HEAD^2", errclass.NotFound},
	{"config", errclass.NotFound},     // a file in .git, not a ref
	{"ORIG_HEAD", errclass.NotFound},  // only HEAD is read from .git directly
	{"objects", errclass.NotFound},    // a directory in .git
	{"refs/heads", errclass.NotFound}, // a directory of refs
}

func TestHostileRevisions(t *testing.T) {
	fx := newHostileFixture(t)
	for _, tc := range hostileRevisions {
		_, err := fx.reg.Snapshot(context.Background(), reader, "ws", tc.rev)
		t.Run(strings.ToValidUTF8(tc.rev[:min(len(tc.rev), 20)], "?"), func(t *testing.T) {
			wantClass(t, err, tc.class, fx.forbidden...)
		})
	}
}

func TestHostileWorkspaceIDs(t *testing.T) {
	fx := newHostileFixture(t)
	for _, tc := range []struct {
		id    string
		class errclass.Class
	}{
		{"", errclass.InvalidInput},
		{"../ws", errclass.InvalidInput},
		{"WS", errclass.InvalidInput},
		{"ws ", errclass.InvalidInput},
		{"ws/..", errclass.InvalidInput},
		{"-ws", errclass.InvalidInput},
		{".ws", errclass.InvalidInput},
		{strings.Repeat("w", MaxIDLength+1), errclass.InvalidInput},
		{"other", errclass.NotFound},
		{"w", errclass.NotFound},
	} {
		_, err := fx.reg.Snapshot(context.Background(), reader, tc.id, "HEAD")
		wantClass(t, err, tc.class, fx.forbidden...)
		if tc.class == errclass.NotFound && strings.Contains(err.Error(), `"ws"`) {
			t.Errorf("error for %q names another workspace: %v", tc.id, err)
		}
	}
}

// TestAlternatesNotFollowed: a repository whose objects/info/alternates
// points at another repository must not read objects through it.
func TestAlternatesNotFollowed(t *testing.T) {
	outside := gitfixture.New(t)
	outsideCommit := outside.Commit(t, "outside", map[string]gitfixture.File{"secret.txt": gitfixture.Text(outsideSecret)})
	secretBlob := outside.Blob(t, outsideSecret)

	repo := gitfixture.New(t)
	tree := repo.Tree(t, []gitfixture.TreeEntry{{Name: "secret.txt", Mode: filemode.Regular, SHA: secretBlob}})
	repo.Commit(t, "local", map[string]gitfixture.File{"ok.txt": gitfixture.Text("fine\n")})
	borrowed := repo.CommitTree(t, "borrows an outside blob", tree)
	repo.SetRef(t, "refs/heads/borrowed", borrowed)
	repo.SetRef(t, "refs/heads/foreign", outsideCommit)
	alternates := filepath.Join(repo.Dir, ".git", "objects", "info", "alternates")
	if err := os.MkdirAll(filepath.Dir(alternates), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, alternates, filepath.Join(outside.Dir, ".git", "objects")+"\n")

	reg := openOne(t, repo.Dir, nil)
	forbidden := []string{outsideSecret, outside.Dir, repo.Dir}
	ctx := context.Background()
	s := snapshot(t, reg, "borrowed")
	_, err := s.ReadFile(ctx, "secret.txt", ReadOptions{})
	wantClass(t, err, errclass.NotFound, forbidden...)
	_, err = reg.Snapshot(ctx, reader, "ws", "foreign")
	wantClass(t, err, errclass.NotFound, forbidden...)
	_, err = reg.Snapshot(ctx, reader, "ws", outsideCommit)
	wantClass(t, err, errclass.NotFound, forbidden...)
	if f, err := snapshot(t, reg, "HEAD").ReadFile(ctx, "ok.txt", ReadOptions{}); err != nil || string(f.Data) != "fine\n" {
		t.Fatalf("local read = %q, %v", f.Data, err)
	}
}

// TestCorruptObjects: a damaged object is an internal error whose text,
// cause included, names nothing on the host.
func TestCorruptObjects(t *testing.T) {
	repo := gitfixture.New(t)
	const bogus = "abcdef0123456789abcdef0123456789abcdef01"
	loose := filepath.Join(repo.Dir, ".git", "objects", bogus[:2], bogus[2:])
	if err := os.MkdirAll(filepath.Dir(loose), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, loose, "this is not zlib data")
	tree := repo.Tree(t, []gitfixture.TreeEntry{
		{Name: "broken", Mode: filemode.Regular, SHA: bogus},
		{Name: "missing", Mode: filemode.Regular, SHA: strings.Repeat("1", 40)},
	})
	repo.SetRef(t, "refs/heads/main", repo.CommitTree(t, "corrupt", tree))
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	s := snapshot(t, reg, "HEAD")
	_, err := s.ReadFile(ctx, "broken", ReadOptions{})
	wantClass(t, err, errclass.Internal, repo.Dir)
	_, err = s.ReadFile(ctx, "missing", ReadOptions{})
	wantClass(t, err, errclass.NotFound, repo.Dir)
	_, err = reg.Snapshot(ctx, reader, "ws", bogus)
	wantClass(t, err, errclass.Internal, repo.Dir)
}

// TestCursorCannotEnterDeniedDirectory: a crafted cursor pointing inside a
// denied directory resumes after it, without listing its contents.
func TestCursorCannotEnterDeniedDirectory(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "secrets", map[string]gitfixture.File{
		".ssh/known_hosts": gitfixture.Text("x"),
		".ssh/zzz":         gitfixture.Text("x"),
		"private/a":        gitfixture.Text("x"),
		"private/b":        gitfixture.Text("x"),
		"public/c":         gitfixture.Text("x"),
	})
	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{{Identity: "local", Workspaces: []string{"*"}, Actions: []Action{ActionRead}, Deny: []string{"private"}}}
	})
	s := snapshot(t, reg, "HEAD")
	for _, after := range []string{".ssh/", ".ssh/a", ".ssh/known_hosts", "private/", "private/a", "private/0"} {
		got, _ := walkPaths(t, s, "", WalkOptions{Recursive: true, After: after})
		if diff := diffStrings([]string{"public/", "public/c"}, got); diff != "" {
			t.Errorf("after %q: %s", after, diff)
		}
	}
}

// checkEntriesClean fails if any entry of a full walk, or its Stat, holds
// a forbidden string in any field.
func checkEntriesClean(t *testing.T, s *Snapshot, forbidden []string) {
	t.Helper()
	ctx := context.Background()
	_, err := s.Walk(ctx, "", WalkOptions{Recursive: true, Sizes: true}, func(e Entry) error {
		st, err := s.Stat(ctx, e.Path)
		if err != nil {
			t.Errorf("Stat(%q): %v", e.Path, err)
		}
		for _, text := range []string{fmt.Sprintf("%+v", e), fmt.Sprintf("%+v", st)} {
			for _, f := range forbidden {
				if strings.Contains(text, f) {
					t.Errorf("entry %s reveals %q", text, f)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDeepTree: a tree nested deeper than a path may be long is walked to
// the limit, and the rest is counted as invalid.
func TestDeepTree(t *testing.T) {
	repo := gitfixture.New(t)
	sha := repo.Tree(t, []gitfixture.TreeEntry{{Name: "leaf", Mode: filemode.Regular, SHA: repo.Blob(t, "x")}})
	for range MaxPathComponents + 10 {
		sha = repo.Tree(t, []gitfixture.TreeEntry{{Name: "d", Mode: filemode.Dir, SHA: sha}})
	}
	repo.SetRef(t, "refs/heads/main", repo.CommitTree(t, "deep", sha))
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true})
	if len(got) != MaxPathComponents || stats.Invalid != 1 {
		t.Errorf("walked %d entries, %d invalid; want %d and 1", len(got), stats.Invalid, MaxPathComponents)
	}
}
