package goindex

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureRepo is a git repository built by a test.
type fixtureRepo struct {
	dir  string
	git  *git.Repository
	repo *testRepo // opened for indexing
}

// newFixtureRepo commits the files of the txtar archive at archivePath into
// a new repository and returns it with the commit.
func newFixtureRepo(t testing.TB, archivePath string) (*fixtureRepo, plumbing.Hash) {
	t.Helper()
	ar, err := txtar.ParseFile(archivePath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	r := &fixtureRepo{dir: dir, git: g}
	files := make(map[string]string)
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	commit := r.commit(t, files, "fixture")
	if r.repo, err = openTestRepo(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.repo.Close() })
	return r, commit
}

// commit writes files (contents "" removes a file) and commits them.
func (r *fixtureRepo) commit(t testing.TB, files map[string]string, msg string) plumbing.Hash {
	t.Helper()
	wt, err := r.git.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if data == "" {
			if _, err := wt.Remove(name); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "test", Email: "test@example.com", When: time.Unix(1700000000, 0)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (r *fixtureRepo) source(t testing.TB, commit plumbing.Hash) *SnapshotSource {
	t.Helper()
	src, err := testSource(r.repo, commit)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// worktree is the source over the working tree of the repository.
func (r *fixtureRepo) worktree(t testing.TB) *SnapshotSource {
	t.Helper()
	src, err := worktreeSource(r.repo)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// dump renders every entry of x, in index order, one per line.
func dump(x *Index) string {
	var b strings.Builder
	fmt.Fprintf(&b, "files=%d parse_failures=%d symbols=%d\n", x.facts.Files, x.facts.ParseFailures, x.facts.Symbols)
	for i := range x.entries {
		e := x.entry(uint64(i))
		fmt.Fprintf(&b, "%s %s [%s] %s:%d:%d", e.Kind, e.QualifiedName, e.Package, e.File, e.Line, e.Column)
		if e.Container != "" {
			fmt.Fprintf(&b, " in=%s", e.Container)
		}
		if !e.Exported {
			b.WriteString(" unexported")
		}
		if e.Test {
			b.WriteString(" test")
		}
		if e.BuildConstraint != "" {
			fmt.Fprintf(&b, " build=%q", e.BuildConstraint)
		}
		fmt.Fprintf(&b, "\n\tsig: %s\n", e.Signature)
		if e.Doc != "" {
			fmt.Fprintf(&b, "\tdoc: %s\n", e.Doc)
		}
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := lineDiff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestFixtureGolden(t *testing.T) {
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	for _, tc := range []struct {
		golden string
		opts   Options
	}{
		{"fixture.golden", Options{}},
		{"fixture-all.golden", Options{IncludeVendor: true, IncludeTestdata: true}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			ix := NewIndexer(IndexerOptions{})
			idx, err := ix.Index(context.Background(), r.source(t, commit), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, dump(idx))
		})
	}
}

// TestWorktreeMatchesGit indexes the work tree of the fixture through a
// worktree snapshot and expects the same index as the commit, blob ids
// included.
func TestWorktreeMatchesGit(t *testing.T) {
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	ctx := context.Background()
	ix := NewIndexer(IndexerOptions{})
	fromGit, err := ix.Index(ctx, r.source(t, commit), Options{})
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := NewIndexer(IndexerOptions{}).Index(ctx, r.worktree(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := lineDiff(dump(fromGit), dump(fromDir)); diff != "" {
		t.Errorf("work tree index differs from commit index (-git +dir):\n%s", diff)
	}
	for i := range fromGit.files {
		if g, d := fromGit.str(fromGit.files[i].id), fromDir.str(fromDir.files[i].id); g != d {
			t.Errorf("%s: blob id %s from git, %s from the work tree", fromGit.str(fromGit.files[i].path), g, d)
		}
	}
}

// lineDiff returns "" when want and got are equal, else the lines where they
// first differ, with a little context.
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d:\n", i+1)
	for _, side := range []struct {
		sign  string
		lines []string
	}{{"-", w}, {"+", g}} {
		for j := i; j < min(i+4, len(side.lines)); j++ {
			fmt.Fprintf(&b, "%s %s\n", side.sign, side.lines[j])
		}
	}
	return b.String()
}
