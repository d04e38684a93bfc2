package goindex

import (
	"context"
	"crypto/md5"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// The benchmarks run on a corpus: a git repository with two commits, HEAD
// and HEAD~1. By default it is $(go env GOROOT)/src committed into a
// repository under os.TempDir (built once per Go version, then reused), with
// a second commit that appends a function to 20 files, as in
// docs/perf.md. GOINDEX_BENCH_COPIES=N commits N copies of it side by side
// (copy0/, copy1/, ...), a corpus N times its size. GOINDEX_BENCH_CORPUS
// names another such repository (for example a Kubernetes checkout
// prepared the same way).

// benchCorpus returns the corpus directory and its two commits.
func benchCorpus(b testing.TB) (dir string, head, prev plumbing.Hash) {
	b.Helper()
	dir, copies := corpusDir(b)
	if copies > 0 {
		if _, err := os.Stat(filepath.Join(dir, ".git", "goindex-ready")); err != nil {
			buildGorootCorpus(b, dir, copies)
		}
	}
	return dir, plumbing.NewHash(gitOut(b, dir, "rev-parse", "HEAD")), plumbing.NewHash(gitOut(b, dir, "rev-parse", "HEAD~1"))
}

// corpusDir returns the corpus's directory, and how many copies of
// GOROOT/src it holds (0 for GOINDEX_BENCH_CORPUS's).
func corpusDir(b testing.TB) (string, int) {
	if dir := os.Getenv("GOINDEX_BENCH_CORPUS"); dir != "" {
		return dir, 0
	}
	dir := filepath.Join(os.TempDir(), "goindex-bench-goroot-"+runtime.Version())
	copies := 1
	if v := os.Getenv("GOINDEX_BENCH_COPIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("GOINDEX_BENCH_COPIES=%q: want a positive number", v)
		}
		copies = n
	}
	if copies > 1 {
		dir += fmt.Sprintf("-x%d", copies)
	}
	return dir, copies
}

func gitOut(b testing.TB, dir string, args ...string) string {
	b.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		b.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

func buildGorootCorpus(b testing.TB, dir string, copies int) {
	b.Logf("building the GOROOT corpus in %s", dir)
	os.RemoveAll(dir)
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		b.Fatal(err)
	}
	first := "" // the directory of the first copy, in the repository
	if copies == 1 {
		if out, err := exec.Command("cp", "-a", filepath.Join(goroot(b), "src"), dir).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v\n%s", err, out)
		}
	} else {
		first = "copy0/"
		for i := range copies {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if out, err := exec.Command("cp", "-a", filepath.Join(goroot(b), "src"), filepath.Join(dir, fmt.Sprintf("copy%d", i))).CombinedOutput(); err != nil {
				b.Fatalf("cp: %v\n%s", err, out)
			}
		}
	}
	run("chmod", "-R", "u+w", ".")
	run("git", "init", "-q", "-b", "main")
	run("git", "config", "gc.auto", "0")
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "snapshot of GOROOT/src")
	var picked []string
	n := 0
	for _, f := range strings.Split(gitOut(b, dir, "ls-files", "*.go"), "\n") {
		if strings.HasSuffix(f, "_test.go") || strings.Contains(f, "testdata") {
			continue
		}
		if n%300 == 0 && len(picked) < 17 {
			picked = append(picked, f)
		}
		n++
	}
	picked = append(picked, first+"bufio/bufio.go", first+"strings/reader.go", first+"net/http/server.go")
	for i, f := range picked {
		fh, err := os.OpenFile(filepath.Join(dir, f), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(fh, "\n// perfBaselineMarker is added by the second revision.\nfunc perfBaselineMarker%x() int { return %d }\n", md5.Sum([]byte(f)), i)
		fh.Close()
	}
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "second revision: touch 20 files")
	run("git", "gc", "-q")
	if err := os.WriteFile(filepath.Join(dir, ".git", "goindex-ready"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
}

func openBench(b *testing.B, dir string, commit plumbing.Hash) (*testRepo, *SnapshotSource) {
	b.Helper()
	repo, err := openTestRepo(dir)
	if err != nil {
		b.Fatal(err)
	}
	src, err := testSource(repo, commit)
	if err != nil {
		b.Fatal(err)
	}
	return repo, src
}

// benchOptions are the index options of the benchmarks: GOINDEX_BENCH_ALL=1
// indexes vendor and testdata too.
func benchOptions() Options {
	all := os.Getenv("GOINDEX_BENCH_ALL") == "1"
	return Options{IncludeVendor: all, IncludeTestdata: all}
}

// BenchmarkColdIndex opens the repository and indexes HEAD with empty
// caches.
func BenchmarkColdIndex(b *testing.B) {
	dir, head, _ := benchCorpus(b)
	var facts Facts
	for b.Loop() {
		repo, src := openBench(b, dir, head)
		idx, err := NewIndexer(IndexerOptions{}).Index(context.Background(), src, benchOptions())
		if err != nil {
			b.Fatal(err)
		}
		facts = idx.Facts()
		repo.Close()
	}
	b.ReportMetric(float64(facts.Files), "files")
	b.ReportMetric(float64(facts.Symbols), "symbols")
	b.ReportMetric(float64(facts.ParseFailures), "parse-failures")
}

// BenchmarkParseFloor parses the same .go files from the work tree with
// go/parser on all cores, and does nothing else: the floor that an index
// build is measured against.
func BenchmarkParseFloor(b *testing.B) {
	dir, _, _ := benchCorpus(b)
	opts := benchOptions()
	for b.Loop() {
		var files []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != dir && (d.Name() == ".git" || skippedDir(d.Name(), opts)) {
				return fs.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".go") && d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		work := make(chan string, 256)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for p := range work {
					src, err := os.ReadFile(p)
					if err != nil {
						b.Error(err)
						continue
					}
					parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
				}
			})
		}
		for _, p := range files {
			work <- p
		}
		close(work)
		wg.Wait()
		b.ReportMetric(float64(len(files)), "files")
	}
}

