package workspace

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"

	"github.com/repo-mcp/repo-mcp/errclass"
)

func TestReadFileAtRevisions(t *testing.T) {
	repo, commits := basicRepo(t)
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		rev, want, sha string
	}{
		{"", "hello again\n", commits[1]},
		{"HEAD", "hello again\n", commits[1]},
		{"main", "hello again\n", commits[1]},
		{"dev", "hello\n", commits[0]},
		{"v1", "hello\n", commits[0]},
		{"refs/tags/v1", "hello\n", commits[0]},
		{"light", "hello again\n", commits[1]},
		{"HEAD~1", "hello\n", commits[0]},
		{"HEAD^", "hello\n", commits[0]},
		{"main^1", "hello\n", commits[0]},
		{"HEAD^0", "hello again\n", commits[1]},
		{commits[0], "hello\n", commits[0]},
		{commits[0][:7], "hello\n", commits[0]},
		{commits[0][:12] + "~0", "hello\n", commits[0]},
	} {
		s := snapshot(t, reg, tc.rev)
		if s.Revision().SHA != tc.sha {
			t.Errorf("rev %q resolved to %s, want %s", tc.rev, s.Revision().SHA, tc.sha)
		}
		f, err := s.ReadFile(ctx, "README.md", ReadOptions{})
		if err != nil {
			t.Fatalf("rev %q: ReadFile: %v", tc.rev, err)
		}
		if string(f.Data) != tc.want || f.Truncated || f.Size != int64(len(tc.want)) {
			t.Errorf("rev %q: got %q truncated=%v size=%d, want %q", tc.rev, f.Data, f.Truncated, f.Size, tc.want)
		}
	}
}

