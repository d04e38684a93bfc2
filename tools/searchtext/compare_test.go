package searchtext

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
)

// refQuery is a search and the tool that gives the reference answer:
// "git" is git grep (-F for literals, -P for expressions, in the C
// locale, whose classes and folding are ASCII as RE2's \w, \d and \b
// are); "rg" is ripgrep on a checkout, for Unicode classes and folding.
type refQuery struct {
	pattern string
	regexp  bool
	fold    bool
	word    bool
	ref     string
}

// comparisonQueries are the 60 searches compared with git grep and
// ripgrep: literals, alternations, classes, anchors, case-insensitive,
// whole words, multi-byte UTF-8, and patterns with no trigram.
var comparisonQueries = []refQuery{
	// Literals.
	{pattern: "func ("}, {pattern: "return nil, err"}, {pattern: "errors.New("}, {pattern: "TODO"},
	{pattern: "// Copyright"}, {pattern: "package main"}, {pattern: `fmt.Sprintf("%s`}, {pattern: ":="},
	{pattern: "if err != nil {"}, {pattern: "[]byte"}, {pattern: `\n`}, {pattern: `""`},
	{pattern: "0x"}, {pattern: "zzzznotfoundzzzz"}, {pattern: "import ("}, {pattern: ".git"},
	{pattern: "http://"}, {pattern: "Hash"}, {pattern: "\t}"}, {pattern: "..."},
	// Case-insensitive literals.
	{pattern: "todo", fold: true}, {pattern: "ERROR", fold: true}, {pattern: "readme", fold: true},
	{pattern: "ObJeCt", fold: true}, {pattern: "http", fold: true},
	// Whole words.
	{pattern: "err", word: true}, {pattern: "Hash", word: true}, {pattern: "nil", word: true},
	{pattern: "io", word: true}, {pattern: "string", word: true},
	// Expressions.
	{pattern: `^package \w+$`, regexp: true}, {pattern: `^func \(\w+ \*?\w+\) \w+\(`, regexp: true},
	{pattern: `\w+\(\)`, regexp: true}, {pattern: `^\s*$`, regexp: true}, {pattern: `(Reader|Writer)\b`, regexp: true},
	{pattern: `[A-Z]{5,}`, regexp: true}, {pattern: `\d{4}-\d{2}-\d{2}`, regexp: true}, {pattern: `^import`, regexp: true},
	{pattern: `}$`, regexp: true}, {pattern: `^\t+return`, regexp: true}, {pattern: `err(or)?s?\.New`, regexp: true},
	{pattern: `(?:foo|bar|baz)`, regexp: true}, {pattern: `[[:upper:]][[:lower:]]+Error`, regexp: true},
	{pattern: `^// [A-Z]\w+ (returns|is|reports)`, regexp: true}, {pattern: `^$`, regexp: true},
	{pattern: `\bv[0-9]+\b`, regexp: true}, {pattern: `[^\x00-\x7f]`, regexp: true}, {pattern: `;$`, regexp: true},
	{pattern: `\t{3}if`, regexp: true}, {pattern: `New[A-Z]\w*\(`, regexp: true}, {pattern: `(?i)sha1`, regexp: true},
	{pattern: `ctx context\.Context`, regexp: true}, {pattern: `\.(go|md|yaml)\b`, regexp: true},
	// Multi-byte UTF-8, and Unicode classes and folding.
	{pattern: "é", ref: "rg"}, {pattern: `ü|ö|ä`, regexp: true, ref: "rg"}, {pattern: "©", ref: "rg"},
	{pattern: "É", fold: true, ref: "rg"}, {pattern: `[α-ω]+`, regexp: true, ref: "rg"}, {pattern: "—", ref: "rg"},
	{pattern: `\p{Han}`, regexp: true, ref: "rg"},
}

func TestComparisonQueryCount(t *testing.T) {
	if len(comparisonQueries) != 60 {
		t.Errorf("%d comparison queries, want 60", len(comparisonQueries))
	}
}

