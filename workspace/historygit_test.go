package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

// corpusBundle is the real history the comparisons with git run on: it
// lives beside the checkout, in ../shared/corpora, where CI puts it.
const corpusBundle = "../../shared/corpora/go-git.bundle"

// goGitCorpus clones the go-git bundle into a temporary directory, or skips
// the test, saying why, when the bundle or git is missing.
func goGitCorpus(t testing.TB) string {
	t.Helper()
	bundle, err := filepath.Abs(corpusBundle)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bundle); err != nil {
		t.Skipf("the go-git corpus is not at %s (CI has it): %v", bundle, err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the comparison needs it")
	}
	dir := filepath.Join(t.TempDir(), "go-git")
	if out, err := exec.Command("git", "clone", "-q", bundle, dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	return dir
}

// gitOut runs git in dir and returns its output's lines.
func gitOut(t testing.TB, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.quotePath=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	s := strings.TrimRight(string(out), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// allHistory pages through a log and returns its commit SHAs.
func allHistory(t *testing.T, s *Snapshot, opts LogOptions) []string {
	t.Helper()
	var shas []string
	opts.Limit = MaxLogPage
	for {
		page, err := s.History(context.Background(), opts)
		if err != nil {
			t.Fatalf("History: %v", err)
		}
		for _, e := range page.Entries {
			shas = append(shas, e.SHA)
		}
		if !page.More {
			return shas
		}
		opts.Skip += len(page.Entries)
	}
}

// TestHistoryMatchesGit compares logs, commits and diffs of a real history
// with what git prints for the same question.
func TestHistoryMatchesGit(t *testing.T) {
	if testing.Short() {
		t.Skip("compares with git on a 5,606-commit corpus")
	}
	dir := goGitCorpus(t)
	reg := openOne(t, dir, nil)
	head := snapshot(t, reg, "HEAD")
	since := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	until := time.Date(2021, 6, 1, 0, 0, 0, 0, time.UTC)
	logs := []struct {
		name string
		git  []string
		opts LogOptions
	}{
		{"all", nil, LogOptions{}},
		{"file", []string{"--", "plumbing/object/commit.go"}, LogOptions{Path: "plumbing/object/commit.go"}},
		{"most changed file", []string{"--", "repository.go"}, LogOptions{Path: "repository.go"}},
		{"directory", []string{"--", "plumbing/format"}, LogOptions{Path: "plumbing/format"}},
		{"follow", []string{"--follow", "--", "plumbing/object/commit.go"}, LogOptions{Path: "plumbing/object/commit.go", Follow: true}},
		{"follow moved package", []string{"--follow", "--", "plumbing/protocol/capability/list.go"}, LogOptions{Path: "plumbing/protocol/capability/list.go", Follow: true}},
		{"first parent", []string{"--first-parent"}, LogOptions{FirstParent: true}},
		{"first parent file", []string{"--first-parent", "--", "remote.go"}, LogOptions{FirstParent: true, Path: "remote.go"}},
		{"merges", []string{"--merges"}, LogOptions{Merges: "only"}},
		{"no merges", []string{"--no-merges", "--", "worktree.go"}, LogOptions{Merges: "none", Path: "worktree.go"}},
		{"since until", []string{"--since=" + since.Format(time.RFC3339), "--until=" + until.Format(time.RFC3339)}, LogOptions{Since: since, Until: until}},
		{"author", []string{"-F", "--author=Máximo"}, LogOptions{Author: "Máximo"}},
		{"message", []string{"-E", "--grep=^plumbing: format"}, LogOptions{Message: regexp.MustCompile("(?m)^plumbing: format")}},
		{"pickaxe", []string{"-SBlame"}, LogOptions{ContentAdded: "Blame", ContentRemoved: "Blame"}},
		{"pickaxe path", []string{"-SMergeBase", "--", "plumbing/object"}, LogOptions{ContentAdded: "MergeBase", ContentRemoved: "MergeBase", Path: "plumbing/object"}},
		{"pickaxe regex", []string{"-Gfunc .*Blame", "--", "blame.go"}, LogOptions{ContentRegex: regexp.MustCompile("func .*Blame"), Path: "blame.go"}},
	}
	for _, tc := range logs {
		t.Run("log/"+tc.name, func(t *testing.T) {
			want := gitOut(t, dir, append([]string{"log", "--format=%H"}, tc.git...)...)
			got := allHistory(t, head, tc.opts)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log %v: %d commits from git, %d from History (-git +ours):\n%s", tc.git, len(want), len(got), diff)
			}
		})
	}
	t.Run("show numstat", func(t *testing.T) { compareShows(t, dir, reg, 120) })
	for _, path := range []string{"", "plumbing/object"} {
		t.Run("log files/"+path, func(t *testing.T) {
			page, err := head.History(context.Background(), LogOptions{Path: path, Files: true, Merges: "none", Limit: 150})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range page.Entries {
				got = append(got, "C "+e.SHA)
				got = append(got, numstat(e.Files)...)
			}
			args := []string{"log", "-M", "--numstat", "--no-merges", "--format=C %H", "-n", "150"}
			if path != "" {
				args = append(args, "--", path)
			}
			want := filterLines(gitOut(t, dir, args...), func(l string) bool { return l != "" })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log --numstat %s (-git +ours):\n%s", path, diff)
			}
		})
	}
	diffs := []struct {
		base, head string
		threeDot   bool
	}{
		{"v4.0.0", "v5.0.0", false}, {"v5.0.0", "v5.10.0", false}, {"v2.0.0", "HEAD", false},
		{"v4.0.0", "v5.0.0", true}, {"v5.4.0", "HEAD", true},
	}
	for _, d := range diffs {
		dots := ".."
		if d.threeDot {
			dots = "..."
		}
		t.Run("diff/"+d.base+dots+d.head, func(t *testing.T) {
			h, b := snapshot(t, reg, d.head), snapshot(t, reg, d.base)
			if d.threeDot {
				var err error
				if b, err = b.MergeBase(context.Background(), h); err != nil {
					t.Fatal(err)
				}
			}
			got, err := h.DiffFrom(context.Background(), b, DiffOptions{Counts: true})
			if err != nil {
				t.Fatal(err)
			}
			ws, err := reg.Workspace(reader, "ws")
			if err != nil {
				t.Fatal(err)
			}
			// The secret patterns hide some files of the corpus (test
			// keys): git shows them, History must not.
			visible := func(line string) bool {
				_, denied := ws.deny.match(line[strings.LastIndexByte(line, '\t')+1:])
				return !denied
			}
			want := filterLines(gitOut(t, dir, "diff", "-M", "--numstat", d.base+dots+d.head), visible)
			if diff := cmp.Diff(want, numstat(got)); diff != "" {
				t.Errorf("diff (-git +ours):\n%s", diff)
			}
			wantNS := filterLines(gitOut(t, dir, "diff", "-M", "--name-status", d.base+dots+d.head), visible)
			if diff := cmp.Diff(wantNS, nameStatus(got)); diff != "" {
				t.Errorf("name-status (-git +ours):\n%s", diff)
			}
		})
	}
}

// numstat renders changes as git diff --numstat does.
func numstat(changes []ChangedFile) []string {
	var out []string
	for _, c := range changes {
		counts := fmt.Sprintf("%d\t%d", c.Added, c.Removed)
		if c.Binary || c.Added < 0 {
			counts = "-\t-"
		}
		p := c.Path
		if c.OldPath != "" {
			p = renamePath(c.OldPath, c.Path)
		}
		out = append(out, counts+"\t"+p)
	}
	return out
}

// renamePath is git's pprint_rename: the common directory prefix and
// suffix of both names outside braces.
func renamePath(a, b string) string {
	pfx := 0
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '/' {
			pfx = i + 1
		}
	}
	adjust := 0
	if pfx > 0 {
		adjust = 1
	}
	sfx := 0
	// Compare from the ends, the terminating NUL included, as git does.
	for i, j := len(a), len(b); pfx-adjust <= i && pfx-adjust <= j && byteAt(a, i) == byteAt(b, j); i, j = i-1, j-1 {
		if byteAt(a, i) == '/' {
			sfx = len(a) - i
		}
	}
	amid, bmid := max(len(a)-pfx-sfx, 0), max(len(b)-pfx-sfx, 0)
	if pfx+sfx == 0 {
		return a + " => " + b
	}
	return a[:pfx] + "{" + a[pfx:pfx+amid] + " => " + b[pfx:pfx+bmid] + "}" + a[len(a)-sfx:]
}