// BenchmarkSecondRevision indexes HEAD in an indexer that holds the index
// of HEAD~1: only the changed files are parsed.
func BenchmarkSecondRevision(b *testing.B) {
	dir, head, prev := benchCorpus(b)
	repo, prevSrc := openBench(b, dir, prev)
	defer repo.Close()
	headSrc, err := testSource(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	var facts Facts
	for b.Loop() {
		b.StopTimer()
		ix := NewIndexer(IndexerOptions{})
		if _, err := ix.Index(context.Background(), prevSrc, benchOptions()); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		idx, err := ix.Index(context.Background(), headSrc, benchOptions())
		if err != nil {
			b.Fatal(err)
		}
		facts = idx.Facts()
	}
	b.ReportMetric(float64(facts.Reparsed), "reparsed")
}

// BenchmarkDiskCacheFirstQuery is a new process's first query, answered
// from the on-disk cache: open the repository, load the index, search.
func BenchmarkDiskCacheFirstQuery(b *testing.B) {
	dir, head, _ := benchCorpus(b)
	cache := b.TempDir()
	repo, src := openBench(b, dir, head)
	if err := NewIndexer(IndexerOptions{CacheDir: cache}).Warm(context.Background(), src, benchOptions()); err != nil {
		b.Fatal(err)
	}
	repo.Close()
	for b.Loop() {
		repo, src := openBench(b, dir, head)
		res, err := NewIndexer(IndexerOptions{CacheDir: cache}).Search(context.Background(), src, benchOptions(), Query{Query: "NewReader"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Facts.From != FromDisk {
			b.Fatalf("index came from %s", res.Facts.From)
		}
		repo.Close()
	}
}

// benchQueries is the fixed list of 100 queries of every match mode.
func benchQueries() []Query {
	var qs []Query
	add := func(m Match, texts ...string) {
		for _, t := range texts {
			qs = append(qs, Query{Query: t, Match: m})
		}
	}
	add(MatchAuto, "NewReader", "bufio.NewReader", "Reader.Read", "(*Server).Serve", "srvr", "NR",
		"http.Handler", "Context", "ctx", "Marshal", "json.Unmarshal", "ReadAll", "io.Writer.Write",
		"(*Buffer).WriteString", "Errorf", "sync.Mutex.Lock", "Sprintf", "TLS", "parseFile", "hdr")
	add(MatchExact, "NewReader", "Server", "Handler", "String", "Error", "Read", "Write", "Close",
		"Len", "Reset", "Parse", "New", "Open", "Copy", "main", "Do", "Get", "Set", "Run", "Wait")
	add(MatchPrefix, "New", "Read", "Write", "Parse", "Marshal", "get", "set", "is", "Must", "Has",
		"Encode", "Decode", "Format", "Append", "Test", "Unmarshal", "Lookup", "Listen", "Dial", "Serve")
	add(MatchSubstring, "reader", "writer", "server", "handler", "buffer", "json", "http", "context",
		"error", "conn", "file", "time", "byte", "string", "token", "parse", "cache", "lock", "hash", "crypt")
	add(MatchFuzzy, "srvr", "nwrdr", "rdall", "hndlr", "mrshl", "ctx", "bufwr", "tlscfg", "lstn", "dcd")
	add(MatchRegexp, "^New.*Reader$", "^Read(Byte|Rune)$", "Err[A-Z]", "^Test", "^[a-z]+$",
		"(?i)^server$", "^Must", "Writer$", "^x", "^Is[A-Z]")
	return qs
}

// BenchmarkQuery runs the 100 queries on a built index and reports the
// latency percentiles of single queries.
func BenchmarkQuery(b *testing.B) {
	dir, head, _ := benchCorpus(b)
	repo, src := openBench(b, dir, head)
	defer repo.Close()
	idx, err := NewIndexer(IndexerOptions{}).Index(context.Background(), src, benchOptions())
	if err != nil {
		b.Fatal(err)
	}
	qs := benchQueries()
	var lat []time.Duration
	for b.Loop() {
		for _, q := range qs {
			t0 := time.Now()
			if _, err := idx.Search(q); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(float64(len(qs)), "queries")
}

// BenchmarkQueryEach runs each query alone, to find slow ones.
func BenchmarkQueryEach(b *testing.B) {
	dir, head, _ := benchCorpus(b)
	repo, src := openBench(b, dir, head)
	defer repo.Close()
	idx, err := NewIndexer(IndexerOptions{}).Index(context.Background(), src, benchOptions())
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range benchQueries() {
		b.Run(string(q.Match)+"/"+path.Clean(strings.NewReplacer("/", "_", "*", "_").Replace(q.Query)), func(b *testing.B) {
			for b.Loop() {
				if _, err := idx.Search(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFirstQueryProcess is one process's first query on the benchmark
// corpus, for bench/searchsymbol.sh to time as a whole process. It runs
// when GOINDEX_FIRST_QUERY is set: to "cold" (no on-disk cache: build the
// index) or to an on-disk cache directory (load the index from it, or
// build and store it on the first run).
func TestFirstQueryProcess(t *testing.T) {
	mode := os.Getenv("GOINDEX_FIRST_QUERY")
	if mode == "" {
		t.Skip("run by bench/searchsymbol.sh")
	}
	var head plumbing.Hash
	dir, _ := corpusDir(t)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	head = plumbing.NewHash(strings.TrimSpace(string(out)))
	opts := IndexerOptions{}
	if mode != "cold" {
		opts.CacheDir = mode
	}
	t0 := time.Now()
	repo, err := openTestRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	src, err := testSource(repo, head)
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewIndexer(opts).Search(context.Background(), src, benchOptions(), Query{Query: "NewReader"})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "first-query from=%s total=%d in-process-ms=%.1f\n", res.Facts.From, res.Total, float64(time.Since(t0).Microseconds())/1000)
}

// BenchmarkWorkTreeQuery is a query on the corpus's working tree (the
// "worktree" revision) that has not changed since the last query: a walk,
// stat checks, assembling the index from the blob cache, and the search.
func BenchmarkWorkTreeQuery(b *testing.B) {
	dir, _, _ := benchCorpus(b)
	repo, err := openTestRepo(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	src := func() Source {
		// A new snapshot per query, as search_symbol makes one per call.
		s, err := worktreeSource(repo)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	ix := NewIndexer(IndexerOptions{})
	q := Query{Query: "NewReader"}
	if _, err := ix.Search(context.Background(), src(), benchOptions(), q); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := ix.Search(context.Background(), src(), benchOptions(), q)
		if err != nil {
			b.Fatal(err)
		}
		if res.Facts.Reparsed != 0 {
			b.Fatalf("%d files parsed again", res.Facts.Reparsed)
		}
	}
}
