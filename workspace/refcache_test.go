package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestRefCacheFollowsGit changes refs with the git binary while a
// workspace holds cached resolutions, and checks after every change that
// each revision resolves exactly as an uncached workspace resolves it (the
// same SHA and ref, or the same error), and as git rev-parse does. Before
// each change the cache is made to hold every revision (the ref files are
// let age past the racy margin) and is checked to serve them without going
// through go-git, so a cache that is bypassed fails the test.
//
// Steps run in the main working tree; a step starting with "@linked" runs
// in the linked worktree, and "{linked}" stands for its path.
func TestRefCacheFollowsGit(t *testing.T) {
	if !canStamp {
		t.Skip("no ref cache on this platform")
	}
	for _, tc := range []struct {
		name   string
		linked bool // the workspace is a linked worktree, on branch side at dev
		setup  [][]string
		revs   []string
		steps  [][]string
	}{{
		name:  "commit",
		revs:  []string{"HEAD", "main", "refs/heads/main", "dev", "HEAD~1"},
		steps: [][]string{{"commit", "--allow-empty", "-qm", "three"}, {"commit", "--allow-empty", "-qm", "four"}},
	}, {
		name: "checkout and symbolic-ref",
		revs: []string{"HEAD", "main", "dev"},
		steps: [][]string{
			{"checkout", "-q", "dev"},
			{"commit", "--allow-empty", "-qm", "on dev"},
			{"symbolic-ref", "HEAD", "refs/heads/main"},
			{"symbolic-ref", "HEAD", "refs/heads/none"}, // unborn: not_found
		},
	}, {
		name: "pack-refs then commit",
		revs: []string{"HEAD", "main", "dev", "v1"},
		steps: [][]string{
			{"pack-refs", "--all"},
			{"commit", "--allow-empty", "-qm", "three"},
			{"pack-refs", "--all"},
			{"update-ref", "refs/heads/dev", "HEAD"}, // a loose ref over a packed one
		},
	}, {
		name: "deleted refs",
		revs: []string{"HEAD", "dev", "refs/heads/dev", "v1"},
		steps: [][]string{
			{"branch", "-q", "-D", "dev"},
			{"pack-refs", "--all"},
			{"tag", "-d", "v1"}, // deleted from packed-refs only
			{"update-ref", "-d", "refs/heads/main"},
		},
	}, {
		name: "detached HEAD",
		revs: []string{"HEAD", "main"},
		steps: [][]string{
			{"checkout", "-q", "--detach"},
			{"commit", "--allow-empty", "-qm", "detached"},
			{"checkout", "-q", "--detach", "dev"},
			{"checkout", "-q", "main"},
		},
	}, {
		name:  "moved annotated tag",
		revs:  []string{"v1", "refs/tags/v1"},
		steps: [][]string{{"tag", "-f", "-a", "-m", "moved", "v1", "main"}, {"tag", "-f", "-a", "-m", "back", "v1", "dev"}},
	}, {
		name:  "short name becomes ambiguous",
		setup: [][]string{{"branch", "dup", "dev"}},
		revs:  []string{"dup", "nothing"},
		steps: [][]string{{"tag", "dup", "main"}, {"tag", "-d", "dup"}, {"branch", "nothing", "main"}},
	}, {
		name:   "linked worktree",
		linked: true,
		revs:   []string{"HEAD", "side", "main"},
		steps: [][]string{
			{"commit", "--allow-empty", "-qm", "main moves"},
			{"@linked", "commit", "--allow-empty", "-qm", "side moves"},
			{"@linked", "checkout", "-q", "-b", "other"},
			{"@linked", "commit", "--allow-empty", "-qm", "other moves"},
			{"checkout", "-q", "--detach"},
			{"@linked", "checkout", "-q", "--detach", "main"},
			{"pack-refs", "--all"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dirs := map[string]string{"": gitfixture.New(t).Dir}
			git := func(args []string) {
				t.Helper()
				dir := dirs[""]
				if len(args) > 0 && args[0] == "@linked" {
					dir, args = dirs["linked"], args[1:]
				}
				var expanded []string
				for _, a := range args {
					expanded = append(expanded, strings.ReplaceAll(a, "{linked}", dirs["linked"]))
				}
				gitfixture.Git(t, dir, expanded...)
			}
			git([]string{"commit", "--allow-empty", "-qm", "one"})
			git([]string{"branch", "dev"})
			git([]string{"tag", "-a", "-m", "v1", "v1"})
			git([]string{"commit", "--allow-empty", "-qm", "two"})
			root := dirs[""]
			if tc.linked {
				dirs["linked"] = filepath.Join(t.TempDir(), "linked")
				git([]string{"worktree", "add", "-q", "-b", "side", "{linked}", "dev"})
				root = dirs["linked"]
			}
			for _, args := range tc.setup {
				git(args)
			}
			cached := openOne(t, root, nil)
			uncached := openOne(t, root, nil)
			uncached.workspaces["ws"].repo.refs = nil
			check := func(when string) {
				t.Helper()
				for _, rev := range tc.revs {
					compareResolutions(t, when, rev, root, cached, uncached)
				}
			}
			check("at first")
			for _, args := range tc.steps {
				settleRefs(t, cached.workspaces["ws"], tc.revs)
				git(args)
				check("after git " + strings.Join(args, " "))
			}
		})
	}
}

// compareResolutions resolves rev in both registries and with git
// rev-parse in dir, and reports any difference.
func compareResolutions(t *testing.T, when, rev, dir string, cached, uncached *Registry) {
	t.Helper()
	ctx := context.Background()
	got, gotErr := cached.Snapshot(ctx, reader, "ws", rev)
	want, wantErr := uncached.Snapshot(ctx, reader, "ws", rev)
	switch {
	case (gotErr == nil) != (wantErr == nil):
		t.Errorf("%s: %s: cached %v, uncached %v", when, rev, gotErr, wantErr)
	case gotErr != nil:
		if gotErr.Error() != wantErr.Error() || errclass.ClassOf(gotErr) != errclass.ClassOf(wantErr) {
			t.Errorf("%s: %s: cached error %v, uncached %v", when, rev, gotErr, wantErr)
		}
	case got.Revision() != want.Revision():
		t.Errorf("%s: %s: cached %+v, uncached %+v", when, rev, got.Revision(), want.Revision())
	case got.Revision().SHA != revParse(t, dir, rev):
		t.Errorf("%s: %s: %s, git rev-parse says %s", when, rev, got.Revision().SHA, revParse(t, dir, rev))
	}
}

// revParse is the commit git resolves rev to in dir, or "".
func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "-q", "--verify", rev+"^{commit}")
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// settleRefs waits until every ref file of ws is older than the racy
// margin, so that the cache may keep what it resolves, then resolves revs
// twice and fails unless the second time was served from the cache alone.
func settleRefs(t *testing.T, ws *Workspace, revs []string) {
	t.Helper()
	c := ws.repo.refs
	time.Sleep(time.Until(newestRefChange(t, c)))
	resolveAll := func() {
		for _, rev := range revs {
			if spec, err := parseRevision(rev); err == nil {
				ws.resolve(spec)
			}
		}
	}
	resolveAll()
	ws.repo.mu.Lock()
	hits, resolutions := c.hits, c.resolutions
	ws.repo.mu.Unlock()
	resolveAll()
	ws.repo.mu.Lock()
	defer ws.repo.mu.Unlock()
	if c.resolutions != resolutions || c.hits == hits {
		t.Fatalf("resolving %q again: %d hits, %d resolutions through go-git; want hits only",
			revs, c.hits-hits, c.resolutions-resolutions)
	}
	if c.watch == nil {
		return
	}
	// The second round checked the entries by lstat with their
	// directories watched: a third is served by the watch alone, so the
	// change that follows is seen only if the watch reports it.
	watched, resolutions := c.watchedHits, c.resolutions
	ws.repo.mu.Unlock()
	resolveAll()
	ws.repo.mu.Lock()
	if c.resolutions != resolutions || c.watchedHits == watched {
		t.Fatalf("resolving %q a third time: %d hits through the watch, %d resolutions through go-git; want watched hits only",
			revs, c.watchedHits-watched, c.resolutions-resolutions)
	}
}

