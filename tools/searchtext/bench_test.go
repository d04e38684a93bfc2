//go:build unix

package searchtext

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// The benchmarks run on the Go standard library committed:
// REPO_MCP_BENCH_REPO (bench/gosource.sh makes one), or a repository
// built once under $TMPDIR. bench/searchtext.sh runs them side by side
// with git grep and ripgrep and prints the ratios.

func benchRepo(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("REPO_MCP_BENCH_REPO"); dir != "" {
		return dir
	}
	dir := filepath.Join(os.TempDir(), "searchtext-bench-goroot-"+runtime.Version())
	if _, err := os.Stat(filepath.Join(dir, ".git", "searchtext-ready")); err != nil {
		os.RemoveAll(dir)
		gitfixture.GoSource(b, dir)
		if err := os.WriteFile(filepath.Join(dir, ".git", "searchtext-ready"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func gitIn(b *testing.B, dir string, env []string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// secondRevision returns a commit on top of HEAD that changes 20 files
// (one line appended to each), written with plumbing so that no ref and
// no working file of the corpus changes.
func secondRevision(b *testing.B, dir string) string {
	b.Helper()
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(b.TempDir(), "index"),
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench",
		"GIT_COMMITTER_EMAIL=bench@example.com", "GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z"}
	gitIn(b, dir, env, "read-tree", "HEAD")
	files := slices.DeleteFunc(strings.Split(gitIn(b, dir, nil, "ls-tree", "-r", "--name-only", "HEAD"), "\n"),
		func(f string) bool { return !strings.HasSuffix(f, ".go") })
	for i := range 20 {
		f := files[i*len(files)/20]
		old := gitIn(b, dir, nil, "cat-file", "blob", "HEAD:"+f)
		tmp := filepath.Join(b.TempDir(), "blob")
		os.WriteFile(tmp, fmt.Appendf(nil, "%s\n// changed by the second revision %d\n", old, i), 0o644)
		sha := gitIn(b, dir, nil, "hash-object", "-w", tmp)
		gitIn(b, dir, env, "update-index", "--cacheinfo", "100644,"+sha+","+f)
	}
	tree := gitIn(b, dir, env, "write-tree")
	return gitIn(b, dir, env, "commit-tree", tree, "-p", "HEAD", "-m", "second revision: 20 files")
}

// BenchmarkColdIndex indexes HEAD from nothing (a new cache directory).
func BenchmarkColdIndex(b *testing.B) {
	dir := benchRepo(b)
	var sv *Service
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		sv, _ = newTestService(b, dir, b.TempDir())
		b.StartTimer()
		c0 := processCPU(b)
		if err := sv.warm(context.Background(), "op", "w"); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU(b) - c0
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	st := sv.ix.Stats()
	corpus := corpusBytes(b, sv)
	b.ReportMetric(float64(st.Bytes), "index-bytes")
	b.ReportMetric(float64(corpus), "corpus-bytes")
	b.ReportMetric(float64(st.Bytes)/float64(corpus), "index/corpus")
}

// corpusBytes sums the sizes of HEAD's files.
func corpusBytes(b *testing.B, sv *Service) int64 {
	files, _, err := listFiles(context.Background(), testSnapshot(b, sv.reg, ""), &pathFilter{}, 1<<40)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, f := range files {
		n += f.size
	}
	return n
}

// BenchmarkGitGrepPass is one git grep pass over HEAD's tree: a literal
// found nowhere, so that every file is read.
func BenchmarkGitGrepPass(b *testing.B) {
	dir := benchRepo(b)
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command("git", "-C", dir, "grep", "-I", "-F", "-e", "zzzznotfoundzzzz", "HEAD")
		if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
			b.Fatal(err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkSecondRevision indexes a revision that changes 20 files of an
// indexed HEAD, in a process that served HEAD (its registry's caches are
// warm; its index is loaded from disk afresh for each iteration).
func BenchmarkSecondRevision(b *testing.B) {
	dir := benchRepo(b)
	second := secondRevision(b, dir)
	base := b.TempDir()
	sv, reg := newTestService(b, dir, base)
	if err := sv.warm(context.Background(), "op", "w"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		cache := b.TempDir()
		if out, err := exec.Command("cp", "-a", base+"/.", cache).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v %s", err, out)
		}
		sv, err := New(reg, Options{CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		snap := testSnapshot(b, reg, second)
		files, _, err := listFiles(context.Background(), snap, &pathFilter{}, sv.opts.MaxFileBytes)
		if err != nil {
			b.Fatal(err)
		}
		before := sv.ix.Stats().Blobs
		if _, err := sv.build(context.Background(), sv.repo(snap.Workspace()), snap, files); err != nil {
			b.Fatal(err)
		}
		if added := sv.ix.Stats().Blobs - before; added != 20 {
			b.Fatalf("the second revision added %d blobs, want 20", added)
		}
		b.StopTimer()
		sv.Close()
		b.StartTimer()
	}
}

// BenchmarkQueries runs the 60 comparison queries on a warm service (HEAD
// indexed, contents cached by a first pass), with git grep on the same
// commit and ripgrep on a checkout of it, each query once per tool and
// iteration, and reports latency percentiles and per-query ratios.
func BenchmarkQueries(b *testing.B) {
	dir := benchRepo(b)
	snap, call := warmQueries(b, dir, comparisonQueries)
	checkout := filepath.Join(b.TempDir(), "checkout")
	extract(b, dir, snap.Revision().SHA, checkout)
	var ours, git, rg, ratio []float64
	for b.Loop() {
		for _, q := range comparisonQueries {
			t0 := time.Now()
			call(q)
			o := time.Since(t0).Seconds() * 1000
			t0 = time.Now()
			gitGrep(b, dir, "HEAD", q)
			g := time.Since(t0).Seconds() * 1000
			t0 = time.Now()
			ripgrep(b, checkout, q)
			r := time.Since(t0).Seconds() * 1000
			ours, git, rg, ratio = append(ours, o), append(git, g), append(rg, r), append(ratio, o/g)
			if os.Getenv("SEARCHTEXT_BENCH_VERBOSE") != "" {
				b.Logf("%-40q ours %8.2f ms  git grep %8.2f ms  rg %8.2f ms", q.pattern, o, g, r)
			}
		}
	}
	for _, m := range []struct {
		name string
		v    []float64
	}{{"ours", ours}, {"git", git}, {"rg", rg}} {
		b.ReportMetric(percentile(m.v, 50), m.name+"-p50-ms")
		b.ReportMetric(percentile(m.v, 99), m.name+"-p99-ms")
	}
	b.ReportMetric(slices.Max(ours), "ours-max-ms")
	b.ReportMetric(slices.Max(ratio), "max-ours/git")
}

// warmQueries returns HEAD of the repository in dir, indexed by a new
// service, and a function that runs one query there to its last page;
// each of queries has run once, which fills the content cache.
func warmQueries(b *testing.B, dir string, queries []refQuery) (*workspace.Snapshot, func(refQuery)) {
	sv, reg := newTestService(b, dir, b.TempDir())
	if err := sv.warm(context.Background(), "op", "w"); err != nil {
		b.Fatal(err)
	}
	snap := testSnapshot(b, reg, "")
	call := func(q refQuery) {
		in := queryInput(q)
		r, out, err := sv.execute(context.Background(), &server.Request{ID: "bench"}, snap, in)
		if err == nil {
			err = r.page(context.Background(), in, out)
		}
		if err != nil || !out.Complete {
			b.Fatalf("%q: %v", q.pattern, err)
		}
	}
	for _, q := range queries {
		call(q)
	}
	return snap, call
}

// processCPU returns the user and system time this process has used: on
// a shared machine, wall time measures the neighbours as much as the code.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func percentile(v []float64, p int) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

// BenchmarkWarmQueries runs the 60 comparison queries on a warm service,
// search_text alone: what -cpuprofile should look at. Each iteration is
// all 60 (or those whose pattern SEARCHTEXT_BENCH_ONLY, a regular
// expression, matches); -test.v with SEARCHTEXT_BENCH_VERBOSE logs each
// query's time.
func BenchmarkWarmQueries(b *testing.B) {
	queries := comparisonQueries
	if only := os.Getenv("SEARCHTEXT_BENCH_ONLY"); only != "" {
		re := regexp.MustCompile(only)
		queries = slices.DeleteFunc(slices.Clone(queries), func(q refQuery) bool { return !re.MatchString(q.pattern) })
	}
	_, call := warmQueries(b, benchRepo(b), queries)
	// CPU time (the process's, user and system) is reported beside wall
	// time: on a shared machine it varies far less with the neighbours.
	per, perCPU := make([][]float64, len(queries)), make([][]float64, len(queries))
	for b.Loop() {
		for i, q := range queries {
			t0, c0 := time.Now(), processCPU(b)
			call(q)
			per[i] = append(per[i], time.Since(t0).Seconds()*1000)
			perCPU[i] = append(perCPU[i], (processCPU(b)-c0).Seconds()*1000)
		}
	}
	var all, allCPU []float64
	for i, v := range per {
		all, allCPU = append(all, v...), append(allCPU, perCPU[i]...)
		if os.Getenv("SEARCHTEXT_BENCH_VERBOSE") != "" {
			b.Logf("%-40q %8.2f ms %8.2f ms CPU", queries[i].pattern, percentile(v, 50), percentile(perCPU[i], 50))
		}
	}
	b.ReportMetric(percentile(all, 50), "p50-ms")
	b.ReportMetric(percentile(all, 99), "p99-ms")
	b.ReportMetric(percentile(allCPU, 50), "cpu-p50-ms")
}
