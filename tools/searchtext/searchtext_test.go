package searchtext_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/searchfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/searchtext"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

var files = map[string]gitfixture.File{
	"main.go": gitfixture.Text("package main\n\n// TODO: handle errors\nfunc main() {\n\tprintln(\"hello, world\")\n}\n"),
	"lib/util.go": gitfixture.Text("package lib\n\nfunc Helper() error {\n\treturn fmt.Errorf(\"helper failed\")\n}\n\n" +
		"func helperTwo() {}\n"),
	"docs/guide.md":           gitfixture.Text("# Guide\n\nSay hello to the helper.\nTODO write more\n"),
	"config/app.yaml":         gitfixture.Text("server:\n  port: 8080\n  greeting: hello\n"),
	"internal/secret/keys.go": gitfixture.Text("package secret\n\n// hello from the secret package\nconst Key = \"hunter2\"\n"),
	".env":                    gitfixture.Text("API_TOKEN=hello-token\n"),
	"data.bin":                gitfixture.Text("hello\x00binary\n"),
	"utf8.txt":                gitfixture.Text("héllo wörld\nnaïve café\nbad \xff byte hello\n"),
	"long.txt":                gitfixture.Text(strings.Repeat("x", 1000) + "needle" + strings.Repeat("y", 1000) + "\n"),
}

type setup struct {
	repo  *gitfixture.Repo
	head  string
	svc   *searchtext.Service
	alice *servertest.Client // may read everything but the secret patterns
	bob   *servertest.Client // may not read internal/secret
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	return newSetupWith(t, searchtext.Options{MaxFileBytes: 1500})
}