func TestReadFileBudget(t *testing.T) {
	repo, _ := basicRepo(t)
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	ctx := context.Background()
	f, err := s.ReadFile(ctx, "README.md", ReadOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Data) != "hello" || !f.Truncated || f.Size != 12 {
		t.Fatalf("got %q truncated=%v size=%d", f.Data, f.Truncated, f.Size)
	}
	f, err = s.ReadFile(ctx, "README.md", ReadOptions{Offset: 6, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Data) != "again\n" || f.Truncated || f.Offset != 6 {
		t.Fatalf("got %q truncated=%v offset=%d", f.Data, f.Truncated, f.Offset)
	}
	f, err = s.ReadFile(ctx, "README.md", ReadOptions{Offset: 100})
	if err != nil || len(f.Data) != 0 || f.Truncated {
		t.Fatalf("read past the end: %+v, %v", f, err)
	}
}

func TestStatKinds(t *testing.T) {
	repo, commits := basicRepo(t)
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	ctx := context.Background()
	for _, tc := range []struct {
		path     string
		typ      EntryType
		mode     uint32
		target   string
		linkPath string
	}{
		{"a", TypeDir, ModeDir, "", ""},
		{"a/x.go", TypeFile, ModeFile, "", ""},
		{"bin/run", TypeFile, ModeExecutable, "", ""},
		{"docs/link", TypeSymlink, ModeSymlink, "../README.md", "README.md"},
		{"docs/out", TypeSymlink, ModeSymlink, "../../etc/passwd", ""},
		{"docs/abs", TypeSymlink, ModeSymlink, "/", ""},
		{"vendor/mod", TypeSubmodule, ModeSubmodule, "", ""},
	} {
		e, err := s.Stat(ctx, tc.path)
		if err != nil {
			t.Fatalf("Stat(%q): %v", tc.path, err)
		}
		if e.Type != tc.typ || e.Mode != tc.mode || e.Target != tc.target {
			t.Errorf("Stat(%q) = %+v", tc.path, e)
		}
		if lp, _ := e.LinkPath(); lp != tc.linkPath {
			t.Errorf("Stat(%q).LinkPath() = %q, want %q", tc.path, lp, tc.linkPath)
		}
		if tc.typ == TypeSubmodule && e.SHA != commits[0] {
			t.Errorf("submodule SHA = %s, want %s", e.SHA, commits[0])
		}
	}
	f, err := s.ReadFile(ctx, "docs/out", ReadOptions{})
	if err != nil || f.Type != TypeSymlink || f.Data != nil {
		t.Fatalf("ReadFile of a symlink = %+v, %v", f, err)
	}
	_, err = s.ReadFile(ctx, "vendor/mod", ReadOptions{})
	wantClass(t, err, errclass.InvalidInput)
	_, err = s.ReadFile(ctx, "a", ReadOptions{})
	wantClass(t, err, errclass.InvalidInput)
	_, err = s.ReadFile(ctx, "docs/link/x", ReadOptions{})
	wantClass(t, err, errclass.NotFound)
}

// TestTrailingSlashNamesADirectory checks that a path ending in '/' is
// read as a directory's, as open(2) and git read it: "a/x.go/" must not
// answer for a/x.go.
func TestTrailingSlashNamesADirectory(t *testing.T) {
	repo, _ := basicRepo(t)
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard")
	ws := openOne(t, repo.Dir, func(c *Config) { c.Workspaces[0].Worktree = true })
	ctx := context.Background()
	for _, rev := range []string{"HEAD", WorktreeRevision} {
		s := snapshot(t, ws, rev)
		for _, p := range []string{"a/", "a/.", "a/./"} {
			if e, err := s.Stat(ctx, p); err != nil || e.Type != TypeDir {
				t.Errorf("%s: Stat(%q) = %+v, %v; want the directory a", rev, p, e, err)
			}
		}
		for _, p := range []string{"a/x.go/", "a/x.go/.", "docs/link/", "bin/run//"} {
			f, err := s.ReadFile(ctx, p, ReadOptions{})
			if err == nil {
				t.Errorf("%s: ReadFile(%q) read %s (%d bytes); want it refused", rev, p, f.Path, len(f.Data))
				continue
			}
			wantClass(t, err, errclass.InvalidInput)
		}
	}
}

func walkPaths(t *testing.T, s *Snapshot, dir string, opts WalkOptions) ([]string, WalkStats) {
	t.Helper()
	var got []string
	stats, err := s.Walk(context.Background(), dir, opts, func(e Entry) error {
		got = append(got, e.Cursor())
		return nil
	})
	if err != nil {
		t.Fatalf("Walk(%q, %+v): %v", dir, opts, err)
	}
	return got, stats
}

func TestWalkOrderAndOmissions(t *testing.T) {
	repo, _ := basicRepo(t)
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true})
	want := []string{
		"README.md", "a.c", "a/", "a/b/", "a/b/y.go", "a/x.go", "bin/", "bin/run",
		"config/", "docs/", "docs/abs", "docs/link", "docs/out", "vendor/", "vendor/mod",
	}
	if diff := diffStrings(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
	if stats.Omitted != 2 { // .env, config/prod.pem
		t.Errorf("omitted = %d, want 2", stats.Omitted)
	}

	got, _ = walkPaths(t, s, "", WalkOptions{})
	want = []string{"README.md", "a.c", "a/", "bin/", "config/", "docs/", "vendor/"}
	if diff := diffStrings(want, got); diff != "" {
		t.Errorf("non-recursive walk (-want +got):\n%s", diff)
	}

	got, _ = walkPaths(t, s, "", WalkOptions{Recursive: true, Pattern: "**/*.go"})
	if diff := diffStrings([]string{"a/b/y.go", "a/x.go"}, got); diff != "" {
		t.Errorf("pattern walk (-want +got):\n%s", diff)
	}
	got, _ = walkPaths(t, s, "a", WalkOptions{Recursive: true, Pattern: "*.go"})
	if diff := diffStrings([]string{"a/x.go"}, got); diff != "" {
		t.Errorf("relative pattern walk (-want +got):\n%s", diff)
	}
}

