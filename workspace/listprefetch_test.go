package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// cachedListings returns the directories of the commit tree under root
// whose listings the workspace's cache holds (with sizes, if sized),
// walking the cache alone.
func cachedListings(t *testing.T, s *Snapshot, root Entry, sized bool) []string {
	t.Helper()
	cache := s.grant.ws.deny.listings
	var dirs []string
	var visit func(Entry)
	visit = func(d Entry) {
		l, ok := cache.get(listKey{tree: parseHash(d.SHA), dir: d.Path})
		if !ok || sized && !l.sized {
			return
		}
		dirs = append(dirs, d.Path+"/")
		for _, e := range l.entries {
			if e.Type == TypeDir {
				visit(e)
			}
		}
	}
	visit(root)
	return dirs
}

// TestPrefetchReadsTheTreeAhead: a recursive walk has the whole tree's
// listings read into the cache (sized, when it asks for sizes) before it
// visits anything, even when it stops at its first entry.
func TestPrefetchReadsTheTreeAhead(t *testing.T) {
	// With one P there is no prefetch.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	repo := packedRepo(t, false)
	ctx := context.Background()
	stopAtFirst := func(Entry) error { return fs.SkipAll }
	for _, sizes := range []bool{false, true} {
		s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
		if _, err := s.Walk(ctx, "", WalkOptions{Recursive: true, Sizes: sizes}, stopAtFirst); err != nil {
			t.Fatal(err)
		}
		root, err := s.Stat(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		got := cachedListings(t, s, root, sizes)
		if diff := diffStrings([]string{"/", "dir0/", "dir1/", "dir2/"}, got); diff != "" {
			t.Errorf("sizes %v: listings cached after a walk stopped at its first entry: %s", sizes, diff)
		}
	}
}

// TestPrefetchOnlyOnAFirstListing: a walk of a tree whose root listing is
// cached reads nothing ahead (the walk reads what the cache dropped), so
// that a warm listing does not look every directory up twice.
func TestPrefetchOnlyOnAFirstListing(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	repo := packedRepo(t, false)
	ctx := context.Background()
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	opts := WalkOptions{Recursive: true, Sizes: true}
	if _, err := s.Walk(ctx, "", opts, func(Entry) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// As if the cache had dropped dir1's sized listing (put keeps a sized
	// listing, so the cached one is changed in place).
	dir1, err := s.Stat(ctx, "dir1")
	if err != nil {
		t.Fatal(err)
	}
	l, ok := s.grant.ws.deny.listings.get(listKey{tree: parseHash(dir1.SHA), dir: dir1.Path})
	if !ok {
		t.Fatal("dir1's listing is not cached after a full walk")
	}
	l.sized = false
	if _, err := s.Walk(ctx, "", opts, func(Entry) error { return fs.SkipAll }); err != nil {
		t.Fatal(err)
	}
	root, err := s.Stat(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffStrings([]string{"/", "dir0/", "dir2/"}, cachedListings(t, s, root, true)); diff != "" {
		t.Errorf("sized listings cached after a second walk stopped at its first entry: %s", diff)
	}
}

// TestPrefetchListsAsTheWalk: a walk whose listings the prefetch's
// workers read (two Ps) yields what a walk reading every listing itself
// (one P, no prefetch) does, entry for entry, with and without sizes: in
// repositories whose trees are packed (as offset or ref deltas) or loose,
// or packed with loose files, with symlinks, submodules and entries the
// deny patterns hide, at each of their commits.
func TestPrefetchListsAsTheWalk(t *testing.T) {
	basic, _ := basicRepo(t)
	repos := map[string]*gitfixture.Repo{
		"basic":                     basic,
		"offset deltas":             packedRepo(t, false),
		"ref deltas":                packedRepo(t, true),
		"packed trees, loose blobs": packedTreesLooseBlobs(t),
	}
	walk := func(t *testing.T, dir, rev string, procs int, sizes bool) ([]string, WalkStats) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		s := snapshot(t, openOne(t, dir, nil), rev)
		var got []string
		stats, err := s.Walk(context.Background(), "", WalkOptions{Recursive: true, Sizes: sizes}, func(e Entry) error {
			got = append(got, fmt.Sprintf("%s %s %o %d %s %q", e.Cursor(), e.Type, e.Mode, e.Size, e.SHA, e.Target))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, stats
	}
	for name, repo := range repos {
		commits := strings.Fields(gitfixture.Git(t, repo.Dir, "rev-list", "HEAD"))
		for _, rev := range commits {
			for _, sizes := range []bool{false, true} {
				alone, aloneStats := walk(t, repo.Dir, rev, 1, sizes)
				ahead, aheadStats := walk(t, repo.Dir, rev, 2, sizes)
				if diff := diffStrings(alone, ahead); diff != "" || aloneStats != aheadStats {
					t.Errorf("%s at %.7s, sizes %v: the prefetched walk differs: %s; stats %+v, want %+v", name, rev, sizes, diff, aheadStats, aloneStats)
				}
			}
		}
	}
}

// packedTreesLooseBlobs returns a repository whose commit's trees are
// packed and its files loose: the packs give the trees but not the sizes.
func packedTreesLooseBlobs(t *testing.T) *gitfixture.Repo {
	repo := gitfixture.New(t)
	sub := repo.Tree(t, []gitfixture.TreeEntry{{Name: "b.txt", Mode: filemode.Regular, SHA: repo.Blob(t, "bee\n")}})
	root := repo.Tree(t, []gitfixture.TreeEntry{
		{Name: "a.txt", Mode: filemode.Regular, SHA: repo.Blob(t, "a file\n")},
		{Name: "sub", Mode: filemode.Dir, SHA: sub},
	})
	gitfixture.GitInput(t, repo.Dir, strings.NewReader(root+"\n"+sub+"\n"), "pack-objects", "-q", ".git/objects/pack/pack")
	gitfixture.Git(t, repo.Dir, "prune-packed")
	repo.SetRef(t, "refs/heads/main", repo.CommitTree(t, "trees packed", root))
	return repo
}

// TestPrefetchLeavesErrorsToTheWalk: a directory whose file or subtree
// cannot be read is not cached by the prefetch, and the walk reports the
// error as it reads it; the other directories are listed with sizes.
func TestPrefetchLeavesErrorsToTheWalk(t *testing.T) {
	repo := gitfixture.New(t)
	good := repo.Tree(t, []gitfixture.TreeEntry{{Name: "ok.txt", Mode: filemode.Regular, SHA: repo.Blob(t, "fine\n")}})
	missing := strings.Repeat("1", 40)
	for _, c := range []struct {
		name string
		bad  gitfixture.TreeEntry
	}{
		{"blob", gitfixture.TreeEntry{Name: "gone.txt", Mode: filemode.Regular, SHA: missing}},
		{"tree", gitfixture.TreeEntry{Name: "gone", Mode: filemode.Dir, SHA: missing}},
	} {
		t.Run(c.name, func(t *testing.T) {
			broken := repo.Tree(t, []gitfixture.TreeEntry{c.bad, {Name: "ok.txt", Mode: filemode.Regular, SHA: repo.Blob(t, "fine\n")}})
			tree := repo.Tree(t, []gitfixture.TreeEntry{{Name: "a", Mode: filemode.Dir, SHA: good}, {Name: "b", Mode: filemode.Dir, SHA: broken}})
			repo.SetRef(t, "refs/heads/main", repo.CommitTree(t, c.name, tree))
			s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
			var seen []string
			_, err := s.Walk(context.Background(), "", WalkOptions{Recursive: true, Sizes: true}, func(e Entry) error {
				seen = append(seen, fmt.Sprintf("%s %d", e.Cursor(), e.Size))
				return nil
			})
			wantClass(t, err, errclass.NotFound, repo.Dir)
			want := []string{"a/ 0", "a/ok.txt 5", "b/ 0"}
			if c.name == "tree" {
				want = append(want, "b/gone/ 0")
			}
			if diff := diffStrings(want, seen); diff != "" {
				t.Errorf("entries before the error: %s", diff)
			}
		})
	}
}

// TestPrefetchWhilePacksAreReplaced: walks with sizes of commits not
// listed yet, on two goroutines, one of which replaces the pack before
// each of its walks (a repack at a new compression level gives a new pack
// name). That walk's look for new packs unmaps the deleted one
// (dropDeleted), under r.mu, once every view of the packs is handed back:
// the other walk's sizer must hand its view back rather than wait, holding
// it, for a listing from the tree stage, which waits for r.mu. Sizes are
// checked against git's in the last round.
func TestPrefetchWhilePacksAreReplaced(t *testing.T) {
	repo := packedRepo(t, false)
	const rounds, dirs = 12, 60
	var commits []string
	for round := range 2 * rounds {
		files := map[string]gitfixture.File{}
		for j := range dirs {
			files[fmt.Sprintf("r%d/d%d/f.txt", round, j)] = gitfixture.Text(strings.Repeat(fmt.Sprintf("round %d file %d\n", round, j), 50+j))
		}
		commits = append(commits, repo.Commit(t, fmt.Sprint("round ", round), files))
	}
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	walk := func(commit string, sizes map[string]string) {
		s, err := reg.Snapshot(ctx, reader, "ws", commit)
		if err != nil {
			t.Error(err)
			return
		}
		files := 0
		_, err = s.Walk(ctx, "", WalkOptions{Recursive: true, Sizes: true}, func(e Entry) error {
			if e.Type == TypeFile && strings.HasPrefix(e.Path, "r") {
				files++
				if sizes != nil && fmt.Sprint(e.Size) != sizes[e.Path] {
					t.Errorf("%s: size %d, git says %s", e.Path, e.Size, sizes[e.Path])
				}
			}
			return nil
		})
		if err != nil || files != dirs {
			t.Errorf("commit %s: %d files, want %d (%v)", commit, files, dirs, err)
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for round := range rounds {
			gitfixture.Git(t, repo.Dir, "-c", fmt.Sprint("pack.compression=", round%9+1), "repack", "-a", "-d", "-f", "-q")
			walk(commits[2*round+1], nil)
		}
	}()
	go func() {
		defer wg.Done()
		for round := range rounds {
			walk(commits[2*round], nil)
		}
	}()
	wg.Wait()
	last := commits[len(commits)-1]
	gitfixture.Git(t, repo.Dir, "repack", "-a", "-d", "-f", "-q")
	walk(last, lsTreeSizes(t, repo.Dir, last))
}

// lsTreeSizes returns the sizes git ls-tree -r -l gives the regular files
// of commit rev, by path.
func lsTreeSizes(t *testing.T, dir, rev string) map[string]string {
	t.Helper()
	sizes := map[string]string{}
	for line := range strings.Lines(gitfixture.Git(t, dir, "ls-tree", "-r", "-l", rev)) {
		meta, p, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if f := strings.Fields(meta); f[1] == "blob" && f[0] != "120000" {
			sizes[p] = f[3]
		}
	}
	return sizes
}

// TestPrefetchKeepsDenyVerdicts: the prefetch judges a listing's
// directories in its tree stage and its files in its sizer; a walk with
// sizes hides what the deny list denies, at any depth, as a walk without
// sizes (which reads its listings itself) does.
func TestPrefetchKeepsDenyVerdicts(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "secrets", map[string]gitfixture.File{
		"a/.env":            gitfixture.Text("TOKEN=x\n"),
		"a/b/server.pem":    gitfixture.Text("pem\n"),
		"a/b/ok.go":         gitfixture.Text("package b\n"),
		"a/.ssh/id_ed25519": gitfixture.Text("key\n"),
		"c/id_rsa.pub":      gitfixture.Text("pub\n"),
		"c/main.go":         gitfixture.Text("package main\n"),
	})
	want := []string{"a/", "a/b/", "a/b/ok.go", "c/", "c/main.go"}
	for _, sizes := range []bool{true, false} {
		s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
		got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true, Sizes: sizes})
		if diff := diffStrings(want, got); diff != "" || stats.Omitted != 4 {
			t.Errorf("sizes %v: %d omitted, want 4; %s", sizes, stats.Omitted, diff)
		}
	}
}