func byteAt(s string, i int) byte {
	if i >= len(s) {
		return 0
	}
	return s[i]
}

func nameStatus(changes []ChangedFile) []string {
	var out []string
	for _, c := range changes {
		switch c.Status {
		case StatusRenamed:
			out = append(out, fmt.Sprintf("R%03d\t%s\t%s", c.Similarity, c.OldPath, c.Path))
		default:
			out = append(out, strings.ToUpper(string(c.Status[0]))+"\t"+c.Path)
		}
	}
	return out
}

func filterLines(lines []string, keep func(string) bool) []string {
	var out []string
	for _, l := range lines {
		if keep(l) {
			out = append(out, l)
		}
	}
	return out
}

// TestBlameMatchesGit blames the ten most changed files of the corpus and
// compares every line's commit, original path and line with git blame.
func TestBlameMatchesGit(t *testing.T) {
	if testing.Short() {
		t.Skip("compares with git on a 5,606-commit corpus")
	}
	dir := goGitCorpus(t)
	reg := openOne(t, dir, nil)
	head := snapshot(t, reg, "HEAD")
	for _, p := range mostChanged(t, dir, 10) {
		for _, ws := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ignore_whitespace=%v", p, ws), func(t *testing.T) {
				args := []string{"blame", "--line-porcelain"}
				if ws {
					args = append(args, "-w")
				}
				want := porcelain(gitOut(t, dir, append(args, "HEAD", "--", p)...))
				b, err := head.Blame(context.Background(), p, BlameOptions{IgnoreWhitespace: ws}, false)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, h := range b.Hunks {
					for l := h.StartLine; l <= h.EndLine; l++ {
						got = append(got, fmt.Sprintf("%d %s %s:%d", l, h.SHA, h.OrigPath, h.OrigStartLine+l-h.StartLine))
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("blame %s (-git +ours):\n%s", p, diff)
				}
			})
		}
	}
}

