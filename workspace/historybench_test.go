package workspace

import (
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// The history benchmarks run one job three ways on the go-git corpus, side
// by side for bench/history.sh: "cold" opens the repository and answers
// with empty caches (what a first call costs), "warm" repeats the call on
// an open registry (what a second identical call costs), and "git" runs the
// git command that answers the same question (which opens the repository
// each time too).

// largestCommit is the non-merge commit of the corpus that changed the most
// files (343).
const largestCommit = "9ff563ab43161dc9f9bc50944c8c48a8802288c4"

// benchHistory runs one job as the three variants on a clone of the
// corpus.
func benchHistory(b *testing.B, job func(*Registry) error, git ...[]string) {
	benchHistoryIn(b, goGitCorpus(b), job, git...)
}

func benchHistoryIn(b *testing.B, dir string, job func(*Registry) error, git ...[]string) {
	b.Run("cold", func(b *testing.B) {
		benchlat.Measure(b, func(int) error {
			reg, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{})
			if err != nil {
				return err
			}
			defer reg.Close()
			return job(reg)
		})
	})
	b.Run("warm", func(b *testing.B) {
		reg, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer reg.Close()
		if err := job(reg); err != nil {
			b.Fatal(err)
		}
		benchlat.Measure(b, func(int) error { return job(reg) })
	})
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error {
			for _, args := range git {
				cmd := exec.Command("git", args...)
				cmd.Dir, cmd.Stdout = dir, io.Discard
				if err := cmd.Run(); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func logJob(opts LogOptions) func(*Registry) error {
	return func(reg *Registry) error {
		s, err := reg.Snapshot(context.Background(), reader, "ws", "HEAD")
		if err != nil {
			return err
		}
		opts.Limit = MaxLogPage
		for {
			page, err := s.History(context.Background(), opts)
			if err != nil || !page.More {
				return err
			}
			opts.Skip += len(page.Entries)
		}
	}
}

func diffJob(base, head string, patches bool) func(*Registry) error {
	return func(reg *Registry) error {
		ctx := context.Background()
		h, err := reg.Snapshot(ctx, reader, "ws", head)
		if err != nil {
			return err
		}
		var b *Snapshot
		if base == "" {
			b, err = h.Parent(1)
		} else {
			b, err = reg.Snapshot(ctx, reader, "ws", base)
		}
		if err != nil {
			return err
		}
		files, err := h.DiffFrom(ctx, b, DiffOptions{Counts: true})
		if err != nil || !patches {
			return err
		}
		p := h.Patcher()
		for _, f := range files {
			if _, err := p.Patch(ctx, f, 3); err != nil {
				return err
			}
		}
		return nil
	}
}

// BenchmarkHistoryLogPath: the whole log of one file.
func BenchmarkHistoryLogPath(b *testing.B) {
	benchHistory(b, logJob(LogOptions{Path: "plumbing/object/commit.go"}),
		[]string{"log", "--format=%H", "--", "plumbing/object/commit.go"})
}

// BenchmarkHistoryLogPathGraph: the same with a commit-graph written,
// which both git and the walk read.
func BenchmarkHistoryLogPathGraph(b *testing.B) {
	dir := goGitCorpus(b)
	gitOut(b, dir, "commit-graph", "write", "--reachable")
	benchHistoryIn(b, dir, logJob(LogOptions{Path: "plumbing/object/commit.go"}),
		[]string{"log", "--format=%H", "--", "plumbing/object/commit.go"})
}

// BenchmarkHistoryLogPathBloom: the same with a commit-graph that holds
// changed-path Bloom filters, which git reads to skip the tree diffs of
// commits that cannot have changed the path.
func BenchmarkHistoryLogPathBloom(b *testing.B) {
	dir := goGitCorpus(b)
	gitOut(b, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	benchHistoryIn(b, dir, logJob(LogOptions{Path: "plumbing/object/commit.go"}),
		[]string{"log", "--format=%H", "--", "plumbing/object/commit.go"})
}

// BenchmarkHistoryPickaxe: the whole log of commits that added or removed
// "Blame" anywhere.
func BenchmarkHistoryPickaxe(b *testing.B) {
	benchHistory(b, logJob(LogOptions{ContentAdded: "Blame", ContentRemoved: "Blame"}),
		[]string{"log", "--format=%H", "-SBlame"})
}

// BenchmarkHistoryShow: the largest commit, stats and every patch.
func BenchmarkHistoryShow(b *testing.B) {
	benchHistory(b, diffJob("", largestCommit, true),
		[]string{"show", "-M", "--numstat", "--format=", largestCommit},
		[]string{"show", "-M", "--format=", largestCommit})
}

// BenchmarkHistoryDiffTags: line counts of every file between two tags
// five years apart.
func BenchmarkHistoryDiffTags(b *testing.B) {
	benchHistory(b, diffJob("v4.0.0", "v5.10.0", false),
		[]string{"diff", "-M", "--numstat", "v4.0.0", "v5.10.0"})
}

// BenchmarkHistoryBlame: blame of the ten most changed files.
func BenchmarkHistoryBlame(b *testing.B) {
	files := []string{"repository.go", "repository_test.go", "remote.go", "go.mod", "go.sum",
		"worktree_test.go", "remote_test.go", "options.go", "worktree.go", "storage/filesystem/object.go"}
	var git [][]string
	for _, f := range files {
		git = append(git, []string{"blame", "--porcelain", "HEAD", "--", f})
	}
	benchHistory(b, func(reg *Registry) error {
		s, err := reg.Snapshot(context.Background(), reader, "ws", "HEAD")
		if err != nil {
			return err
		}
		for _, f := range files {
			if _, err := s.Blame(context.Background(), f, BlameOptions{}, false); err != nil {
				return err
			}
		}
		return nil
	}, git...)
}