func TestWalkResumesAfterCursor(t *testing.T) {
	repo, _ := basicRepo(t)
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	all, _ := walkPaths(t, s, "", WalkOptions{Recursive: true})
	for i := range all {
		rest, _ := walkPaths(t, s, "", WalkOptions{Recursive: true, After: all[i]})
		if diff := diffStrings(all[i+1:], rest); diff != "" {
			t.Errorf("after %q (-want +got):\n%s", all[i], diff)
		}
	}
	// Paging: stop after 3, resume from the last cursor.
	var page []string
	_, err := s.Walk(context.Background(), "", WalkOptions{Recursive: true}, func(e Entry) error {
		page = append(page, e.Cursor())
		if len(page) == 3 {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || len(page) != 3 {
		t.Fatalf("page = %v, %v", page, err)
	}
}

// TestLargeBlobs reads slices of blobs above the streaming threshold,
// stored whole and as deltas in a pack.
func TestLargeBlobs(t *testing.T) {
	repo := gitfixture.New(t)
	big := strings.Repeat("0123456789abcdef", 3<<16) // 3 MiB
	repo.Commit(t, "big", map[string]gitfixture.File{"big.txt": gitfixture.Text(big)})
	repo.Commit(t, "bigger", map[string]gitfixture.File{"big.txt": gitfixture.Text(big + "tail\n")})
	gitfixture.Git(t, repo.Dir, "gc", "-q", "--aggressive")
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	for rev, size := range map[string]int64{"HEAD": int64(len(big) + 5), "HEAD~1": int64(len(big))} {
		s := snapshot(t, reg, rev)
		f, err := s.ReadFile(ctx, "big.txt", ReadOptions{Offset: size - 10, Limit: 4})
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		want := (big + "tail\n")[size-10 : size-6]
		if string(f.Data) != want || f.Size != size || !f.Truncated {
			t.Errorf("%s: got %q size %d truncated %v, want %q size %d", rev, f.Data, f.Size, f.Truncated, want, size)
		}
		f, err = s.ReadFile(ctx, "big.txt", ReadOptions{})
		if err != nil || int64(len(f.Data)) != reg.Options().ReadBudget || !f.Truncated {
			t.Errorf("%s: default budget read %d bytes, %v", rev, len(f.Data), err)
		}
	}
}

func TestReadDir(t *testing.T) {
	repo, _ := basicRepo(t)
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	entries, stats, err := s.ReadDir(context.Background(), "a")
	if err != nil || stats != (WalkStats{}) || len(entries) != 2 {
		t.Fatalf("ReadDir(a) = %+v, %+v, %v", entries, stats, err)
	}
	if e := entries[1]; e.Path != "a/x.go" || e.Type != TypeFile || e.Size != 10 || e.SHA == "" {
		t.Errorf("entry = %+v", e)
	}
	_, _, err = s.ReadDir(context.Background(), "a/x.go")
	wantClass(t, err, errclass.InvalidInput)
	_, _, err = s.ReadDir(context.Background(), "nope")
	wantClass(t, err, errclass.NotFound)
}

func TestListPages(t *testing.T) {
	repo, _ := basicRepo(t)
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	all, _ := walkPaths(t, s, "", WalkOptions{Recursive: true})
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		page, err := s.List(context.Background(), "", ListOptions{Recursive: true, Limit: 4, After: after})
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != len(all) || page.Omitted != 2 {
			t.Fatalf("page %d: total %d omitted %d", pages, page.Total, page.Omitted)
		}
		for _, e := range page.Entries {
			got = append(got, e.Cursor())
		}
		if !page.Truncated {
			break
		}
		if len(page.Entries) != 4 || page.Next == "" {
			t.Fatalf("page %d: %+v", pages, page)
		}
		after = page.Next
	}
	if diff := diffStrings(all, got); diff != "" {
		t.Errorf("pages: %s", diff)
	}
	_, err := s.List(context.Background(), "", ListOptions{Limit: -1})
	wantClass(t, err, errclass.InvalidInput)
}