// mostChanged returns the n files of HEAD that the most commits changed.
func mostChanged(t *testing.T, dir string, n int) []string {
	counts := map[string]int{}
	for _, l := range gitOut(t, dir, "log", "--format=", "--name-only") {
		if l != "" {
			counts[l]++
		}
	}
	var files []string
	for _, p := range gitOut(t, dir, "ls-tree", "-r", "--name-only", "HEAD") {
		files = append(files, p)
	}
	slices.SortStableFunc(files, func(a, b string) int { return counts[b] - counts[a] })
	return files[:n]
}

// porcelain turns git blame --line-porcelain into "line sha path:origline".
func porcelain(lines []string) []string {
	var out []string
	var sha, orig, final string
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && len(f[0]) == 40 && !strings.HasPrefix(l, "\t"):
			sha, orig, final = f[0], f[1], f[2]
		case strings.HasPrefix(l, "filename "):
			out = append(out, fmt.Sprintf("%s %s %s:%s", final, sha, strings.TrimPrefix(l, "filename "), orig))
		}
	}
	return out
}

// compareShows compares, for the last n commits that are not merges, the
// files, line counts and patches (hunk headers with their function names
// included) with git show's.
func compareShows(t *testing.T, dir string, reg *Registry, n int) {
	t.Helper()
	for _, sha := range gitOut(t, dir, "log", "--no-merges", "--format=%H", "-n", fmt.Sprint(n)) {
		s := snapshot(t, reg, sha)
		parent, err := s.Parent(1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.DiffFrom(context.Background(), parent, DiffOptions{Counts: true})
		if err != nil {
			t.Fatal(err)
		}
		want := gitOut(t, dir, "show", "-M", "--numstat", "--format=", sha)
		if diff := cmp.Diff(want, numstat(got)); diff != "" {
			t.Errorf("show %s (-git +ours):\n%s", sha, diff)
		}
		patch := patchLines(t, s, got)
		wantPatch := gitOut(t, dir, "show", "-M", "--full-index", "--format=", sha)
		if diff := cmp.Diff(wantPatch, patch); diff != "" {
			t.Errorf("show -p %s (-git +ours):\n%s", sha, diff)
		}
	}
}

// patchLines renders the patches of changes to s, as the lines git show
// or git diff would print.
func patchLines(t *testing.T, s *Snapshot, changes []ChangedFile) []string {
	t.Helper()
	var lines []string
	for _, fc := range changes {
		p, err := s.Patch(context.Background(), fc, 3)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(p), "\n"), "\n")...)
	}
	return lines
}

