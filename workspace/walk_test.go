package workspace

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

func TestPassedMatchesCursor(t *testing.T) {
	entries := []Entry{
		{Path: "a", Type: TypeFile}, {Path: "a", Type: TypeDir}, {Path: "a.c", Type: TypeFile},
		{Path: "a/b", Type: TypeDir}, {Path: "a/b", Type: TypeSymlink}, {Path: "ab", Type: TypeDir},
		{Path: "a-b", Type: TypeDir}, {Path: "a/b/c", Type: TypeFile}, {Path: "z", Type: TypeSubmodule},
	}
	afters := []string{
		"a", "a/", "a.", "a.c", "a-", "a0", "a/b", "a/b/", "a/b/c", "a/b/c/d", "a/b0", "a/a", "ab",
		"ab/", "ab/x", "b", "z", "", "\xff",
	}
	for _, e := range entries {
		for _, after := range afters {
			done, inside := passed(e, after)
			wantDone := e.Cursor() <= after
			if done != wantDone {
				t.Errorf("passed(%s %q, %q) done = %v, want %v", e.Type, e.Path, after, done, wantDone)
			}
			if e.Type == TypeDir && inside != strings.HasPrefix(after, e.Cursor()) {
				t.Errorf("passed(dir %q, %q) inside = %v, want %v", e.Path, after, inside, !inside)
			}
		}
	}
}

// TestCachedListingsApplyEachCallersPolicy lists one commit for callers
// with different policies, in turns: the listing cached for one caller
// must not leak entries to another, and every caller's counts stay exact.
func TestCachedListingsApplyEachCallersPolicy(t *testing.T) {
	repo, _ := basicRepo(t)
	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{
			{Identity: "all", Workspaces: []string{"*"}, Actions: []Action{ActionRead}},
			{Identity: "alice", Workspaces: []string{"*"}, Actions: []Action{ActionRead},
				Allow: []string{"a/**", "README.md"}, Deny: []string{"a/x.go"}},
		}
	})
	ctx := context.Background()
	walkAs := func(identity string) ([]string, WalkStats) {
		s, err := reg.Snapshot(ctx, Access{Identity: identity, Action: ActionRead}, "ws", "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		return walkPaths(t, s, "", WalkOptions{Recursive: true, Sizes: true})
	}
	want := map[string]struct {
		paths   []string
		omitted int
	}{
		"all": {[]string{
			"README.md", "a.c", "a/", "a/b/", "a/b/y.go", "a/x.go", "bin/", "bin/run",
			"config/", "docs/", "docs/abs", "docs/link", "docs/out", "vendor/", "vendor/mod",
		}, 2}, // .env, config/prod.pem
		"alice": {[]string{"README.md", "a/", "a/b/", "a/b/y.go"}, 7}, // .env, a.c, a/x.go, bin, config, docs, vendor
	}
	for _, identity := range []string{"all", "alice", "all", "alice"} {
		got, stats := walkAs(identity)
		if diff := diffStrings(want[identity].paths, got); diff != "" {
			t.Errorf("%s: %s", identity, diff)
		}
		if stats.Omitted != want[identity].omitted {
			t.Errorf("%s: omitted = %d, want %d", identity, stats.Omitted, want[identity].omitted)
		}
	}
}

// TestCachedListingSizes walks with and without sizes, in both orders: a
// listing cached with sizes must not give them to a walk that did not ask,
// and one cached without must not leave them out of a walk that did.
func TestCachedListingSizes(t *testing.T) {
	for _, order := range [][]bool{{true, false, true}, {false, true, false}} {
		repo, _ := basicRepo(t)
		s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
		for _, sizes := range order {
			var files int
			_, err := s.Walk(context.Background(), "", WalkOptions{Recursive: true, Sizes: sizes}, func(e Entry) error {
				if e.Type != TypeFile {
					return nil
				}
				files++
				st, err := s.Stat(context.Background(), e.Path)
				if err != nil {
					return err
				}
				want := int64(-1)
				if sizes {
					want = st.Size
				}
				if e.Size != want || e.SHA != st.SHA || e.Mode != st.Mode {
					t.Errorf("order %v, sizes=%v: %s: got size %d sha %s mode %o, want %d %s %o",
						order, sizes, e.Path, e.Size, e.SHA, e.Mode, want, st.SHA, st.Mode)
				}
				return nil
			})
			if err != nil || files == 0 {
				t.Fatalf("walk: %d files, %v", files, err)
			}
		}
	}
}

// TestSameTreeAtTwoPaths: identical directories share a tree object, and
// each must still be listed under its own path.
func TestSameTreeAtTwoPaths(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "twins", map[string]gitfixture.File{
		"x/data/f.txt": gitfixture.Text("same\n"),
		"y/data/f.txt": gitfixture.Text("same\n"),
		"y/data/.env":  gitfixture.Text("TOKEN=1\n"),
		"x/data/.env":  gitfixture.Text("TOKEN=1\n"),
	})
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	for range 2 {
		got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true, Sizes: true})
		want := []string{"x/", "x/data/", "x/data/f.txt", "y/", "y/data/", "y/data/f.txt"}
		if diff := diffStrings(want, got); diff != "" || stats.Omitted != 2 {
			t.Errorf("walk: %s, omitted %d", diff, stats.Omitted)
		}
		got, _ = walkPaths(t, s, "y/data", WalkOptions{})
		if diff := diffStrings([]string{"y/data/f.txt"}, got); diff != "" {
			t.Errorf("walk of y/data: %s", diff)
		}
	}
}

