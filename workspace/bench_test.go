package workspace

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// The benchmarks read a repository made of $(go env GOROOT)/src committed
// once and packed, as docs/perf.md describes. Set REPO_MCP_BENCH_REPO to an
// existing repository to skip building it. The git-cat-file and
// git-ls-tree benchmarks are the baselines, measured in the same run:
//
//	go test ./workspace -run '^$' -bench . -benchtime 5x -count 6

var corpus struct {
	once  sync.Once
	dir   string
	temp  string
	paths []string // 1000 regular files, spread over the tree
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if corpus.temp != "" {
		os.RemoveAll(corpus.temp)
	}
	os.Exit(code)
}

func benchCorpus(b *testing.B) (string, []string) {
	b.Helper()
	corpus.once.Do(func() {
		corpus.dir = os.Getenv("REPO_MCP_BENCH_REPO")
		if corpus.dir == "" {
			corpus.err = buildCorpus(b)
			if corpus.err != nil {
				return
			}
		}
		corpus.paths, corpus.err = pickPaths(b, corpus.dir, 1000)
	})
	if corpus.err != nil {
		b.Fatal(corpus.err)
	}
	return corpus.dir, corpus.paths
}

func buildCorpus(b *testing.B) error {
	temp, err := os.MkdirTemp("", "repo-mcp-bench-")
	if err != nil {
		return err
	}
	corpus.temp = temp
	corpus.dir = filepath.Join(temp, "src")
	gitfixture.GoSource(b, corpus.dir)
	return nil
}

// pickPaths chooses n regular files spread evenly over the tree, leaving
// out what the default deny list hides.
func pickPaths(b *testing.B, dir string, n int) ([]string, error) {
	deny, err := compileDenyList(DefaultDenyPatterns)
	if err != nil {
		return nil, err
	}
	var all []string
	for line := range strings.Lines(gitfixture.Git(b, dir, "ls-tree", "-r", "HEAD")) {
		meta, p, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if !strings.HasPrefix(meta, "100") || strings.HasPrefix(p, "\"") {
			continue
		}
		if _, denied := deny.match(p); !denied {
			all = append(all, p)
		}
	}
	sort.Strings(all)
	step := max(len(all)/n, 1)
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += step {
		out = append(out, all[i])
	}
	return out, nil
}

// BenchmarkReadFile measures a warm read: resolve HEAD, then read a file,
// for each of 1000 files. One op is 1000 reads.
func BenchmarkReadFile(b *testing.B) {
	dir, paths := benchCorpus(b)
	reg, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	readAll := func(lat []time.Duration) {
		for i, p := range paths {
			start := time.Now()
			s, err := reg.Snapshot(ctx, reader, "ws", "HEAD")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.ReadFile(ctx, p, ReadOptions{}); err != nil {
				b.Fatal(err)
			}
			if lat != nil {
				lat[i] = time.Since(start)
			}
		}
	}
	readAll(nil) // warm
	lat := make([]time.Duration, len(paths))
	b.ResetTimer()
	for b.Loop() {
		readAll(lat)
	}
	reportLatency(b, lat)
}

