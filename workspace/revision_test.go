package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

func TestAmbiguousRevisions(t *testing.T) {
	repo, commits := basicRepo(t)
	short := commits[0][:8]
	repo.SetRef(t, "refs/heads/"+short, commits[1]) // a branch that looks like a SHA
	repo.SetRef(t, "refs/heads/dup", commits[0])
	repo.Tag(t, "dup", commits[1], false)
	reg := openOne(t, repo.Dir, nil)
	for _, tc := range []struct{ rev, candidate string }{
		{short, "refs/heads/" + short},
		{"dup", "refs/tags/dup"},
	} {
		_, err := reg.Snapshot(context.Background(), reader, "ws", tc.rev)
		wantClass(t, err, errclass.InvalidInput)
		if !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), tc.candidate) {
			t.Errorf("rev %s: %v", tc.rev, err)
		}
	}
	// Full names and full SHAs are never ambiguous.
	if got := snapshot(t, reg, "refs/heads/dup").Revision().SHA; got != commits[0] {
		t.Errorf("refs/heads/dup = %s", got)
	}
	if got := snapshot(t, reg, commits[0]).Revision(); got.SHA != commits[0] || got.Ref != "commit" {
		t.Errorf("full SHA = %+v", got)
	}
	// Shorter than MinShortSHA is only ever a ref name.
	_, err := reg.Snapshot(context.Background(), reader, "ws", commits[0][:6])
	wantClass(t, err, errclass.NotFound)
}

func TestRootForms(t *testing.T) {
	ctx := context.Background()
	t.Run("symlinked root", func(t *testing.T) {
		repo, _ := basicRepo(t)
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(repo.Dir, link); err != nil {
			t.Fatal(err)
		}
		reg := openOne(t, link, nil)
		real, _ := filepath.EvalSymlinks(repo.Dir)
		if got := reg.workspaces["ws"].root; got != real {
			t.Errorf("root = %s, want %s", got, real)
		}
		if _, err := snapshot(t, reg, "HEAD").ReadFile(ctx, "README.md", ReadOptions{}); err != nil {
			t.Error(err)
		}
	})
	t.Run("bare", func(t *testing.T) {
		repo := gitfixture.NewBare(t)
		repo.Commit(t, "one", map[string]gitfixture.File{"f": gitfixture.Text("x")})
		reg := openOne(t, repo.Dir, func(c *Config) { c.Workspaces[0].Worktree = true })
		if f, err := snapshot(t, reg, "HEAD").ReadFile(ctx, "f", ReadOptions{}); err != nil || string(f.Data) != "x" {
			t.Errorf("read = %q, %v", f.Data, err)
		}
		_, err := reg.Snapshot(ctx, reader, "ws", "worktree")
		wantClass(t, err, errclass.NotFound)
	})
	t.Run("worktree not allowed", func(t *testing.T) {
		repo, _ := basicRepo(t)
		_, err := openOne(t, repo.Dir, nil).Snapshot(ctx, reader, "ws", "worktree")
		wantClass(t, err, errclass.PermissionDenied)
	})
	t.Run("no commits", func(t *testing.T) {
		repo := gitfixture.New(t)
		_, err := openOne(t, repo.Dir, nil).Snapshot(ctx, reader, "ws", "")
		wantClass(t, err, errclass.NotFound)
	})
	t.Run("linked worktree", func(t *testing.T) {
		repo, _ := basicRepo(t)
		linked := filepath.Join(t.TempDir(), "linked")
		gitfixture.Git(t, repo.Dir, "worktree", "add", "-q", "-b", "side", linked, "dev")
		reg := openOne(t, linked, func(c *Config) { c.Workspaces[0].Worktree = true })
		s := snapshot(t, reg, "HEAD")
		f, err := s.ReadFile(ctx, "README.md", ReadOptions{})
		if err != nil || string(f.Data) != "hello\n" {
			t.Fatalf("read = %q, %v", f.Data, err)
		}
		f, err = snapshot(t, reg, "worktree").ReadFile(ctx, "README.md", ReadOptions{})
		if err != nil || string(f.Data) != "hello\n" {
			t.Fatalf("worktree read = %q, %v", f.Data, err)
		}
	})
}

