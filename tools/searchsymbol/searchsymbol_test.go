package searchsymbol_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/searchfixture"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/searchsymbol"
)

var files = map[string]gitfixture.File{
	"go.mod": gitfixture.Text("module example.com/app\n\ngo 1.26\n"),
	"reader.go": gitfixture.Text(`package app

// Reader reads.
type Reader struct{ n int }

// NewReader returns a Reader.
func NewReader() *Reader { return &Reader{} }

// Read reads nothing.
func (r *Reader) Read(p []byte) (int, error) { return 0, nil }
`),
	"internal/secret/keys.go": gitfixture.Text("package secret\n\n// NewReaderKey is hidden from some callers.\nfunc NewReaderKey() {}\n"),
	"broken.go":               gitfixture.Text("package app\n\nfunc Broken( {\n"),
	"reader_test.go":          gitfixture.Text("package app\n\nfunc TestNewReader() {}\n"),
}

type setup struct {
	repo  *gitfixture.Repo
	head  string
	alice *servertest.Client // may read everything
	bob   *servertest.Client // may not read internal/secret
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	fx := searchfixture.New(t, files, map[string]string{"extra.go": "package app\n\nfunc NewReaderFromDisk() {}\n"})
	svc := searchsymbol.New(fx.Reg, searchsymbol.Options{CacheDir: t.TempDir()})
	t.Cleanup(func() { svc.Close() })
	return &setup{repo: fx.Repo, head: fx.Head,
		alice: fx.Client(t, searchfixture.Alice, svc.Register), bob: fx.Client(t, searchfixture.Bob, svc.Register)}
}

func search(t *testing.T, c *servertest.Client, args map[string]any) (searchsymbol.SearchSymbolOut, *servertest.Result) {
	t.Helper()
	args["workspace_id"] = "app"
	res := c.Call("search_symbol", args)
	var out searchsymbol.SearchSymbolOut
	if !res.IsError {
		if err := json.Unmarshal(res.Structured, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out, res
}

func names(out searchsymbol.SearchSymbolOut) string {
	var s []string
	for _, sym := range out.Symbols {
		s = append(s, sym.QualifiedName)
	}
	return strings.Join(s, " ")
}

func TestSearchSymbol(t *testing.T) {
	st := newSetup(t)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "NewReader"}, "app.NewReader secret.NewReaderKey"},
		{map[string]any{"query": "app.NewReader"}, "app.NewReader"},
		{map[string]any{"query": "Reader.Read"}, "app.Reader.Read"},
		{map[string]any{"query": "(*Reader).Read"}, "app.Reader.Read"},
		{map[string]any{"query": "NR", "kinds": []string{"func"}}, "app.NewReader secret.NewReaderKey"},
		{map[string]any{"query": "rdr", "match": "fuzzy", "kinds": []string{"type"}}, "app.Reader"},
		{map[string]any{"query": "NewReader", "include_tests": true, "match": "substring"}, "app.NewReader secret.NewReaderKey app.TestNewReader"},
		{map[string]any{"query": "NewReader", "package": "example.com/app/internal"}, "secret.NewReaderKey"},
	}
	for _, tt := range tests {
		out, res := search(t, st.alice, tt.args)
		if res.IsError || names(out) != tt.want {
			t.Errorf("%v: got %q (%s), want %q", tt.args, names(out), res.Text, tt.want)
		}
		if out.Revision != st.head || out.Index.ParseFailures != 1 {
			t.Errorf("%v: revision %s, parse failures %d", tt.args, out.Revision, out.Index.ParseFailures)
		}
	}
	out, _ := search(t, st.alice, map[string]any{"query": "NewReader"})
	if s := out.Symbols[0]; s.File != "reader.go" || s.Line != 7 || s.Column != 6 || s.Doc != "NewReader returns a Reader." || s.Signature != "func NewReader() *Reader" {
		t.Errorf("NewReader entry: %+v", s)
	}
}