// BenchmarkCatFileBatch is the baseline: one persistent git cat-file
// --batch, one request in flight, for the same 1000 files.
func BenchmarkCatFileBatch(b *testing.B) {
	dir, paths := benchCorpus(b)
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Skip("git not available:", err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	out := bufio.NewReader(stdout)
	readOne := func(p string) {
		fmt.Fprintf(stdin, "HEAD:%s\n", p)
		header, err := out.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		fields := strings.Fields(header)
		size, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if err != nil {
			b.Fatalf("header %q", header)
		}
		if _, err := io.CopyN(io.Discard, out, size+1); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range paths {
		readOne(p)
	}
	lat := make([]time.Duration, len(paths))
	b.ResetTimer()
	for b.Loop() {
		for i, p := range paths {
			start := time.Now()
			readOne(p)
			lat[i] = time.Since(start)
		}
	}
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	sorted := append([]time.Duration(nil), lat...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	b.ReportMetric(float64(sorted[len(sorted)/2].Microseconds()), "p50-µs/read")
	b.ReportMetric(float64(sorted[len(sorted)*99/100].Microseconds()), "p99-µs/read")
}

// BenchmarkWalk lists the whole tree at a pinned commit, warm (the registry
// is reused across ops), without and with sizes.
func BenchmarkWalk(b *testing.B) {
	dir, _ := benchCorpus(b)
	reg, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	sha := strings.TrimSpace(gitfixture.Git(b, dir, "rev-parse", "HEAD"))
	for _, sizes := range []bool{false, true} {
		b.Run(fmt.Sprintf("sizes=%v", sizes), func(b *testing.B) {
			n := 0
			for b.Loop() {
				s, err := reg.Snapshot(ctx, reader, "ws", sha)
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				if _, err := s.Walk(ctx, "", WalkOptions{Recursive: true, Sizes: sizes}, func(Entry) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "entries")
		})
	}
}

// BenchmarkLsTree is the listing baseline: a git ls-tree -r process (with
// -l for sizes).
func BenchmarkLsTree(b *testing.B) {
	dir, _ := benchCorpus(b)
	for _, long := range []bool{false, true} {
		b.Run(fmt.Sprintf("sizes=%v", long), func(b *testing.B) {
			args := []string{"-C", dir, "ls-tree", "-r", "HEAD"}
			if long {
				args = append(args, "-l")
			}
			for b.Loop() {
				cmd := exec.Command("git", args...)
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Skip("git not available:", err)
				}
			}
		})
	}
}

// BenchmarkCold opens a fresh registry (no caches) per op, then reads one
// file or lists the whole tree: the in-process part of a cold start.
func BenchmarkCold(b *testing.B) {
	dir, paths := benchCorpus(b)
	ctx := context.Background()
	cfg := Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}
	run := func(b *testing.B, use func(*Snapshot) error) {
		for b.Loop() {
			reg, err := Open(cfg, Options{})
			if err != nil {
				b.Fatal(err)
			}
			s, err := reg.Snapshot(ctx, reader, "ws", "HEAD")
			if err == nil {
				err = use(s)
			}
			reg.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("read", func(b *testing.B) {
		run(b, func(s *Snapshot) error {
			_, err := s.ReadFile(ctx, paths[len(paths)/2], ReadOptions{})
			return err
		})
	})
	b.Run("walk", func(b *testing.B) {
		run(b, func(s *Snapshot) error {
			_, err := s.Walk(ctx, "", WalkOptions{Recursive: true}, func(Entry) error { return nil })
			return err
		})
	})
}

// BenchmarkReadFileFirst reads each of the 1000 files once from a fresh
// registry (blobs not cached; trees not cached either): T1 of docs/perf.md, the
// first read of a blob at a revision. One op is 1000 reads.
func BenchmarkReadFileFirst(b *testing.B) {
	dir, paths := benchCorpus(b)
	ctx := context.Background()
	lat := make([]time.Duration, len(paths))
	for b.Loop() {
		b.StopTimer()
		reg, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for i, p := range paths {
			start := time.Now()
			s, err := reg.Snapshot(ctx, reader, "ws", "HEAD")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.ReadFile(ctx, p, ReadOptions{}); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(start)
		}
		b.StopTimer()
		reg.Close()
		b.StartTimer()
	}
	reportLatency(b, lat)
}

// BenchmarkRefCache resolves HEAD, and takes a HEAD snapshot then reads one
// small file, with the ref cache and without it (every resolution through
// go-git, as before the cache). The uncached variants are the baseline.
func BenchmarkRefCache(b *testing.B) {
	dir, paths := benchCorpus(b)
	ctx := context.Background()
	spec, err := parseRevision("HEAD")
	if err != nil {
		b.Fatal(err)
	}
	for _, cached := range []bool{true, false} {
		reg, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer reg.Close()
		ws := reg.workspaces["ws"]
		if cached {
			settleRefCache(b, ws)
		} else {
			ws.repo.refs = nil
		}
		b.Run(fmt.Sprintf("resolve/cached=%v", cached), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := ws.resolve(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("read/cached=%v", cached), func(b *testing.B) {
			for b.Loop() {
				s, err := reg.Snapshot(ctx, reader, "ws", "HEAD")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.ReadFile(ctx, paths[0], ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// settleRefCache resolves HEAD until the cache keeps it: right after a
// corpus is built its ref files are too new to be trusted (racyMargin).
func settleRefCache(b *testing.B, ws *Workspace) {
	spec, _ := parseRevision("HEAD")
	for range 100 {
		ws.resolve(spec)
		before := ws.repo.refs.resolutions
		ws.resolve(spec)
		if ws.repo.refs.resolutions == before {
			return
		}
		time.Sleep(racyMargin / 2)
	}
	b.Fatal("the ref cache never kept HEAD")
}