// newSetupWith is newSetup with the service's options (CacheDir is set
// here).
func newSetupWith(t *testing.T, opts searchtext.Options) *setup {
	t.Helper()
	fx := searchfixture.New(t, files, map[string]string{"extra.go": "package main\n\n// hello from disk\n"})
	opts.CacheDir = t.TempDir()
	svc, err := searchtext.New(fx.Reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return &setup{repo: fx.Repo, head: fx.Head, svc: svc,
		alice: fx.Client(t, searchfixture.Alice, svc.Register), bob: fx.Client(t, searchfixture.Bob, svc.Register)}
}

func search(t *testing.T, c *servertest.Client, args map[string]any) (searchtext.SearchTextOut, *servertest.Result) {
	t.Helper()
	args["workspace_id"] = "app"
	res := c.Call("search_text", args)
	var out searchtext.SearchTextOut
	if !res.IsError {
		if err := json.Unmarshal(res.Structured, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out, res
}

// hits renders matches as path:line:column, space-separated.
func hits(out searchtext.SearchTextOut) string {
	var s []string
	for _, m := range out.Matches {
		s = append(s, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
	}
	for _, f := range out.Files {
		s = append(s, fmt.Sprintf("%s=%d", f.Path, f.Matches))
	}
	return strings.Join(s, " ")
}

func TestSearchText(t *testing.T) {
	st := newSetup(t)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "hello"}, "config/app.yaml:3:13 docs/guide.md:3:5 internal/secret/keys.go:3:4 main.go:5:11 utf8.txt:3:12"},
		{map[string]any{"pattern": "Hello", "case": "insensitive"}, "config/app.yaml:3:13 docs/guide.md:3:5 internal/secret/keys.go:3:4 main.go:5:11 utf8.txt:3:12"},
		{map[string]any{"pattern": "Hello"}, ""},
		{map[string]any{"pattern": "Hello", "case": "smart"}, ""},
		{map[string]any{"pattern": "helper", "case": "smart"}, "docs/guide.md:3:18 lib/util.go:3:6 lib/util.go:4:21 lib/util.go:7:6"},
		{map[string]any{"pattern": "helper", "whole_word": true, "case": "smart"}, "docs/guide.md:3:18 lib/util.go:3:6 lib/util.go:4:21"},
		{map[string]any{"pattern": `^func \w+\(\)`, "mode": "regexp"}, "lib/util.go:3:1 lib/util.go:7:1 main.go:4:1"},
		{map[string]any{"pattern": `\Afunc \w+\(\)`, "mode": "regexp"}, "lib/util.go:3:1 lib/util.go:7:1 main.go:4:1"},
		{map[string]any{"pattern": `(?:\A|x)func \w+\(\) \{\}?\z`, "mode": "regexp"}, "lib/util.go:7:1 main.go:4:1"},
		// \A and \z are a line's edges, as ^ and $ are, on every path a
		// pattern takes (an exact literal, a literal and the expression).
		{map[string]any{"pattern": `\Afunc`, "mode": "regexp"}, "lib/util.go:3:1 lib/util.go:7:1 main.go:4:1"},
		{map[string]any{"pattern": `\ATODO|8080\z`, "mode": "regexp"}, "config/app.yaml:2:9 docs/guide.md:4:1"},
		{map[string]any{"pattern": `\A\treturn \w+`, "mode": "regexp"}, "lib/util.go:4:1"},
		{map[string]any{"pattern": `TODO|port:`, "mode": "regexp"}, "config/app.yaml:2:3 docs/guide.md:4:1 main.go:3:4"},
		{map[string]any{"pattern": "hello", "languages": []string{"go"}}, "internal/secret/keys.go:3:4 main.go:5:11"},
		{map[string]any{"pattern": "hello", "include": []string{"*.md", "config/**"}}, "config/app.yaml:3:13 docs/guide.md:3:5"},
		{map[string]any{"pattern": "hello", "exclude": []string{"internal/**", "*.txt"}}, "config/app.yaml:3:13 docs/guide.md:3:5 main.go:5:11"},
		{map[string]any{"pattern": "café"}, "utf8.txt:2:8"},
		{map[string]any{"pattern": "WÖRLD", "case": "insensitive"}, "utf8.txt:1:8"},
		{map[string]any{"pattern": "h.llo", "mode": "regexp", "output": "files"}, "config/app.yaml=1 docs/guide.md=1 internal/secret/keys.go=1 main.go=1 utf8.txt=2"},
		{map[string]any{"pattern": `[^a-z]$`, "mode": "regexp", "include": []string{"docs/*"}}, "docs/guide.md:3:24"},
		{map[string]any{"pattern": `\s+$`, "mode": "regexp"}, ""},
		{map[string]any{"pattern": "needle"}, ""}, // long.txt is over the size bound of this setup
	}
	for _, tt := range tests {
		out, res := search(t, st.alice, tt.args)
		if res.IsError || hits(out) != tt.want {
			t.Errorf("%v: got %q (%s), want %q", tt.args, hits(out), res.Text, tt.want)
		}
		if out.Revision != st.head || !out.Complete {
			t.Errorf("%v: revision %s, complete %v", tt.args, out.Revision, out.Complete)
		}
	}
}

func TestSearchTextPolicy(t *testing.T) {
	st := newSetup(t)
	for _, args := range []map[string]any{
		{"pattern": "hello"},
		{"pattern": "hello", "output": "files"},
		{"pattern": "hello", "output": "count"},
		{"pattern": "hello", "include": []string{"internal/**"}},
		{"pattern": "hunter2"},
		{"pattern": "secret", "case": "insensitive"},
	} {
		out, res := search(t, st.bob, args)
		if res.IsError {
			t.Fatalf("%v: %s", args, res.Text)
		}
		if strings.Contains(string(res.Structured)+res.Text, "internal/secret") || strings.Contains(res.Text, "hunter2") {
			t.Errorf("bob %v: a denied file shows: %s", args, res.Text)
		}
		// Counts leave the file out as if it did not exist.
		all, _ := search(t, st.alice, args)
		if args["pattern"] == "hello" && out.TotalMatches != all.TotalMatches-1 {
			t.Errorf("bob %v: total %d, alice %d: the denied file is counted", args, out.TotalMatches, all.TotalMatches)
		}
		if out.Index.Files != all.Index.Files-1 && args["include"] == nil {
			t.Errorf("bob %v: %d files considered, alice %d", args, out.Index.Files, all.Index.Files)
		}
	}
	// The secret patterns hold for everyone: .env is never searched.
	for _, c := range []*servertest.Client{st.alice, st.bob} {
		out, res := search(t, c, map[string]any{"pattern": "API_TOKEN", "include": []string{"**/.env", ".env"}})
		if out.TotalMatches != 0 || out.Index.Files != 0 || strings.Contains(res.Text, ".env") {
			t.Errorf(".env searched: %s", res.Text)
		}
	}
}

func TestSearchTextWorktree(t *testing.T) {
	st := newSetup(t)
	out, res := search(t, st.alice, map[string]any{"pattern": "hello from", "revision": "worktree"})
	if res.IsError || hits(out) != "extra.go:3:4 internal/secret/keys.go:3:4" || out.Revision != "worktree" {
		t.Errorf("worktree: %q %s", hits(out), res.Text)
	}
	out, _ = search(t, st.bob, map[string]any{"pattern": "hello from", "revision": "worktree"})
	if hits(out) != "extra.go:3:4" {
		t.Errorf("bob in the worktree: %q", hits(out))
	}
}

// TestSearchTextWorktreeOverlay checks that the working tree is HEAD's
// index with the files that differ from HEAD read from disk: only those
// are unindexed, and what they hold now is what is found.
func TestSearchTextWorktreeOverlay(t *testing.T) {
	st := newSetup(t)
	gitfixture.Git(t, st.repo.Dir, "reset", "-q")           // the fixture's commits write no index
	search(t, st.alice, map[string]any{"pattern": "hello"}) // indexes HEAD
	st.svc.WaitBuilds()
	write := func(p, content string) {
		if err := os.WriteFile(filepath.Join(st.repo.Dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", "package main\n\n// hello overlay\n")
	write("new.txt", "hello overlay, untracked\n")
	if err := os.Remove(filepath.Join(st.repo.Dir, "docs/guide.md")); err != nil {
		t.Fatal(err)
	}
	out, res := search(t, st.alice, map[string]any{"pattern": "hello", "revision": "worktree"})
	want := "config/app.yaml:3:13 extra.go:3:4 internal/secret/keys.go:3:4 main.go:3:4 new.txt:1:1 utf8.txt:3:12"
	if res.IsError || hits(out) != want {
		t.Errorf("worktree:\n got %s\nwant %s\n%s", hits(out), want, res.Text)
	}
	// extra.go, main.go and new.txt differ from HEAD; the others come
	// from the index.
	if out.Index.Unindexed != 3 || out.Index.Building {
		t.Errorf("unindexed %d (building %v), want the 3 files that differ from HEAD", out.Index.Unindexed, out.Index.Building)
	}
	if out.Index.Candidates >= out.Index.Files {
		t.Errorf("%d candidates of %d files: the index ruled none out", out.Index.Candidates, out.Index.Files)
	}
}

func TestSearchTextPages(t *testing.T) {
	st := newSetup(t)
	all, _ := search(t, st.alice, map[string]any{"pattern": "e", "limit": 2000})
	if all.Truncated || all.TotalMatches != len(all.Matches) || all.TotalMatches < 10 {
		t.Fatalf("one page: %d of %d, truncated %v", len(all.Matches), all.TotalMatches, all.Truncated)
	}
	var paged []string
	cur := ""
	for range 100 {
		args := map[string]any{"pattern": "e", "limit": 3}
		if cur != "" {
			args["cursor"] = cur
		}
		out, res := search(t, st.alice, args)
		if res.IsError || out.TotalMatches != all.TotalMatches {
			t.Fatalf("page: %s", res.Text)
		}
		paged = append(paged, hits(out))
		if !out.Truncated {
			break
		}
		cur = out.NextCursor
	}
	if got := strings.Join(paged, " "); got != hits(all) {
		t.Errorf("pages:\n%s\nwant\n%s", got, hits(all))
	}
	// Files, paged the same way.
	files, _ := search(t, st.alice, map[string]any{"pattern": "e", "output": "files", "limit": 2})
	rest, _ := search(t, st.alice, map[string]any{"pattern": "e", "output": "files", "limit": 2000, "cursor": files.NextCursor})
	whole, _ := search(t, st.alice, map[string]any{"pattern": "e", "output": "files"})
	if !files.Truncated || hits(files)+" "+hits(rest) != hits(whole) {
		t.Errorf("file pages %q + %q, want %q", hits(files), hits(rest), hits(whole))
	}
	count, _ := search(t, st.alice, map[string]any{"pattern": "e", "output": "count"})
	if len(count.Matches)+len(count.Files) != 0 || count.TotalMatches != all.TotalMatches || count.TotalFiles != whole.TotalFiles {
		t.Errorf("count: %+v", count)
	}
}

func TestSearchTextContext(t *testing.T) {
	st := newSetup(t)
	out, _ := search(t, st.alice, map[string]any{"pattern": "fmt.Errorf", "before": 2, "after": 10})
	if len(out.Matches) != 1 {
		t.Fatalf("matches: %+v", out.Matches)
	}
	m := out.Matches[0]
	if strings.Join(m.Before, "|") != "|func Helper() error {" || strings.Join(m.After, "|") != "}||func helperTwo() {}" {
		t.Errorf("context: before %q after %q", m.Before, m.After)
	}
	out, _ = search(t, st.alice, map[string]any{"pattern": "bad", "include": []string{"utf8.txt"}})
	if len(out.Matches) != 1 || out.Matches[0].Text != `bad \xff byte hello` {
		t.Errorf("invalid UTF-8: %+v", out.Matches)
	}
}

func TestSearchTextLongLine(t *testing.T) {
	repo := gitfixture.New(t)
	line := strings.Repeat("x", 5000) + "needle" + strings.Repeat("é", 3000)
	repo.Commit(t, "first", map[string]gitfixture.File{"long.txt": gitfixture.Text(line + "\n")})
	c := singleClient(t, repo.Dir, searchtext.Options{})
	out, _ := search(t, c, map[string]any{"pattern": "needle"})
	if len(out.Matches) != 1 {
		t.Fatalf("matches: %+v", out.Matches)
	}
	m := out.Matches[0]
	if !m.Cut || m.Column != 5001 || !strings.Contains(m.Text, "needle") || len(m.Text) > searchtext.MaxLineBytes+2*len("…") || !utf8.ValidString(m.Text) {
		t.Errorf("long line: cut %v column %d text %q", m.Cut, m.Column, m.Text)
	}
}

// singleClient serves the repository at dir as workspace "app" to one
// caller, alice, who may read everything.
func singleClient(t *testing.T, dir string, opts searchtext.Options) *servertest.Client {
	t.Helper()
	c, _ := singleService(t, dir, opts)
	return c
}

// singleService is singleClient that returns the service too.
func singleService(t *testing.T, dir string, opts searchtext.Options) (*servertest.Client, *searchtext.Service) {
	t.Helper()
	cfg := workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "app", Root: dir}},
		Policies: []workspace.PolicyConfig{
			{Identity: "alice", Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionSearch}, Allow: []string{"**"}},
		},
	}
	reg, err := workspace.Open(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	svc, err := searchtext.New(reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	s := server.New(server.Info{Name: "t"}, server.Options{
		Caller: "alice", Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg),
	})
	if err := svc.Register(s); err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, s), svc
}