func TestSearchSymbolAuthorization(t *testing.T) {
	st := newSetup(t)
	out, res := search(t, st.bob, map[string]any{"query": "NewReader"})
	if names(out) != "app.NewReader" || out.Total != 1 || strings.Contains(res.Text, "secret") {
		t.Errorf("bob sees %q (total %d): a file his policy denies leaks", names(out), out.Total)
	}
	// The index is shared: alice still sees everything after bob's search.
	out, _ = search(t, st.alice, map[string]any{"query": "NewReader"})
	if out.Total != 2 || !out.Index.FromCache {
		t.Errorf("alice after bob: total %d, from cache %v", out.Total, out.Index.FromCache)
	}
}

func TestSearchSymbolWorktree(t *testing.T) {
	st := newSetup(t)
	out, res := search(t, st.alice, map[string]any{"query": "NewReaderFromDisk", "revision": "worktree"})
	if res.IsError || names(out) != "app.NewReaderFromDisk" || out.Revision != "worktree" {
		t.Errorf("worktree: %q %s", names(out), res.Text)
	}
}

// TestSearchSymbolWorktreeReadsThroughPolicy searches the working tree,
// which is indexed for each call from the caller's own snapshot: a file
// the secret patterns hide, or the caller's policy denies, is not read at
// all, so it is neither found nor counted among the files indexed.
func TestSearchSymbolWorktreeReadsThroughPolicy(t *testing.T) {
	st := newSetup(t)
	if err := os.WriteFile(filepath.Join(st.repo.Dir, ".env.go"), []byte("package app\n\nfunc NewReaderEnv() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		client *servertest.Client
		want   string
		files  int // reader.go, broken.go, reader_test.go, extra.go, and keys.go when readable
	}{
		{"alice", st.alice, "app.NewReader app.NewReaderFromDisk secret.NewReaderKey", 5},
		{"bob", st.bob, "app.NewReader app.NewReaderFromDisk", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, res := search(t, tc.client, map[string]any{"query": "NewReader", "revision": "worktree", "include_tests": false})
			got := strings.Fields(names(out))
			slices.Sort(got)
			if res.IsError || strings.Join(got, " ") != tc.want || out.Index.Files != tc.files {
				t.Errorf("found %v in %d files (%s); want %s in %d", got, out.Index.Files, res.Text, tc.want, tc.files)
			}
			if strings.Contains(res.Text, "NewReaderEnv") || strings.Contains(res.Text, ".env") {
				t.Errorf("a file the secret patterns hide was read: %s", res.Text)
			}
		})
	}
}

func TestSearchSymbolBadInput(t *testing.T) {
	st := newSetup(t)
	for _, tt := range []struct {
		args  map[string]any
		class string
	}{
		{map[string]any{"query": "x", "revision": "--output=x"}, "invalid_input"},
		{map[string]any{"query": "x", "revision": "no-such-branch"}, "not_found"},
		{map[string]any{"query": "(a+)+$", "match": "regexp"}, ""}, // RE2: linear time, a valid answer
		{map[string]any{"query": "[", "match": "regexp"}, "invalid_input"},
		{map[string]any{"query": strings.Repeat("x", 300)}, "invalid_input"},
		{map[string]any{"query": "x", "kinds": []string{"gizmo"}}, "invalid_input"},
		{map[string]any{"query": "x", "limit": 501}, "invalid_input"},
		{map[string]any{"query": "x", "cursor": "garbage"}, "invalid_input"},
		{map[string]any{"query": "x", "Query": "y"}, "invalid_input"},
	} {
		_, res := search(t, st.alice, tt.args)
		if res.ErrorClass() != tt.class {
			t.Errorf("%v: class %q, want %q: %s", tt.args, res.ErrorClass(), tt.class, res.Text)
		}
	}
	// A cursor made for another query is refused.
	out, _ := search(t, st.alice, map[string]any{"query": "", "limit": 1})
	if !out.Truncated {
		t.Fatal("want more than one page")
	}
	_, res := search(t, st.alice, map[string]any{"query": "Read", "limit": 1, "cursor": out.NextCursor})
	if res.ErrorClass() != "invalid_input" {
		t.Errorf("cursor of another query: %s", res.Text)
	}
}