// TestWorktreeDiffMatchesGit edits, deletes, adds, chmods and renames
// (git mv, then an edit) files in a clone of the corpus and compares the
// diff of the working tree with git diff's, with and without renames.
func TestWorktreeDiffMatchesGit(t *testing.T) {
	if testing.Short() {
		t.Skip("compares with git on a 5,606-commit corpus")
	}
	dir := goGitCorpus(t)
	edit := func(p, text string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), append([]byte(text), data[len(data)/2:]...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("repository.go", "// edited\n")
	edit("plumbing/object/commit.go", "")
	if err := os.Remove(filepath.Join(dir, "remote.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "untracked.go"), []byte("package git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "options.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "mv", "worktree.go", "worktree_moved.go")
	moved := filepath.Join(dir, "worktree_moved.go")
	data, err := os.ReadFile(moved)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, append([]byte("// moved and edited\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "mv", "status.go", "plumbing/status_moved.go")
	reg := openOne(t, dir, func(c *Config) { c.Workspaces[0].Worktree = true })
	wt := snapshot(t, reg, "worktree")
	for _, tc := range []struct {
		base    string
		renames bool
	}{{"HEAD", false}, {"v5.0.0", false}, {"HEAD", true}, {"v5.0.0", true}} {
		base, renames := tc.base, "--no-renames"
		if tc.renames {
			renames = "-M"
		}
		got, err := wt.DiffFrom(context.Background(), snapshot(t, reg, base), DiffOptions{Counts: true, NoRenames: !tc.renames})
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := reg.Workspace(reader, "ws")
		visible := func(line string) bool {
			_, denied := ws.deny.match(line[strings.LastIndexByte(line, '\t')+1:])
			return !denied
		}
		want := filterLines(gitOut(t, dir, "diff", renames, "--numstat", base), visible)
		if diff := cmp.Diff(want, numstat(got)); diff != "" {
			t.Errorf("worktree against %s %s (-git +ours):\n%s", base, renames, diff)
		}
		if tc.renames && base == "HEAD" && !slices.ContainsFunc(got, func(fc ChangedFile) bool {
			return fc.Status == StatusRenamed && fc.OldPath == "worktree.go" && fc.Similarity < 100
		}) {
			t.Errorf("worktree against %s: the edited worktree.go is not a rename", base)
		}
		patch := patchLines(t, wt, got)
		if base != "HEAD" {
			continue
		}
		if diff := cmp.Diff(gitOut(t, dir, "diff", renames, "--full-index", base), patch); diff != "" {
			t.Errorf("worktree patch against %s %s (-git +ours):\n%s", base, renames, diff)
		}
	}
}

// TestLogWithCommitGraph runs logs over clones whose commit-graph git has
// written, as one file and as a split chain of two layers, without and
// with changed-path Bloom filters (all computed, or only some), so that
// the walk reads nodes and filters from it, and compares with git.
func TestLogWithCommitGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("compares with git on a 5,606-commit corpus")
	}
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, dir string)
		// filtered is the share of commits whose filter proves they left
		// plumbing/object/commit.go alone, at least.
		filtered float64
	}{
		{"one file", func(t *testing.T, dir string) {
			gitOut(t, dir, "commit-graph", "write", "--reachable")
		}, 0},
		{"split chain", func(t *testing.T, dir string) { writeSplitGraph(t, dir) }, 0},
		{"changed paths", func(t *testing.T, dir string) {
			gitOut(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
		}, 0.9},
		{"changed paths split chain", func(t *testing.T, dir string) {
			writeSplitGraph(t, dir, "--changed-paths")
		}, 0.9},
		{"changed paths partly computed", func(t *testing.T, dir string) {
			// Filters for 500 commits only: the others' are empty, which
			// says "not computed", and are diffed.
			gitOut(t, dir, "commit-graph", "write", "--reachable", "--changed-paths", "--max-new-filters=500")
		}, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := goGitCorpus(t)
			tc.write(t, dir)
			logsWithGraph(t, dir, tc.filtered)
		})
	}
}

// writeSplitGraph writes a split commit-graph: a base layer of the
// history up to v4.0.0, then a layer of the rest, kept apart (no-merge).
func writeSplitGraph(t *testing.T, dir string, flags ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"commit-graph", "write", "--stdin-commits", "--split"}, flags...)...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(gitOut(t, dir, "rev-parse", "v4.0.0^{commit}")[0]+"\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit-graph write: %v\n%s", err, out)
	}
	gitOut(t, dir, append([]string{"commit-graph", "write", "--reachable", "--split=no-merge"}, flags...)...)
	chain, err := os.ReadFile(filepath.Join(dir, ".git", "objects", "info", "commit-graphs", "commit-graph-chain"))
	if err != nil || strings.Count(string(chain), "\n") != 2 {
		t.Fatalf("want a chain of two layers: %q, %v", chain, err)
	}
}