// TestCompareGoGit compares every comparison query, at three revisions of
// go-git (../shared/corpora/go-git.bundle), with git grep or ripgrep on
// the same tree.
func TestCompareGoGit(t *testing.T) {
	bundle, err := filepath.Abs("../../../shared/corpora/go-git.bundle")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bundle); err != nil {
		t.Skipf("the go-git corpus is not here (%v); CI has it", err)
	}
	requireTools(t)
	if testing.Short() {
		t.Skip("-short: the comparison reads three revisions of go-git")
	}
	dir := filepath.Join(t.TempDir(), "go-git.git")
	gitfixture.Git(t, ".", "clone", "-q", "--mirror", bundle, dir)
	compareRevisions(t, dir, "v4.0.0", "v5.0.0", "HEAD")
}

// TestCompareGoSource does the same on the Go standard library
// committed (REPO_MCP_BENCH_REPO, or built here): minutes, so only when
// REPO_MCP_SEARCHTEXT_STDLIB is set.
func TestCompareGoSource(t *testing.T) {
	if os.Getenv("REPO_MCP_SEARCHTEXT_STDLIB") == "" {
		t.Skip("set REPO_MCP_SEARCHTEXT_STDLIB=1 to compare on the Go standard library (minutes)")
	}
	requireTools(t)
	dir := os.Getenv("REPO_MCP_BENCH_REPO")
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "src")
		gitfixture.GoSource(t, dir)
	}
	compareRevisions(t, dir, "HEAD")
}

func requireTools(t *testing.T) {
	for _, tool := range []string{"git", "rg", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("REPO_MCP_REQUIRE_PEERS") != "" {
				t.Fatalf("%s is not installed, and REPO_MCP_REQUIRE_PEERS is set", tool)
			}
			t.Skipf("%s is not installed (.ci/install-peers installs it)", tool)
		}
	}
}

func compareRevisions(t *testing.T, dir string, revs ...string) {
	sv, reg := newTestService(t, dir, t.TempDir())
	for _, rev := range revs {
		snap := testSnapshot(t, reg, rev)
		sha := snap.Revision().SHA
		// The first search scans and starts the index build; wait for it
		// so that the rest go through the index.
		collect(t, sv, snap, SearchTextIn{Pattern: "x"})
		sv.wg.Wait()
		checkout := filepath.Join(t.TempDir(), "checkout")
		extract(t, dir, sha, checkout)
		skip := unsearched(t, checkout, sv.opts.MaxFileBytes)
		for _, q := range comparisonQueries {
			got, out := collect(t, sv, snap, queryInput(q))
			if out.Index.Unindexed != 0 {
				t.Errorf("%s %+v: %d files not indexed", rev, q, out.Index.Unindexed)
			}
			var want []string
			if q.ref == "rg" {
				want = ripgrep(t, checkout, q)
			} else {
				want = gitGrep(t, dir, sha, q)
			}
			want = slices.DeleteFunc(want, func(hit string) bool {
				path := hit[:strings.LastIndexByte(hit, ':')]
				_, denied := snap.Authorize(path, false) // the secret patterns (*.key, .env...)
				return skip[path] || denied != nil
			})
			if d := diffHits(got, want); d != "" {
				t.Errorf("%s %q (%+v): ours (-) vs %s (+):\n%s", rev, q.pattern, q, refName(q), d)
			}
		}
	}
}

func queryInput(q refQuery) SearchTextIn {
	in := SearchTextIn{Pattern: q.pattern, WholeWord: q.word}
	if q.regexp {
		in.Mode = "regexp"
	}
	if q.fold {
		in.Case = "insensitive"
	}
	return in
}

func refName(q refQuery) string {
	if q.ref == "rg" {
		return "ripgrep"
	}
	return "git grep"
}

// extract writes the tree of commit sha to dir.
func extract(t testing.TB, repo, sha, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("git", "-C", repo, "archive", "--format=tar", sha)
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatal(err)
	}
	if err := untar.Wait(); err != nil {
		t.Fatal(err)
	}
}

