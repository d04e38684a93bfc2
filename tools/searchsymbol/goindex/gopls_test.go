package goindex

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/repo-mcp/repo-mcp/internal/peers"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgainstGopls checks the index against a reference nobody here wrote:
// for exact-name queries on the benchmark corpus (the Go standard library),
// every declaration gopls's workspace_symbol reports in the corpus must be
// among ours at the same file, line and column. Declarations only we
// report are logged with the likely reason.
//
// It uses the gopls named by GOINDEX_GOPLS, or else the pinned one among
// the peers (.ci/install-peers installs v0.23.0); without either it skips,
// unless peers are required.
func TestAgainstGopls(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the standard library corpus")
	}
	gopls := os.Getenv("GOINDEX_GOPLS")
	if gopls == "" {
		gopls = peers.Gopls(t)
	}
	dir, head, _ := benchCorpus(t)
	repo, err := openTestRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	src, err := testSource(repo, head)
	if err != nil {
		t.Fatal(err)
	}
	// gopls sees testdata-free, vendor-free packages of the workspace, test
	// files included.
	idx, err := NewIndexer(IndexerOptions{}).Index(context.Background(), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for _, name := range []string{"NewReader", "ReadAll", "Serve", "Errorf", "Marshal", "Buffer",
		"Context", "Handler", "Mutex", "ParseFile", "Walk", "Builder", "Join", "Open", "Listen"} {
		t.Run(name, func(t *testing.T) {
			theirs, complete := goplsExact(t, gopls, dir, cache, name)
			res, err := idx.Search(Query{Query: name, Match: MatchExact, IncludeTests: true, Limit: MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			ours := make(map[string]bool)
			for _, e := range res.Entries {
				ours[fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)] = true
			}
			reported := make(map[string]bool)
			for _, loc := range theirs {
				reported[loc] = true
				if !ours[loc] {
					t.Errorf("gopls reports %s %s; the index does not", name, loc)
				}
			}
			if complete { // gopls's list was not cut: explain what only we report
				for _, e := range res.Entries {
					if loc := fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column); !reported[loc] {
						t.Logf("only in the index: %s %s %s (build %q, test %v)", e.Kind, e.QualifiedName, loc, e.BuildConstraint, e.Test)
					}
				}
			}
			// gopls returns at most 100 symbols per query, partial matches
			// and the toolchain's own copy of std included, and only for
			// files of this GOOS/GOARCH: it finds fewer.
			t.Logf("%s: gopls reports %d in the corpus, the index %d", name, len(theirs), res.Total)
		})
	}
}

// goplsExact runs gopls workspace_symbol and returns the corpus-relative
// locations (file:line:col) of the symbols named exactly name, and whether
// gopls's answer was complete (under its cap of 100 symbols).
func goplsExact(t *testing.T, gopls, dir, cache, name string) (locs []string, complete bool) {
	cmd := exec.Command(gopls, "workspace_symbol", "-matcher=casesensitive", name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOPLSCACHE="+cache, "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gopls: %v\n%s", err, stderr.Bytes())
	}
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		lines++
		// /abs/path/file.go:54:6-15 NewReader Function
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || fields[1] != name {
			continue
		}
		loc := fields[0]
		if i := strings.LastIndexByte(loc, '-'); i > 0 {
			loc = loc[:i]
		}
		rel, err := filepath.Rel(dir, loc)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // the toolchain's own std, which gopls also loads
		}
		locs = append(locs, filepath.ToSlash(rel))
	}
	return locs, lines < 100
}