func logsWithGraph(t *testing.T, dir string, filtered float64) {
	reg := openOne(t, dir, nil)
	head := snapshot(t, reg, "HEAD")
	since := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		git  []string
		opts LogOptions
	}{
		{nil, LogOptions{}},
		{[]string{"--", "plumbing/format"}, LogOptions{Path: "plumbing/format"}},
		{[]string{"--", "plumbing/object/commit.go"}, LogOptions{Path: "plumbing/object/commit.go"}},
		{[]string{"--", "repository.go"}, LogOptions{Path: "repository.go"}},
		{[]string{"--", "plumbing"}, LogOptions{Path: "plumbing"}},
		{[]string{"--", "blame.go"}, LogOptions{Path: "blame.go"}},
		{[]string{"--", "plumbing/object/commit.go/nothing"}, LogOptions{Path: "plumbing/object/commit.go/nothing"}},
		{[]string{"--no-merges", "--", "worktree.go"}, LogOptions{Merges: "none", Path: "worktree.go"}},
		{[]string{"--follow", "--", "plumbing/object/commit.go"}, LogOptions{Path: "plumbing/object/commit.go", Follow: true}},
		{[]string{"--follow", "--", "plumbing/protocol/capability/list.go"}, LogOptions{Path: "plumbing/protocol/capability/list.go", Follow: true}},
		{[]string{"-SMergeBase", "--", "plumbing/object"}, LogOptions{ContentAdded: "MergeBase", ContentRemoved: "MergeBase", Path: "plumbing/object"}},
		{[]string{"--first-parent", "--since=" + since.Format(time.RFC3339), "--", "remote.go"}, LogOptions{FirstParent: true, Since: since, Path: "remote.go"}},
		{[]string{"--merges", "-F", "--author=Máximo"}, LogOptions{Merges: "only", Author: "Máximo"}},
	} {
		want := gitOut(t, dir, append([]string{"log", "--format=%H"}, tc.git...)...)
		if diff := cmp.Diff(want, allHistory(t, head, tc.opts)); diff != "" {
			t.Errorf("log %v with a commit-graph (-git +ours):\n%s", tc.git, diff)
		}
	}
	ws, _ := reg.Workspace(reader, "ws")
	ws.repo.mu.Lock()
	defer ws.repo.mu.Unlock()
	g := ws.repo.graphLocked()
	if g == nil {
		t.Fatal("the commit-graph git wrote was not read")
	}
	// Every commit is in the graph: the root's (in the base layer of a
	// chain) and HEAD's.
	for _, rev := range []string{"HEAD", gitOut(t, dir, "rev-list", "--max-parents=0", "HEAD")[0]} {
		h := plumbing.NewHash(gitOut(t, dir, "rev-parse", rev)[0])
		if _, err := g.GetIndexByHash(h); err != nil {
			t.Errorf("commit %s is not in the graph read: %v", rev, err)
		}
	}
	if got := filteredShare(ws.repo.bloomLocked(), g.MaximumNumberOfHashes(), "plumbing/object/commit.go"); got < filtered || filtered == 0 && got > 0 {
		t.Errorf("the filters prove %.2f of the commits left the path alone; want at least %.2f (0: no filters)", got, filtered)
	}
}

// filteredShare is the share of the n commits of a graph whose changed-path
// filter proves they did not change path.
func filteredShare(b *bloomFilters, n uint32, path string) float64 {
	if b == nil {
		return 0
	}
	q := newBloomQuery(path)
	unchanged := 0
	for pos := range n {
		if !q.maybeChanged(b, pos) {
			unchanged++
		}
	}
	return float64(unchanged) / float64(n)
}
