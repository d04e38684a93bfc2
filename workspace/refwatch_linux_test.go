package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestRefWatchFollowsDirectories serves a nested branch through the watch,
// then removes it (git removes its emptied directory), makes it again in a
// new directory, and rewrites it in place with its times put back, and
// checks after each change that the name resolves as it now is: a watch
// still on the removed directory, or not on the new one, would serve the
// old resolution.
func TestRefWatchFollowsDirectories(t *testing.T) {
	repo := gitfixture.New(t)
	a := repo.Commit(t, "a", map[string]gitfixture.File{"f": gitfixture.Text("a")})
	b := repo.Commit(t, "b", map[string]gitfixture.File{"f": gitfixture.Text("b")})
	gitfixture.Git(t, repo.Dir, "branch", "feature/x", a)
	ws := openOne(t, repo.Dir, nil).workspaces["ws"]
	if !localFS(repo.Dir) {
		t.Skip("the test's directory is not on a file system the watch trusts")
	}
	if ws.repo.refs.watch == nil {
		t.Fatal("no watch of the ref directories on a local file system")
	}
	revs := []string{"HEAD", "feature/x", "refs/heads/feature/x"}
	expect := func(when, want string) {
		t.Helper()
		for _, rev := range revs[1:] {
			spec, _ := parseRevision(rev)
			got, _, err := ws.resolve(spec)
			switch {
			case want == "" && err == nil:
				t.Errorf("%s: %s = %s, want not found", when, rev, got.SHA)
			case want != "" && (err != nil || got.SHA != want):
				t.Errorf("%s: %s = %s, %v; want %s", when, rev, got.SHA, err, want)
			}
		}
	}
	settleRefs(t, ws, revs)
	gitfixture.Git(t, repo.Dir, "branch", "-D", "feature/x")
	dir := filepath.Join(repo.Dir, ".git", "refs", "heads", "feature")
	if _, err := os.Lstat(dir); err == nil {
		t.Fatalf("git branch -D left %s: this test needs another way to remove a ref's directory", dir)
	}
	expect("after branch -D", "")
	gitfixture.Git(t, repo.Dir, "branch", "feature/x", b)
	expect("after branch", b)
	settleRefs(t, ws, revs)

	file := filepath.Join(dir, "x")
	st, err := os.Lstat(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(a+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	expect("after an in-place rewrite", a)
}