// TestConcurrentListings walks one commit from several goroutines at once,
// for two callers, with and without sizes, from a cold registry: the
// shared cache and pack indexes must give each walk its exact answer.
func TestConcurrentListings(t *testing.T) {
	repo := packedRepo(t, false)
	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{
			{Identity: "all", Workspaces: []string{"*"}, Actions: []Action{ActionRead}},
			{Identity: "some", Workspaces: []string{"*"}, Actions: []Action{ActionRead}, Allow: []string{"dir1/**"}},
		}
	})
	ctx := context.Background()
	walk := func(identity string, sizes bool) (string, error) {
		s, err := reg.Snapshot(ctx, Access{Identity: identity, Action: ActionRead}, "ws", "HEAD~1")
		if err != nil {
			return "", err
		}
		var b strings.Builder
		stats, err := s.Walk(ctx, "", WalkOptions{Recursive: true, Sizes: sizes}, func(e Entry) error {
			fmt.Fprintf(&b, "%s %d %s\n", e.Cursor(), e.Size, e.SHA)
			return nil
		})
		fmt.Fprintf(&b, "omitted %d invalid %d", stats.Omitted, stats.Invalid)
		return b.String(), err
	}
	type variant struct {
		identity string
		sizes    bool
	}
	variants := []variant{{"all", true}, {"all", false}, {"some", true}, {"some", false}}
	results := make([][]string, len(variants))
	var wg sync.WaitGroup
	for i, v := range variants {
		results[i] = make([]string, 4)
		for j := range results[i] {
			wg.Go(func() {
				out, err := walk(v.identity, v.sizes)
				if err != nil {
					t.Error(err)
				}
				results[i][j] = out
			})
		}
	}
	wg.Wait()
	for i, v := range variants {
		want, err := walk(v.identity, v.sizes) // warm, alone
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range results[i] {
			if got != want {
				t.Errorf("%+v: a concurrent walk gave\n%s\nwant\n%s", v, got, want)
			}
		}
	}
	if results[0][0] == results[2][0] || results[0][0] == results[1][0] {
		t.Errorf("the variants do not differ: the test does not test them")
	}
}

func TestListCacheBound(t *testing.T) {
	listing := func(n int, sized bool) *dirListing {
		return &dirListing{entries: make([]Entry, n), denied: make([]bool, n), sized: sized}
	}
	key := func(i byte) listKey { return listKey{tree: plumbing.Hash{i}, dir: "d"} }
	c := newListCache(10)
	c.put(key(1), listing(4, false))
	c.put(key(2), listing(4, false))
	c.get(key(1)) // now the most recent
	c.put(key(3), listing(4, false))
	if _, ok := c.get(key(2)); ok {
		t.Errorf("the least recently used listing was kept")
	}
	for _, k := range []listKey{key(1), key(3)} {
		if _, ok := c.get(k); !ok {
			t.Errorf("listing %v was evicted", k)
		}
	}
	c.put(key(1), listing(5, true))
	if l, _ := c.get(key(1)); !l.sized || len(l.entries) != 5 {
		t.Errorf("a listing with sizes did not replace one without")
	}
	c.put(key(1), listing(4, false))
	if l, _ := c.get(key(1)); !l.sized {
		t.Errorf("a listing without sizes replaced one with them")
	}
	c.put(key(4), listing(11, true))
	if _, ok := c.get(key(4)); ok {
		t.Errorf("a listing larger than the whole cache was kept")
	}
	if c.entries > c.maxEntries || c.entries != 9 {
		t.Errorf("cache holds %d entries, want 9 (bound %d)", c.entries, c.maxEntries)
	}
}

// BenchmarkColdList opens a fresh registry (nothing cached) per op and
// lists the whole tree, as the first list_files of a server does: "cold"
// with sizes (as every list_files read them until they were asked for),
// "cold-nosizes" without. "warm" lists it again from the
// same registry.
func BenchmarkColdList(b *testing.B) {
	dir, _ := benchCorpus(b)
	ctx := context.Background()
	cfg := Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}
	list := func(reg *Registry, sizes bool) {
		s, err := reg.Snapshot(ctx, reader, "ws", "HEAD")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.List(ctx, "", ListOptions{Recursive: true, Sizes: sizes, Limit: MaxListLimit}); err != nil {
			b.Fatal(err)
		}
	}
	for _, v := range []struct {
		name  string
		sizes bool
	}{{"cold", true}, {"cold-nosizes", false}} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				reg, err := Open(cfg, Options{})
				if err != nil {
					b.Fatal(err)
				}
				list(reg, v.sizes)
				reg.Close()
			}
		})
	}
	b.Run("warm", func(b *testing.B) {
		reg, err := Open(cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer reg.Close()
		list(reg, true)
		for b.Loop() {
			list(reg, true)
		}
	})
}