// TestConcurrentReads runs reads, stats and walks of several revisions at
// once; run it with -race.
func TestConcurrentReads(t *testing.T) {
	repo, commits := basicRepo(t)
	gitfixture.Git(t, repo.Dir, "gc", "-q") // packed objects: the shared descriptor path
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				rev := []string{"HEAD", "dev", commits[0][:9], "v1", "HEAD~1"}[(i+j)%5]
				s, err := reg.Snapshot(ctx, reader, "ws", rev)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := s.ReadFile(ctx, "README.md", ReadOptions{}); err != nil {
					t.Error(err)
				}
				if _, err := s.Walk(ctx, "", WalkOptions{Recursive: true, Sizes: true}, func(Entry) error { return nil }); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func TestRepositoryFacts(t *testing.T) {
	repo, commits := basicRepo(t)
	s := snapshot(t, openOne(t, repo.Dir, nil), "HEAD")
	head, err := s.Head()
	if err != nil || head.Ref != "refs/heads/main" || head.SHA != commits[1] {
		t.Errorf("Head() = %+v, %v", head, err)
	}
	if got := s.DefaultBranch(); got != "main" {
		t.Errorf("DefaultBranch() = %q", got)
	}
	refs, err := s.Refs(1)
	if err != nil {
		t.Fatal(err)
	}
	if !refs.Truncated || refs.TotalBranches != 2 || refs.TotalTags != 2 || len(refs.Branches) != 1 ||
		refs.Branches[0] != (Ref{Name: "refs/heads/dev", SHA: commits[0]}) {
		t.Errorf("Refs(1) = %+v", refs)
	}
	refs, _ = s.Refs(10)
	if len(refs.Tags) != 2 || refs.Tags[1] != (Ref{Name: "refs/tags/v1", SHA: commits[0]}) {
		t.Errorf("tags = %+v (annotated tags must be peeled)", refs.Tags)
	}
	log, err := s.Log(20)
	if err != nil || len(log) != 2 || log[0].SHA != commits[1] || log[1].Subject != "first" {
		t.Errorf("Log(20) = %+v, %v", log, err)
	}
}

func TestWorktreeDirty(t *testing.T) {
	repo, _ := basicRepo(t)
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard")
	ctx := context.Background()
	reg := openOne(t, repo.Dir, func(c *Config) { c.Workspaces[0].Worktree = true })
	check := func(want bool) {
		t.Helper()
		dirty, checked, err := snapshot(t, reg, "HEAD").WorktreeDirty(ctx)
		if err != nil || !checked || dirty != want {
			t.Fatalf("WorktreeDirty() = %v, %v, %v; want %v", dirty, checked, err, want)
		}
	}
	check(false)
	writeFile(t, filepath.Join(repo.Dir, "untracked"), "x")
	check(false)
	writeFile(t, filepath.Join(repo.Dir, "a.c"), "int b;\n") // same size, new content
	check(true)
	gitfixture.Git(t, repo.Dir, "checkout", "-q", "--", "a.c")
	check(false)
	gitfixture.Git(t, repo.Dir, "rm", "-q", "--cached", "a.c")
	check(true)

	_, checked, _ := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").WorktreeDirty(ctx)
	if checked {
		t.Error("checked a working tree the workspace does not allow reading")
	}
}

// TestCommitPrefixCandidates exercises the candidate listing with prefixes
// shorter than MinShortSHA (two real commits sharing seven hex digits are
// out of a test's reach): sixty commits share some two- or three-digit
// prefixes.
func TestCommitPrefixCandidates(t *testing.T) {
	repo := gitfixture.New(t)
	var shas []string
	for i := range 60 {
		shas = append(shas, repo.Commit(t, fmt.Sprint("commit ", i), map[string]gitfixture.File{"f": gitfixture.Text(fmt.Sprint(i))}))
	}
	ws := openOne(t, repo.Dir, nil).workspaces["ws"]
	byPrefix := map[string][]string{}
	for _, sha := range shas {
		byPrefix[sha[:3]] = append(byPrefix[sha[:3]], sha)
		byPrefix[sha[:2]] = append(byPrefix[sha[:2]], sha)
	}
	tested := 0
	for prefix, want := range byPrefix {
		ws.repo.mu.Lock()
		got, err := ws.commitsWithPrefixLocked(prefix)
		ws.repo.mu.Unlock()
		if err != nil || len(got) != len(want) {
			t.Fatalf("prefix %s: got %v, %v; want %d commits", prefix, got, err, len(want))
		}
		if len(want) > 1 {
			tested++
			err := ambiguous(prefix, nil, got)
			wantClass(t, err, errclass.InvalidInput)
			for _, sha := range want {
				if !strings.Contains(err.Error(), sha[:12]) {
					t.Errorf("prefix %s: %v does not list %s", prefix, err, sha[:12])
				}
			}
		}
	}
	if tested == 0 {
		t.Fatal("no shared prefix among 60 commits")
	}
}

// FuzzParseRevision checks that an accepted revision holds nothing git
// would read as an option, a reflog, a path, a search or a range.
func FuzzParseRevision(f *testing.F) {
	for _, tc := range hostileRevisions {
		f.Add(tc.rev)
	}
	for _, s := range []string{"HEAD", "main~3^2", "v1.2.3", "refs/heads/x", "abc1234"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		spec, err := parseRevision(in)
		if err != nil {
			if errclass.ClassOf(err) != errclass.InvalidInput {
				t.Fatalf("parseRevision(%q): class %s", in, errclass.ClassOf(err))
			}
			return
		}
		s := spec.input
		if strings.HasPrefix(s, "-") || strings.ContainsAny(s, ": \t\n\x00\\*?[") ||
			strings.Contains(s, "@{") || strings.Contains(s, "^{") || strings.Contains(s, "..") || len(s) > MaxRevisionBytes {
			t.Fatalf("parseRevision accepted %q", in)
		}
		total := 0
		for _, st := range spec.steps {
			total += st.n
		}
		if total > MaxAncestry*64 {
			t.Fatalf("parseRevision(%q) walks %d steps", in, total)
		}
	})
}