// TestSearchTextTimeCut searches with a time budget too short for any
// file, so that every page is cut after the one file a page always
// matches: the pages, resumed by their cursors, must hold exactly what
// one uncut search holds, at every revision and in every output.
func TestSearchTextTimeCut(t *testing.T) {
	whole := newSetup(t)
	cut := newSetupWith(t, searchtext.Options{MaxFileBytes: 1500, TimeBudget: time.Nanosecond})
	for _, tt := range []struct {
		args map[string]any
		// sum says the pages' totals add up to the uncut totals: each page
		// counts from where it starts to where it was cut, unless a
		// limit ended it earlier.
		sum bool
	}{
		{map[string]any{"pattern": "e", "limit": 2000}, true},
		{map[string]any{"pattern": "e", "limit": 2}, false},
		{map[string]any{"pattern": "hello", "revision": "worktree"}, true},
		{map[string]any{"pattern": "e", "output": "files"}, true},
		{map[string]any{"pattern": "e", "output": "files", "limit": 1}, false},
		{map[string]any{"pattern": "e", "output": "count"}, true},
	} {
		args := tt.args
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			want, res := search(t, whole.alice, maps.Clone(args))
			if res.IsError || !want.Complete || want.Truncated && args["limit"] == nil {
				t.Fatalf("uncut: %s", res.Text)
			}
			if args["limit"] == 2 || args["limit"] == 1 {
				// The uncut search, paged to its end.
				want = pageAll(t, whole.alice, args, want)
			}
			first, res := search(t, cut.alice, maps.Clone(args))
			if res.IsError || first.Complete || !first.Truncated {
				t.Fatalf("a page cut by the budget must say it is incomplete and give a cursor: %s", res.Text)
			}
			got := pageAll(t, cut.alice, args, first)
			if hits(got) != hits(want) || tt.sum && (got.TotalMatches != want.TotalMatches || got.TotalFiles != want.TotalFiles) {
				t.Errorf("resumed pages: %d matches in %d files, %s\nuncut: %d in %d, %s",
					got.TotalMatches, got.TotalFiles, hits(got), want.TotalMatches, want.TotalFiles, hits(want))
			}
		})
	}
}

// pageAll follows first's cursors to the end and returns the union of the
// pages: their matches and files, and the sums of their totals (a page of
// a cut search counts from where it starts).
func pageAll(t *testing.T, c *servertest.Client, args map[string]any, first searchtext.SearchTextOut) searchtext.SearchTextOut {
	t.Helper()
	all, out := first, first
	cut := !first.Complete
	for n := 0; out.Truncated; n++ {
		if n == 1000 {
			t.Fatal("more than 1000 pages")
		}
		next := maps.Clone(args)
		next["cursor"] = out.NextCursor
		var res *servertest.Result
		if out, res = search(t, c, next); res.IsError {
			t.Fatalf("page %d: %s", n, res.Text)
		}
		all.Matches = append(all.Matches, out.Matches...)
		all.Files = append(all.Files, out.Files...)
		if cut {
			all.TotalMatches += out.TotalMatches
			all.TotalFiles += out.TotalFiles
		}
	}
	return all
}