// newestRefChange returns when the last change to HEAD, packed-refs or a
// file under refs/ stops being racy.
func newestRefChange(t *testing.T, c *refCache) time.Time {
	t.Helper()
	var newest time.Time
	note := func(path string) {
		st, err := lstatStamp(path)
		if err != nil {
			t.Fatal(err)
		}
		margin := racyMargin
		if st.mtime%1e9 == 0 && st.ctime%1e9 == 0 {
			margin = coarseMargin
		}
		if until := time.Unix(0, max(st.mtime, st.ctime)).Add(margin + time.Millisecond); until.After(newest) {
			newest = until
		}
	}
	for _, dir := range []string{c.gitDir, c.commonDir} {
		note(filepath.Join(dir, "HEAD"))
		note(filepath.Join(dir, "packed-refs"))
		filepath.WalkDir(filepath.Join(dir, "refs"), func(path string, _ os.DirEntry, err error) error {
			if err == nil {
				note(path)
			}
			return err
		})
	}
	return newest
}

// TestRefCacheInPlaceRewrite rewrites a loose ref with go-git, which
// writes the same file in place (same inode, same size), several times in
// a row, and checks that every value is seen: a resolution made right
// after a change is not kept, as the next change may not move the file's
// timestamps.
func TestRefCacheInPlaceRewrite(t *testing.T) {
	if !canStamp {
		t.Skip("no ref cache on this platform")
	}
	repo := gitfixture.New(t)
	a := repo.Commit(t, "a", map[string]gitfixture.File{"f": gitfixture.Text("a")})
	b := repo.Commit(t, "b", map[string]gitfixture.File{"f": gitfixture.Text("b")})
	ws := openOne(t, repo.Dir, nil).workspaces["ws"]
	file := filepath.Join(repo.Dir, ".git", "refs", "heads", "main")
	first, err := lstatStamp(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{a, b, a, b, a} {
		repo.SetRef(t, "refs/heads/main", want)
		for _, rev := range []string{"HEAD", "main"} {
			spec, _ := parseRevision(rev)
			got, _, err := ws.resolve(spec)
			if err != nil || got.SHA != want {
				t.Fatalf("rewrite %d: %s = %s, %v; want %s", i, rev, got.SHA, err, want)
			}
		}
		resolved := time.Now()
		st, err := lstatStamp(file)
		if err != nil {
			t.Fatal(err)
		}
		if st.ino != first.ino || st.size != first.size {
			t.Fatalf("go-git no longer rewrites %s in place; this test needs another way to do so", file)
		}
		ws.repo.mu.Lock()
		_, kept := ws.repo.refs.entries["refs/heads/main"]
		ws.repo.mu.Unlock()
		if kept && resolved.Sub(time.Unix(0, st.mtime)) < racyMargin {
			t.Fatalf("rewrite %d: the cache kept a resolution of a ref changed %v before", i, resolved.Sub(time.Unix(0, st.mtime)))
		}
	}
}

// TestRefCacheSettled pins the racy rule on made-up stamps.
func TestRefCacheSettled(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 500_000_000, time.UTC)
	at := func(d time.Duration) int64 { return start.Add(d).UnixNano() }
	for _, tc := range []struct {
		name  string
		stamp fileStamp
		want  bool
	}{
		{"absent", fileStamp{}, true},
		{"old", fileStamp{exists: true, mode: typeRegular, mtime: at(-time.Hour), ctime: at(-time.Hour)}, true},
		{"mtime within the margin", fileStamp{exists: true, mode: typeRegular, mtime: at(-racyMargin / 2), ctime: at(-time.Hour)}, false},
		{"ctime within the margin", fileStamp{exists: true, mode: typeRegular, mtime: at(-time.Hour), ctime: at(-racyMargin / 2)}, false},
		{"changed after the stamps' clock reading", fileStamp{exists: true, mode: typeRegular, mtime: at(time.Second), ctime: at(time.Second)}, false},
		{"whole seconds, one second old", fileStamp{exists: true, mode: typeRegular, mtime: at(-1500 * time.Millisecond), ctime: at(-1500 * time.Millisecond)}, false},
		{"whole seconds, a minute old", fileStamp{exists: true, mode: typeRegular, mtime: at(-time.Minute - 500*time.Millisecond), ctime: at(-time.Minute - 500*time.Millisecond)}, true},
		{"symlink", fileStamp{exists: true, mode: typeSymlink, mtime: at(-time.Hour), ctime: at(-time.Hour)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &refCache{}
			deps := []fileDep{{path: "HEAD", stamp: fileStamp{}}, {path: "x", stamp: tc.stamp}}
			if got := c.settled(deps, start); got != tc.want {
				t.Errorf("settled = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRefCacheUpdateRef checks that a ref this process writes is read back
// at once, and that the write clears the cache.
func TestRefCacheUpdateRef(t *testing.T) {
	if !canStamp {
		t.Skip("no ref cache on this platform")
	}
	repo, commits := basicRepo(t)
	ws := openOne(t, repo.Dir, nil).workspaces["ws"]
	revs := []string{"HEAD", "dev", "refs/heads/dev"}
	settleRefs(t, ws, revs)
	if err := ws.updateRef("refs/heads/dev", commits[1], commits[0]); err != nil {
		t.Fatal(err)
	}
	ws.repo.mu.Lock()
	n := len(ws.repo.refs.entries)
	ws.repo.mu.Unlock()
	if n != 0 {
		t.Errorf("%d entries cached after updateRef, want none", n)
	}
	for _, rev := range revs[1:] {
		spec, _ := parseRevision(rev)
		if got, _, err := ws.resolve(spec); err != nil || got.SHA != commits[1] {
			t.Errorf("%s = %s, %v; want %s", rev, got.SHA, err, commits[1])
		}
	}
}

// TestRefCacheConcurrentWrites resolves refs from several goroutines while
// go-git moves a branch in place; once the writes stop, the last value is
// read.
// Run it with -race.
func TestRefCacheConcurrentWrites(t *testing.T) {
	repo := gitfixture.New(t)
	var shas []string
	for i := range 4 {
		shas = append(shas, repo.Commit(t, string(rune('a'+i)), map[string]gitfixture.File{"f": gitfixture.Text(string(rune('a' + i)))}))
	}
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			rev := []string{"HEAD", "main"}[i%2]
			for {
				select {
				case <-done:
					return
				default:
				}
				// go-git truncates the file before writing it again, so a
				// read in between finds no ref, cache or not.
				if _, err := reg.Snapshot(ctx, reader, "ws", rev); err != nil && errclass.ClassOf(err) != errclass.NotFound {
					t.Error(err)
					return
				}
			}
		})
	}
	for i := range 200 {
		repo.SetRef(t, "refs/heads/main", shas[i%len(shas)])
	}
	close(done)
	wg.Wait()
	want := shas[199%len(shas)]
	for _, rev := range []string{"HEAD", "main"} {
		if got := snapshot(t, reg, rev).Revision().SHA; got != want {
			t.Errorf("%s = %s after the writes stopped, want %s", rev, got, want)
		}
	}
}

// TestRefPath pins where go-git reads each ref name from in a linked
// worktree.
func TestRefPath(t *testing.T) {
	c := &refCache{gitDir: "/g/worktrees/w", commonDir: "/g"}
	for _, tc := range []struct {
		name plumbing.ReferenceName
		want string // "" when not cacheable
	}{
		{"HEAD", "/g/worktrees/w/HEAD"},
		{"refs/heads/main", "/g/refs/heads/main"},
		{"refs/worktree", "/g/worktrees/w/refs/worktree"},
		{"refs/bisect/bad", "/g/refs/bisect/bad"}, // as go-git maps it
		{"../HEAD", ""},
		{"/etc/passwd", ""},
		{"refs//x", ""},
		{"refs/heads/x.lock", ""},
	} {
		got, ok := c.refPath(tc.name)
		if !ok {
			got = ""
		}
		if got != filepath.FromSlash(tc.want) {
			t.Errorf("refPath(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