// unsearched returns the paths of a checkout that search_text does not
// search by design, each for a stated reason: symlinks (never followed),
// binary files (git's rule, as git grep -I) and files over the size
// bound. ripgrep runs with -a, so it must be told.
func unsearched(t *testing.T, dir string, maxBytes int64) map[string]bool {
	skip := make(map[string]bool)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			skip[rel] = true
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if int64(len(data)) > maxBytes || textindex.IsBinary(data) {
			skip[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return skip
}

// gitGrep returns git grep's "path:line" hits for q at commit sha.
func gitGrep(t testing.TB, repo, sha string, q refQuery) []string {
	args := []string{"-C", repo, "grep", "-z", "-n", "-I", "--no-color"}
	if q.regexp {
		args = append(args, "-P")
	} else {
		args = append(args, "-F")
	}
	if q.fold {
		args = append(args, "-i")
	}
	if q.word {
		args = append(args, "-w")
	}
	args = append(args, "-e", q.pattern, sha)
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
		return nil // no match
	}
	if err != nil {
		t.Fatalf("git grep %q: %v", q.pattern, err)
	}
	// Each hit is "sha:path\x00line\x00text\n".
	var hits []string
	for line := range bytes.Lines(out) {
		f := bytes.SplitN(line, []byte{0}, 3)
		if len(f) < 3 {
			t.Fatalf("git grep output %q", line)
		}
		hits = append(hits, strings.TrimPrefix(string(f[0]), sha+":")+":"+string(f[1]))
	}
	return sortHits(hits)
}

// ripgrep returns rg's "path:line" hits for q in a checkout.
func ripgrep(t testing.TB, dir string, q refQuery) []string {
	args := []string{"--no-config", "-n", "--null", "--no-heading", "--with-filename", "-a", "--no-ignore", "--hidden", "--color=never"}
	if !q.regexp {
		args = append(args, "-F")
	}
	if q.fold {
		args = append(args, "-i")
	} else {
		args = append(args, "-s")
	}
	if q.word {
		args = append(args, "-w")
	}
	args = append(args, "-e", q.pattern)
	cmd := exec.Command("rg", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		t.Fatalf("rg %q: %v", q.pattern, err)
	}
	// Each hit is "path\x00line:text\n".
	var hits []string
	for line := range bytes.Lines(out) {
		path, rest, ok := bytes.Cut(line, []byte{0})
		num, _, ok2 := bytes.Cut(rest, []byte{':'})
		if !ok || !ok2 {
			t.Fatalf("rg output %q", line)
		}
		hits = append(hits, string(path)+":"+string(num))
	}
	return sortHits(hits)
}

// sortHits sorts "path:line" hits as search_text orders them.
func sortHits(hits []string) []string {
	slices.SortFunc(hits, func(a, b string) int {
		i, j := strings.LastIndexByte(a, ':'), strings.LastIndexByte(b, ':')
		if c := strings.Compare(a[:i], b[:j]); c != 0 {
			return c
		}
		x, _ := strconv.Atoi(a[i+1:])
		y, _ := strconv.Atoi(b[j+1:])
		return x - y
	})
	return hits
}

// diffHits lists, at most 20 of each, the hits only ours has (-) and
// only the reference has (+).
func diffHits(ours, ref []string) string {
	in := func(list []string) map[string]bool {
		m := make(map[string]bool, len(list))
		for _, h := range list {
			m[h] = true
		}
		return m
	}
	o, r := in(ours), in(ref)
	var b strings.Builder
	n := 0
	for _, h := range ours {
		if !r[h] && n < 20 {
			fmt.Fprintf(&b, "- %s\n", h)
			n++
		}
	}
	n = 0
	for _, h := range ref {
		if !o[h] && n < 20 {
			fmt.Fprintf(&b, "+ %s\n", h)
			n++
		}
	}
	if b.Len() == 0 && !slices.Equal(ours, ref) {
		return fmt.Sprintf("same hits, different order or duplicates: %d vs %d", len(ours), len(ref))
	}
	return b.String()
}
